package proxy

import (
	"io"
	"sync"
	"time"

	"github.com/failsim/failsim/fault"
)

// delay holds every byte, both ways, for delay on the proxy's clock, in order: toxiproxy's
// latency. A chunk the pump reads at t is written at t+delay; the pump goes on reading
// meanwhile, so a steady stream arrives late by delay, not slowed to a chunk per delay. A
// replication stream through it is late by delay; a round trip costs twice delay. The bytes a
// delay has taken and not yet written are the connection's line (below): once the mode
// changes, they still go first, in order, and a fault that holds bytes (freeze) holds them too.
type delay struct {
	delay time.Duration // fault.Fault.Delay, > 0
}

func (delay) kind() fault.Kind { return fault.Delay }

func (delay) shapes(direction) bool { return true }

// queues marks a shaper whose write only puts the chunk on the connection's line.
func (delay) queues() {}

// lateBy is delay in a chain (chain.go): every byte both ways is late by the delay.
func (f delay) lateBy(direction) (time.Duration, bool) { return f.delay, true }

// write puts p on the line of direction d, due delay from now. It waits only while the line
// is full.
func (f delay) write(c *conn, d direction, w io.Writer, p []byte) error {
	c.injected(fault.Delay)
	due := c.n.p.clock.Now().Add(f.delay)
	return c.lineFor(d, w).push(c, chunk{due: due, p: append([]byte(nil), p...)})
}

// lineBytes bounds what a line holds: a pump whose chunk would take it past the bound waits
// for the oldest chunks to go, as a full socket buffer would make it wait. So a stream
// faster than lineBytes per delay is slowed to that (1.6 MiB/s under delay 10s); slower
// ones, however many chunks they come in, are late by the delay and no more. A chunk counts
// its bytes and chunkCost, so that a stream of tiny chunks is bounded too.
const lineBytes = 16 << 20

// chunkCost is what a chunk costs a line beyond its bytes: its place in the queue and its
// allocation.
const chunkCost = 64

// chunk is bytes read from one side and due on the other at due.
type chunk struct {
	due time.Time
	p   []byte
}

// cost is what k takes of a line's lineBytes.
func (k chunk) cost() int { return len(k.p) + chunkCost }

// line is one direction's bytes taken by a delay and not yet written, oldest first, and the
// goroutine that writes each when it is due. It lives as long as its connection.
type line struct {
	w    io.Writer
	more chan struct{} // a token: chunks were queued

	mu      sync.Mutex
	queue   []chunk       // pushed, not yet taken by run, oldest first
	held    int           // the cost of every chunk pushed and not yet written
	pending int           // chunks pushed and not yet written (or given up)
	empty   chan struct{} // closed while pending == 0
	room    chan struct{} // closed when a written chunk frees room for a waiting push
}

// lineFor returns the connection's line in direction d, writing to w, starting it on first use.
func (c *conn) lineFor(d direction, w io.Writer) *line {
	if l := c.lines[d].Load(); l != nil {
		return l
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if l := c.lines[d].Load(); l != nil {
		return l
	}
	l := &line{w: tail{c: c, d: d, w: w}, more: make(chan struct{}, 1), empty: make(chan struct{})}
	close(l.empty)
	c.lines[d].Store(l)
	go l.run(c, d)
	return l
}

// push puts k at the end of the line, waiting while it would take the line past lineBytes
// (an empty line takes any chunk); errConnDone once the connection is going down.
func (l *line) push(c *conn, k chunk) error {
	for {
		l.mu.Lock()
		if l.held == 0 || l.held+k.cost() <= lineBytes {
			if l.pending == 0 {
				l.empty = make(chan struct{})
			}
			l.pending++
			l.held += k.cost()
			l.queue = append(l.queue, k)
			l.mu.Unlock()
			select {
			case l.more <- struct{}{}:
			default: // run has a token already
			}
			return nil
		}
		if l.room == nil {
			l.room = make(chan struct{})
		}
		room := l.room
		l.mu.Unlock()
		select {
		case <-room:
		case <-c.done:
			return errConnDone
		}
	}
}

// take returns the oldest chunk of the line, waiting for one; false once the connection is
// going down.
func (l *line) take(c *conn) (chunk, bool) {
	for {
		l.mu.Lock()
		if len(l.queue) > 0 {
			k := l.queue[0]
			l.queue[0] = chunk{}
			l.queue = l.queue[1:]
			l.mu.Unlock()
			return k, true
		}
		l.mu.Unlock()
		select {
		case <-l.more:
		case <-c.done:
			return chunk{}, false
		}
	}
}

// run writes each chunk when it is due, through the gate of its direction, until the
// connection goes down; what is left then is dropped with the connection.
func (l *line) run(c *conn, d direction) {
	for {
		k, ok := l.take(c)
		if !ok {
			return
		}
		if wait := k.due.Sub(c.n.p.clock.Now()); wait > 0 && !c.sleep(wait, otherWaiter) {
			return
		}
		if _, ok := c.gate(d, otherWaiter); !ok {
			return
		}
		if _, err := l.w.Write(k.p); err != nil {
			c.writeFailed()
			return
		}
		l.mu.Lock()
		l.pending--
		l.held -= k.cost()
		if l.pending == 0 {
			close(l.empty)
		}
		if l.room != nil {
			close(l.room)
			l.room = nil
		}
		l.mu.Unlock()
	}
}

// drained waits until the connection's line in direction d, if any, has written every chunk:
// bytes that move any other way go after them. It reports false when the connection went down
// first.
func (c *conn) drained(d direction) bool {
	l := c.lines[d].Load()
	if l == nil {
		return true
	}
	l.mu.Lock()
	e := l.empty
	l.mu.Unlock()
	select {
	case <-e:
		return true
	case <-c.done:
		return false
	}
}
