package proxy

import "github.com/failsim/failsim/fault"

// slowClose is toxiproxy's slow_close (toxics/slow_close.go): its stream's FIN is held for
// Delay before it is passed on; every byte before it passes at once.
type slowClose struct {
	f fault.Fault
}

func (slowClose) kind() fault.Kind { return fault.SlowClose }

func (s slowClose) end(c *conn, d direction, w waiter) bool {
	if d != dirOf(s.f.Stream) {
		return true
	}
	c.injected(fault.SlowClose)
	return c.sleep(s.f.Delay, w)
}
