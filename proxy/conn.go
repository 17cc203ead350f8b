package proxy

import (
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/failsim/failsim/fault"
)

// errConnDone is what a write returns once its connection is being torn down.
var errConnDone = errors.New("proxy: connection closed")

// drainFor bounds how long a connection closed with FIN waits for its peers to close their
// side, discarding what they still send, before it lets go of the sockets.
const drainFor = 5 * time.Second

// bufSize is the size of each direction's copy buffer.
const bufSize = 64 << 10

var bufPool = sync.Pool{New: func() any { b := make([]byte, bufSize); return &b }}

// conn is one client connection and its upstream connection: its lifecycle (set-up, dial,
// teardown) and its two pumps. What a fault does is in the fault's file; the connection asks
// the active fault's hooks at each step (faults.go).
type conn struct {
	n      *Node
	seq    uint64 // the connection's number in its node, from 0: its part of its seeds
	client *net.TCPConn
	rng    *rand.Rand // the connection's seeded source: set-up, then the client pump only
	toxRng *rand.Rand // the source of the toxics' toxicity draws, under mu; nil until needed

	mu        sync.Mutex
	up        *net.TCPConn // nil until dialled
	mode      Mode
	hooks     wireFault // the mode's fault, with its arguments
	gen       uint64    // bumped by every setMode: a trigger fires only for the mode that armed it
	active    bool      // the mode's fault acts on this connection now
	bytesLeft int64     // AfterBytes trigger: server bytes still to pass
	cmdsLeft  int       // AtCommand trigger: commands still to pass
	changed   chan struct{}
	hs        handshake
	lines     [2]atomic.Pointer[line] // per direction: bytes a delay took, not yet written (fault_delay.go)
	rw        *rewriter               // topology rewriting (rewrite.go); nil when the node does not rewrite

	done     chan struct{} // closed when the connection is being torn down
	doneOnce sync.Once
	draining atomic.Bool // closed with FIN: pumps discard until their peer closes
	faulted  atomic.Bool
	mysql    atomic.Bool // the server's greeting passed: a client's FIN ends the session (watch.go)
	spoke    atomic.Bool // the server sent its first bytes
	notMySQL atomic.Bool // the server's first bytes are not a MySQL greeting: the client's are not framed
	rawUp    atomic.Bool // the client's bytes are not framed: a mode change kicks the client's reads too

	// splicing holds, per direction, the generation (gen) under which the splice now in the
	// kernel began, 0 when none (gen is 1 or more from the setMode that makes the conn, before
	// any pump runs); spliceEnd is closed when one returns. Under mu. A mode change
	// waits for the splices of earlier generations (settle): a splice the kick woke can still
	// take bytes that arrive before it runs, so only once it has returned does no byte pass
	// under the old mode.
	splicing  [2]uint64
	spliceEnd chan struct{}
}

// setMode applies a node's new mode, whose fault is f, to the connection. An unarmed mode acts
// at once; an armed one starts its trigger count now. A chain is bound to the connection
// (chain.go): the fault the connection applies is returned.
func (c *conn) setMode(m Mode, f wireFault) wireFault {
	c.mu.Lock()
	prev := c.hooks
	if ch, ok := f.(*chain); ok {
		f = ch.bind(c, prev)
	}
	c.mode = m
	c.hooks = f
	c.gen++
	c.active = !m.armed()
	c.bytesLeft = m.AfterBytes
	c.cmdsLeft = m.AtCommand - 1
	c.restartHandshakeLocked()
	c.broadcastLocked()
	c.mu.Unlock()
	unbound(c, prev, f, !m.armed())
	c.kick()
	return f
}

// settleFor bounds how long a mode change waits for a splice to return (settle). A splice the
// kick woke returns at once; one that waits to write to a peer that does not read took its
// bytes before the change, and returns when they are written.
const settleFor = 250 * time.Millisecond

// beginSplice marks a splice in direction d as begun under the current generation.
func (c *conn) beginSplice(d direction) {
	c.mu.Lock()
	c.splicing[d] = c.gen
	c.mu.Unlock()
}

