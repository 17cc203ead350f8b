package sim

import (
	"time"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/statemap"
)

// Outcome is how a probe started under a fault ends: its condition, and how long after its
// start it finishes.
type Outcome struct {
	Condition statemap.Condition
	Took      time.Duration
}

// Predict is the fault model: the outcome of a probe started while the node's database link
// has fault f, under a checker budget of timeout. A probe that times out takes the whole budget;
// any other finishes at once, or after the delay of slow.
func Predict(f fault.Fault, timeout time.Duration) Outcome {
	at := func(c statemap.Condition) Outcome { return Outcome{Condition: c} }
	late := func(c statemap.Condition) Outcome { return Outcome{Condition: c, Took: timeout} }
	switch f.Kind {
	case fault.Heal:
		return at(statemap.OK)
	case fault.Refuse, fault.Reset, fault.Close:
		return at(statemap.SocketIOError)
	case fault.Freeze:
		return late(statemap.LoginResponseTimeout)
	case fault.Blackhole:
		return late(statemap.SocketConnectTimeout)
	case fault.Stall:
		return late(statemap.QueryResultsTimeout)
	case fault.Slow:
		if f.Delay < timeout {
			return Outcome{Condition: statemap.OK, Took: f.Delay}
		}
		return late(statemap.QueryResultsTimeout)
	case fault.Error:
		switch f.Code {
		case 1040:
			return at(statemap.TooManyConnections)
		case 1045:
			return at(statemap.WrongCredentials)
		}
		return at(statemap.MySQLError)
	case fault.Unreachable:
		return at(statemap.NoRouteToHost)
	case fault.HostDown:
		return at(statemap.HostIsDown)
	case fault.Probe:
		c, ok := statemap.ParseCondition(f.Condition)
		if !ok {
			c = statemap.UntrappedCondition
		}
		if c.IsTimeout() {
			return late(c)
		}
		return at(c)
	}
	return at(statemap.UntrappedCondition)
}
