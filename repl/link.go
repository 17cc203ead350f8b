package repl

import (
	"time"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/statemap"
)

// Link is how a node's database answers the application's writes. The zero value answers at
// once; Delay > 0 holds each write that long (slow); Dead answers nothing (dead or hung).
type Link struct {
	Dead  bool
	Delay time.Duration
}

// Slow returns the link that holds each write for d.
func Slow(d time.Duration) Link { return Link{Delay: d} }

// takes reports whether a write to a master behind this link commits under the deadline: the
// link is not dead, and its delay is under the deadline (a write held for the deadline or
// longer is given up by its client, and the proxy, which holds commands before the server,
// never delivers it).
func (l Link) takes(deadline time.Duration) bool { return !l.Dead && l.Delay < deadline }

// LinkOf is the fault model for writes: how a write fares on a node's database link under
// fault f. No fault answers at once; slow D holds each write for D; delay D holds it for 2D,
// a round trip on the writer's open connection (its command D late, its answer D late); every
// fault that makes the database dead or hung (refuse, reset, close, freeze, blackhole, stall,
// unreachable, hostdown) and error (every statement fails) commits nothing. A forced probe outcome
// ("probe C") answers when C is ok, and otherwise commits nothing.
func LinkOf(f fault.Fault) Link {
	switch f.Kind {
	case fault.Heal:
		return Link{}
	case fault.Slow:
		return Slow(f.Delay)
	case fault.Delay:
		return Slow(2 * f.Delay)
	case fault.Probe:
		if c, ok := statemap.ParseCondition(f.Condition); ok && c == statemap.OK {
			return Link{}
		}
	}
	return Link{Dead: true}
}