// endSplice marks the splice in direction d as returned and wakes a mode change waiting on it.
func (c *conn) endSplice(d direction) {
	c.mu.Lock()
	c.splicing[d] = 0
	if c.spliceEnd != nil {
		close(c.spliceEnd)
		c.spliceEnd = nil
	}
	c.mu.Unlock()
}

// settle waits until no splice begun before the current generation is in the kernel, or
// until expired is closed: once it returns, every byte the connection passes is passed under
// the mode set last. setMode has kicked the splices, so they return at once unless a write
// to a slow peer holds them.
func (c *conn) settle(expired <-chan time.Time) {
	for {
		c.mu.Lock()
		busy := false
		for _, g := range c.splicing {
			if g != 0 && g < c.gen {
				busy = true
			}
		}
		if !busy {
			c.mu.Unlock()
			return
		}
		if c.spliceEnd == nil {
			c.spliceEnd = make(chan struct{})
		}
		ended := c.spliceEnd
		c.mu.Unlock()
		select {
		case <-ended:
		case <-expired:
			return
		}
	}
}

// broadcastLocked wakes every pump waiting on the connection's state.
func (c *conn) broadcastLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// state returns the mode's fault, whether it acts now, and the channel closed at the next
// change.
func (c *conn) state() (wireFault, bool, chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hooks, c.active, c.changed
}

// injected counts one fault acting on the connection.
func (c *conn) injected(k fault.Kind) {
	c.n.stats.faults[k].Add(1)
	if !c.faulted.Swap(true) {
		c.n.stats.faulted.Add(1)
	}
}

// roll draws from the connection's seeded source: true with probability p.
func (c *conn) roll(p float64) bool { return c.rng.Float64() < p }

// sleep waits d on the proxy's clock; false if the connection went down meanwhile, or the
// client left while its reader slept (w).
func (c *conn) sleep(d time.Duration, w waiter) bool {
	t := c.n.p.clock.Timer(d)
	defer t.Stop()
	return await(c, t.C, w)
}

// isDone reports whether the connection is being torn down.
func (c *conn) isDone() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// markDone closes done once; it reports whether this call did.
func (c *conn) markDone() bool {
	first := false
	c.doneOnce.Do(func() { close(c.done); first = true })
	return first
}

// upstream returns the upstream connection, nil before the dial.
func (c *conn) upstream() *net.TCPConn {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.up
}

// reset tears the connection down with RST on both sides (SO_LINGER 0).
func (c *conn) reset() {
	if !c.markDone() {
		return
	}
	c.client.SetLinger(0)
	c.client.Close()
	if up := c.upstream(); up != nil {
		up.SetLinger(0)
		up.Close()
	}
}

// closeFIN tears the connection down with FIN on both sides. The pumps then discard what the
// peers still send until they close too, so no unread byte turns the FIN into a RST.
func (c *conn) closeFIN() {
	if !c.markDone() {
		return
	}
	c.draining.Store(true)
	deadline := time.Now().Add(drainFor)
	c.client.CloseWrite()
	c.client.SetReadDeadline(deadline)
	if up := c.upstream(); up != nil {
		up.CloseWrite()
		up.SetReadDeadline(deadline)
	} else {
		c.client.Close() // before the dial nothing was read: a plain close is a FIN
	}
}

// abort closes both sockets without ceremony: the proxy is shutting down.
func (c *conn) abort() {
	c.markDone()
	c.client.Close()
	if up := c.upstream(); up != nil {
		up.Close()
	}
}

// end finishes a pump: while draining it reads src to its end and throws the bytes away.
func (c *conn) end(src *net.TCPConn) {
	if c.draining.Load() {
		src.SetReadDeadline(time.Now().Add(drainFor))
		io.Copy(io.Discard, src)
	}
}

