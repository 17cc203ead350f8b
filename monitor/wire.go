package monitor

import (
	"context"
	"net"
	"sync"
	"time"
)

// wire is the probe's socket as the driver sees it: the dial goes through it (Config.DialFunc),
// it tracks the phase from the traffic, clamps every deadline to the probe's budget and keeps
// the first raw error the driver would otherwise hide behind ErrInvalidConn.
type wire struct {
	deadline time.Time // the end of the probe's budget

	mu      sync.Mutex
	conn    net.Conn
	phase   Phase
	op      Op    // the operation rawErr came from
	rawErr  error // the first socket error, nil if none
	aborted bool  // the guard closed the socket after the budget ran out
	guard   packetGuard
}

// dial is the driver's Config.DialFunc.
func (w *wire) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{Deadline: w.deadline}
	c, err := d.DialContext(ctx, network, addr)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.record(OpDial, err)
		return nil, err
	}
	if w.aborted {
		c.Close()
		return nil, net.ErrClosed
	}
	c.SetDeadline(w.deadline)
	w.conn = c
	w.guard = packetGuard{maxTotal: ProbeMax}
	w.phase = Greeting
	return &wiredConn{Conn: c, w: w}, nil
}

// record keeps the first raw error; w.mu is held.
func (w *wire) record(op Op, err error) {
	if w.rawErr == nil {
		w.op, w.rawErr = op, err
	}
}

// setPhase moves the probe on; it never goes back.
func (w *wire) setPhase(p Phase) {
	w.mu.Lock()
	w.phase = max(w.phase, p)
	w.mu.Unlock()
}

// abort closes the socket: the guard calls it once the budget (and its grace) is spent, so no
// read or write can block past it whatever the driver does.
func (w *wire) abort() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.aborted = true
	if w.conn != nil {
		w.conn.Close()
	}
}

// snapshot returns what the wire knows about the probe's end.
func (w *wire) snapshot() (Phase, Op, error, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.phase, w.op, w.rawErr, w.aborted
}

// wiredConn is the net.Conn handed to the driver.
type wiredConn struct {
	net.Conn
	w *wire
}

func (c *wiredConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.w.mu.Lock()
	gerr := c.w.guard.feed(p[:n])
	c.w.mu.Unlock()
	if gerr != nil {
		// Over a bound (bounded.go): the driver never sees the header that would make it
		// allocate.
		c.Conn.Close()
		n, err = 0, gerr
	}
	if err != nil {
		c.w.mu.Lock()
		c.w.record(OpRead, err)
		c.w.mu.Unlock()
	}
	return n, err
}

func (c *wiredConn) Write(p []byte) (int, error) {
	c.w.mu.Lock()
	if c.w.phase == Greeting {
		// The client's first packet is its login: the greeting has arrived.
		c.w.phase = Login
	}
	c.w.mu.Unlock()
	n, err := c.Conn.Write(p)
	if err != nil {
		c.w.mu.Lock()
		c.w.record(OpWrite, err)
		c.w.mu.Unlock()
	}
	return n, err
}

func (c *wiredConn) clamp(t time.Time) time.Time {
	if t.IsZero() || t.After(c.w.deadline) {
		return c.w.deadline
	}
	return t
}

func (c *wiredConn) SetDeadline(t time.Time) error      { return c.Conn.SetDeadline(c.clamp(t)) }
func (c *wiredConn) SetReadDeadline(t time.Time) error  { return c.Conn.SetReadDeadline(c.clamp(t)) }
func (c *wiredConn) SetWriteDeadline(t time.Time) error { return c.Conn.SetWriteDeadline(c.clamp(t)) }
