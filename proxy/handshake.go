package proxy

import "github.com/benbjohnson/clock"

// The handshake bound. MySQL's server speaks first, so a client that never sends is one that
// has the server's greeting and never answers it. The bound starts when the proxy has passed
// the greeting's last byte to the client and ends when the client's first packet (its handshake
// response) has arrived whole; from then on the connection never meets it again. A
// connection held by a fault (freeze, blackhole: the greeting or the answer is held) is not
// the client's doing: the bound does not act while the fault holds, and it restarts in full
// at every mode change. A stream that is not MySQL is never bounded: there is no greeting.

// handshake is a connection's handshake bound. Its fields are guarded by conn.mu.
type handshake struct {
	timer *clock.Timer // running from the greeting until the client's first packet; nil before
	done  bool         // the client's first packet arrived, or the connection is over
}

// armHandshake starts the bound: the client has the whole greeting.
func (c *conn) armHandshake() {
	d := c.n.p.handshake
	if d <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hs.done || c.hs.timer != nil {
		return
	}
	c.hs.timer = c.n.p.clock.AfterFunc(d, c.handshakeExpired)
	c.n.stats.handshaking.Add(1)
}

// handshakeDone ends the bound: the client's first packet arrived, or the connection ended.
func (c *conn) handshakeDone() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endHandshakeLocked()
}

// endHandshakeLocked stops the bound for good.
func (c *conn) endHandshakeLocked() {
	if c.hs.done {
		return
	}
	c.hs.done = true
	if c.hs.timer != nil {
		c.hs.timer.Stop()
		c.n.stats.handshaking.Add(-1)
	}
}

// restartHandshakeLocked gives a client still owing its handshake response the full bound
// again, from a mode change.
func (c *conn) restartHandshakeLocked() {
	if c.hs.timer != nil && !c.hs.done {
		c.hs.timer.Reset(c.n.p.handshake)
	}
}

// handshakeExpired closes a connection whose client did not answer the greeting in time,
// unless a fault holds the connection: then the next mode change restarts the bound.
func (c *conn) handshakeExpired() {
	c.mu.Lock()
	if c.hs.done || c.isDone() || c.heldLocked() {
		c.mu.Unlock()
		return
	}
	c.endHandshakeLocked()
	c.mu.Unlock()
	c.n.stats.handshakeTimeouts.Add(1)
	c.n.p.log.Debug().Str("node", c.n.name).Dur("timeout", c.n.p.handshake).
		Msg("the client did not answer the greeting in time: closing")
	// Both sockets close at once, with FIN: the pumps have read everything the peers sent,
	// so there is nothing to drain, and the descriptors are free now.
	c.abort()
}

// heldLocked reports whether a fault holds the connection's bytes, either way, now.
func (c *conn) heldLocked() bool {
	h, ok := c.hooks.(holdsBytes)
	return c.active && ok && (h.holds(dirUp) || h.holds(dirDown))
}