// serve runs the connection: set-up faults, the dial, then both pumps.
func (c *conn) serve() {
	defer c.n.release(c)
	defer c.handshakeDone()
	c.rw = c.n.newRewriter()
	if !c.setup() {
		return
	}
	d := net.Dialer{Timeout: c.n.p.dialTimeout}
	raw, err := d.DialContext(c.n.p.ctx, "tcp", c.n.upstream)
	if err != nil {
		c.n.p.log.Warn().Str("node", c.n.name).Err(err).Msg("upstream dial failed: closing the client connection")
		c.closeFIN()
		c.end(c.client)
		c.client.Close()
		return
	}
	up := raw.(*net.TCPConn)
	c.mu.Lock()
	if c.isDone() {
		c.mu.Unlock()
		up.Close()
		c.end(c.client)
		c.client.Close()
		return
	}
	c.up = up
	c.mu.Unlock()

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c.pumpDown(up)
	}()
	c.pumpUp(up)
	wg.Wait()
	c.markDone()
	c.client.Close()
	up.Close()
}

// pumpDown forwards server bytes to the client. While the login goes on it reads them into a
// buffer, for the server framer; after it, it splices them (spliceDown) unless a fault shapes
// them, when it copies them through the fault (copyDown), a stretch at a time.
func (c *conn) pumpDown(up *net.TCPConn) {
	var bp *[]byte // the copy buffer, held only while copying
	defer func() {
		if bp != nil {
			bufPool.Put(bp)
		}
	}()
	var fr serverFramer
	for {
		if fr.done() {
			if bp != nil { // the login is over: a splice needs no buffer, a frozen pump holds none
				bufPool.Put(bp)
				bp = nil
			}
			s, ok := c.gate(dirDown, otherWaiter)
			if !ok {
				c.end(up)
				return
			}
			if s == nil && c.rw == nil {
				if !c.drained(dirDown) {
					c.end(up)
					return
				}
				if !c.spliceDown(up) {
					return
				}
				continue
			}
		}
		if bp == nil {
			bp = bufPool.Get().(*[]byte)
		}
		if !c.copyDown(up, *bp, &fr) {
			return
		}
	}
}

// copyDown reads one chunk of server bytes into buf and forwards it. Until the login is done
// the framer sees it first. It reports whether the pump goes on.
func (c *conn) copyDown(up *net.TCPConn, buf []byte, fr *serverFramer) bool {
	nr, rerr := up.Read(buf)
	if nr > 0 {
		c.spoke.Store(true)
		p := buf[:nr]
		greeted := false // p ends the greeting
		if !fr.done() {
			greeting := fr.state == srvGreeting
			fr.scan(p)
			greeted = greeting && fr.state == srvAuth
			if greeting && (fr.state == srvAuth || fr.state == srvCommand) {
				c.mysql.Store(true)
			}
			if fr.state == srvRaw {
				c.notMySQL.Store(true)
				c.n.p.log.Warn().Str("node", c.n.name).Str("reason", fr.reason).
					Msg("not a MySQL server: forwarding plain bytes, command faults cannot act")
			}
		}
		if c.rw != nil {
			p = c.rw.server(p)
		}
		if !c.forwardDown(p) {
			c.end(up)
			return false
		}
		if greeted {
			c.armHandshake() // the client has the whole greeting now
		}
	}
	if rerr != nil {
		if errors.Is(rerr, os.ErrDeadlineExceeded) && !c.isDone() {
			up.SetReadDeadline(time.Time{}) // a kick from setMode: look at the gate again
			return true
		}
		if c.rw != nil && !c.forwardDown(c.rw.flush()) {
			c.end(up)
			return false
		}
		c.passEnd(dirDown, rerr, up, c.client)
		return false
	}
	return true
}

// spliceChunk is the most the zero-copy path moves between two looks at the connection's state.
const spliceChunk = 1 << 20

