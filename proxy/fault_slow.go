package proxy

import (
	"time"

	"github.com/failsim/failsim/fault"
)

// slow holds each command delay on the proxy's clock before it reaches the server. The login
// is not delayed and COM_QUIT passes undelayed. With a probability p each command, and each
// set-up (the dial waits), is delayed with chance p.
type slow struct {
	delay time.Duration // fault.Fault.Delay
	p     float64       // Mode.P: 0 for always
}

func (slow) kind() fault.Kind { return fault.Slow }

func (slow) chance() {}

// connect delays the dial, only when the mode is a chance and the draw says so.
func (s slow) connect(c *conn) verdict {
	if s.p > 0 && c.roll(s.p) {
		c.injected(fault.Slow)
		if !c.sleep(s.delay, clientReader) {
			return stop
		}
	}
	return pass
}

// command delays a command, or draws for it.
func (s slow) command(c *conn, st packetStart) verdict {
	if st.cmd == comQuit || (s.p > 0 && !c.roll(s.p)) {
		return pass
	}
	c.injected(fault.Slow)
	if !c.sleep(s.delay, clientReader) {
		return stop
	}
	return pass
}
