package expect

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/timeline"
)

// noFailover holds when no failover happens: no replica is promoted. A master failed with no
// replica eligible is no failover.
type noFailover struct {
	start time.Time
	names []string
	first *fence.Failover // the first failover; nil for none
}

// Event implements drive.Observer.
func (x *noFailover) Event(ev act.Event) {
	if fo, ok := ev.(*fence.Failover); ok && x.first == nil {
		c := *fo
		x.first = &c
	}
}

// Verdict implements Expectation.
func (x *noFailover) Verdict() (bool, string) {
	if x.first == nil {
		return true, ""
	}
	ev := x.first
	return false, fmt.Sprintf("%s failed over to %s at %s (%s)", x.names[ev.Node], x.names[ev.To], timeline.Clock(x.start, ev.At), ev.Condition)
}