// spliceDown forwards one stretch of server bytes to the client once the login is done, past
// the gate. The kernel moves them (splice on Linux, through TCPConn.ReadFrom) without copying
// them into the proxy; a mode change interrupts a waiting splice with a read deadline (kick),
// so freeze still acts at once. It reports whether the pump goes on.
func (c *conn) spliceDown(up *net.TCPConn) bool {
	limit, gen, armed := c.byteBudget()
	lr := io.LimitedReader{R: up, N: limit}
	c.beginSplice(dirDown)
	w, err := c.client.ReadFrom(&lr)
	c.endSplice(dirDown)
	if w > 0 {
		c.n.stats.bytesDown.Add(uint64(w))
		if armed {
			c.spent(gen, w)
		}
	}
	switch {
	case err != nil && errors.Is(err, os.ErrDeadlineExceeded) && !c.isDone():
		up.SetReadDeadline(time.Time{})
	case err != nil:
		if c.isDone() {
			c.end(up)
		} else {
			c.reset()
		}
		return false
	case lr.N > 0: // the server closed
		c.passEnd(dirDown, io.EOF, up, c.client)
		return false
	}
	return true
}

// kick interrupts a splice waiting for server bytes so the pump looks at the new state.
func (c *conn) kick() {
	if up := c.upstream(); up != nil {
		up.SetReadDeadline(time.Unix(1, 0))
	}
	if c.rawUp.Load() {
		c.client.SetReadDeadline(time.Unix(1, 0))
	}
}

// forwardDown writes p to the client through the gate and the byte trigger.
func (c *conn) forwardDown(p []byte) bool {
	for len(p) > 0 {
		s, ok := c.gate(dirDown, otherWaiter)
		if !ok {
			return false
		}
		k, gen, fire := c.spendBytes(len(p))
		if k > 0 {
			if err := c.write(s, dirDown, c.client, p[:k]); err != nil {
				c.writeFailed()
				return false
			}
			c.n.stats.bytesDown.Add(uint64(k))
			p = p[k:]
		}
		if fire {
			c.fire(gen)
		}
	}
	return true
}

// forwardUp writes p to the server through the gate.
func (c *conn) forwardUp(up *net.TCPConn, p []byte) bool {
	if len(p) == 0 {
		return true
	}
	s, ok := c.gate(dirUp, clientReader)
	if !ok {
		return false
	}
	if c.rw != nil {
		c.rw.client(p) // before the server can answer it
	}
	if err := c.write(s, dirUp, up, p); err != nil {
		c.writeFailed()
		return false
	}
	c.n.stats.bytesUp.Add(uint64(len(p)))
	return true
}

// write writes p to dst, through s when a fault shapes the direction. Bytes a delay still
// holds in the direction's line go first.
func (c *conn) write(s shapesBytes, d direction, dst *net.TCPConn, p []byte) error {
	if _, queues := s.(queuesBytes); !queues && !c.drained(d) {
		return errConnDone
	}
	if s != nil {
		return s.write(c, d, dst, p)
	}
	_, err := dst.Write(p)
	return err
}

// writeFailed handles a failed write: a peer went away, so the other one is reset.
func (c *conn) writeFailed() {
	if !c.isDone() {
		c.reset()
	}
}

// passEnd handles the end of src, whose bytes go in direction d: a FIN is passed on as a FIN
// (after the bytes a delay still holds, and after the gate, so a frozen connection does not
// close; but a client's FIN on a MySQL connection ends it, watch.go), an error as a RST.
func (c *conn) passEnd(d direction, rerr error, src, dst *net.TCPConn) {
	if c.isDone() {
		c.end(src)
		return
	}
	if errors.Is(rerr, io.EOF) {
		w := otherWaiter
		if d == dirUp {
			w = clientReader // the up pump: src is the client
		}
		if _, ok := c.gate(d, w); ok && c.drained(d) && c.ending(d, w) {
			dst.CloseWrite()
			return
		}
		c.end(src)
		return
	}
	c.reset()
}

// pumpRawUp forwards the client's bytes of a stream that is not MySQL, which has no commands
// to follow: spliced, as the server's are, while no fault shapes or holds them, and copied
// through the fault otherwise.
func (c *conn) pumpRawUp(up *net.TCPConn, buf []byte) {
	c.rawUp.Store(true)
	for {
		s, ok := c.gate(dirUp, clientReader)
		if !ok {
			c.end(c.client)
			return
		}
		if s == nil && c.drained(dirUp) {
			if !c.spliceUp(up) {
				return
			}
			continue
		}
		nr, rerr := c.client.Read(buf)
		if nr > 0 && !c.forwardUp(up, buf[:nr]) {
			c.end(c.client)
			return
		}
		if rerr != nil {
			if errors.Is(rerr, os.ErrDeadlineExceeded) && !c.isDone() {
				c.client.SetReadDeadline(time.Time{}) // a kick from setMode: look at the gate again
				continue
			}
			c.passEnd(dirUp, rerr, c.client, up)
			return
		}
	}
}

