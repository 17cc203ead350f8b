package proxy

import "github.com/failsim/failsim/fault"

// reset tears connections down with RST (SO_LINGER 0): new ones before any byte, open ones at
// once, or, with a probability p, each set-up and each command with chance p.
type reset struct {
	p float64 // Mode.P: 0 for always
}

func (reset) kind() fault.Kind { return fault.Reset }

func (reset) chance() {}

// connect resets a new connection, or draws once for it.
func (r reset) connect(c *conn) verdict {
	if r.p > 0 && !c.roll(r.p) {
		return pass
	}
	c.injected(fault.Reset)
	c.reset()
	return stop
}

// command resets the connection at a command, or draws for it.
func (r reset) command(c *conn, _ packetStart) verdict {
	return r.connect(c)
}

// start resets an open connection, unless the mode is a chance: then only set-ups and
// commands draw.
func (r reset) start(c *conn, _ bool) {
	if r.p > 0 {
		return
	}
	c.injected(fault.Reset)
	c.reset()
}
