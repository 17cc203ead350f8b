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

// write puts p on the line of direction d, due delay from now. It waits only while the line
// is full.
func (f delay) write(c *conn, d direction, w io.Writer, p []byte) error {
	c.injected(fault.Delay)
	due := c.n.p.clock.Now().Add(f.delay)
	return c.lineFor(d, w).push(c, chunk{due: due, p: append([]byte(nil), p...)})
}

// lineChunks bounds a line: a pump that filled it waits for the oldest chunk to go, as a full
// socket buffer would make it wait. At the proxy's 64 KiB reads that is at most 16 MiB.
const lineChunks = 256

// chunk is bytes read from one side and due on the other at due.
type chunk struct {
	due time.Time
	p   []byte
}

// line is one direction's bytes taken by a delay and not yet written, oldest first, and the
// goroutine that writes each when it is due. It lives as long as its connection.
type line struct {
	w  io.Writer
	ch chan chunk

	mu      sync.Mutex
	pending int           // chunks pushed and not yet written (or given up)
	empty   chan struct{} // closed while pending == 0
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
	l := &line{w: w, ch: make(chan chunk, lineChunks), empty: make(chan struct{})}
	close(l.empty)
	c.lines[d].Store(l)
	go l.run(c, d)
	return l
}

// push puts k at the end of the line; errConnDone once the connection is going down.
func (l *line) push(c *conn, k chunk) error {
	l.mu.Lock()
	if l.pending == 0 {
		l.empty = make(chan struct{})
	}
	l.pending++
	l.mu.Unlock()
	select {
	case l.ch <- k:
		return nil
	case <-c.done:
		return errConnDone
	}
}

// run writes each chunk when it is due, through the gate of its direction, until the
// connection goes down; what is left then is dropped with the connection.
func (l *line) run(c *conn, d direction) {
	for {
		var k chunk
		select {
		case k = <-l.ch:
		case <-c.done:
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
		if l.pending == 0 {
			close(l.empty)
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