// spliceUp forwards one stretch of the client's bytes of a stream that is not MySQL, as
// spliceDown does the server's. It reports whether the pump goes on.
func (c *conn) spliceUp(up *net.TCPConn) bool {
	lr := io.LimitedReader{R: c.client, N: spliceChunk}
	c.beginSplice(dirUp)
	w, err := up.ReadFrom(&lr)
	c.endSplice(dirUp)
	if w > 0 {
		c.n.stats.bytesUp.Add(uint64(w))
	}
	switch {
	case err != nil && errors.Is(err, os.ErrDeadlineExceeded) && !c.isDone():
		c.client.SetReadDeadline(time.Time{})
	case err != nil:
		if c.isDone() {
			c.end(c.client)
		} else {
			c.reset()
		}
		return false
	case lr.N > 0: // the client closed
		c.passEnd(dirUp, io.EOF, c.client, up)
		return false
	}
	return true
}

// ending asks the active fault about the FIN of direction d before it is passed on; false when
// the fault took the connection down instead (onEnd).
func (c *conn) ending(d direction, w waiter) bool {
	f, active, _ := c.state()
	if e, ok := f.(onEnd); ok && active {
		return e.end(c, d, w)
	}
	return true
}

// pumpUp forwards client bytes to the server, asking the fault about each packet as it begins.
func (c *conn) pumpUp(up *net.TCPConn) {
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	var fr clientFramer
	carry := 0        // bytes of an incomplete packet header kept at buf[:carry]
	dropping := false // the packet in progress is swallowed (answered by an injected ERR)
	first := true     // the next packet is the client's first (its login)
	answered := false // the client's first packet arrived whole: the handshake bound is over
	raw := false      // the stream is not MySQL: the client's bytes pass unframed
	for {
		nr, rerr := c.client.Read(buf[carry:])
		p := buf[:carry+nr]
		carry = 0
		if !raw && len(p) > 0 && ((first && !c.spoke.Load()) || c.notMySQL.Load()) {
			// A MySQL client never speaks before the server's greeting, and a server that
			// greets otherwise is not MySQL: either way there are no packets to follow, and
			// a message shorter than a header must not wait for more.
			raw = true
			c.handshakeDone()
		}
		if raw {
			if !c.forwardUp(up, p) {
				c.end(c.client)
				return
			}
			if rerr != nil {
				c.passEnd(dirUp, rerr, c.client, up)
				return
			}
			c.pumpRawUp(up, buf)
			return
		}
		for len(p) > 0 {
			n, start, ok := fr.next(p)
			if !answered && !first && (ok || fr.left == 0) {
				// p[:n] ends the client's first packet: the bound ends before the server
				// can answer it.
				answered = true
				c.handshakeDone()
			}
			if n > 0 {
				if !dropping && !c.forwardUp(up, p[:n]) {
					c.end(c.client)
					return
				}
				p = p[n:]
			}
			if !ok {
				if len(p) > 0 {
					if rerr != nil { // the stream ends inside a header: pass what there is
						if !dropping && !c.forwardUp(up, p) {
							c.end(c.client)
							return
						}
					} else {
						carry = copy(buf, p)
					}
				}
				break
			}
			if start.seq == 0 || first { // a command, or the login: not a continuation
				switch c.onPacket(start, first) {
				case pass:
					dropping = false
				case drop:
					dropping = true
				case stop:
					c.end(c.client)
					return
				}
			}
			first = false
		}
		if rerr != nil {
			c.passEnd(dirUp, rerr, c.client, up)
			return
		}
	}
}
