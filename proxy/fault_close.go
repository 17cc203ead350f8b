package proxy

import "github.com/failsim/failsim/fault"

// closeFault closes connections with FIN both ways: new ones before any byte, open ones at
// once, or, with a probability p, each set-up and each command with chance p. The connection
// then discards what its peers still send until they close too (conn.closeFIN).
type closeFault struct {
	p float64 // Mode.P: 0 for always
}

func (closeFault) kind() fault.Kind { return fault.Close }

func (closeFault) chance() {}

// connect closes a new connection, or draws once for it.
func (f closeFault) connect(c *conn) verdict {
	if f.p > 0 && !c.roll(f.p) {
		return pass
	}
	c.injected(fault.Close)
	c.closeFIN()
	return stop
}

// command closes the connection at a command, or draws for it.
func (f closeFault) command(c *conn, _ packetStart) verdict {
	return f.connect(c)
}

// start closes an open connection, unless the mode is a chance: then only set-ups and
// commands draw.
func (f closeFault) start(c *conn, _ bool) {
	if f.p > 0 {
		return
	}
	c.injected(fault.Close)
	c.closeFIN()
}
