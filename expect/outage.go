package expect

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/narrate"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/timeline"
)

// client judges the expectations about the workload's writes: the longest outage, the
// unavailable time and the acknowledged writes lost. It reads the replication model's summary,
// which a replay tells at its end (repl.Final); the parser refuses these expectations in a
// timeline without a workload.
type client struct {
	x     timeline.Expect
	start time.Time
	final *repl.Summary
}

// Event implements drive.Observer.
func (c *client) Event(ev act.Event) {
	if f, ok := ev.(*repl.Final); ok {
		s := f.Summary
		c.final = &s
	}
}

// Verdict implements Expectation.
func (c *client) Verdict() (bool, string) {
	s := c.final
	if s == nil {
		return false, "the replay ended with no summary of the workload"
	}
	switch c.x.Kind {
	case timeline.ExpectOutage:
		o := s.Outage
		if o.Length() <= c.x.Max {
			return true, ""
		}
		return false, fmt.Sprintf("the longest outage was %s, from %s to %s", o.Length(), timeline.Clock(c.start, o.From), timeline.Clock(c.start, o.To))
	case timeline.ExpectUnavailable:
		if s.Unavailable <= c.x.Max {
			return true, ""
		}
		return false, fmt.Sprintf("the writes were unavailable for %s (%d failed)", s.Unavailable, s.Failed)
	}
	if s.Lost == c.x.Count || (c.x.AtMost && s.Lost < c.x.Count) {
		return true, ""
	}
	why := fmt.Sprintf("%d acknowledged writes were lost", s.Lost)
	for _, l := range s.Losses {
		if l.Count > 0 {
			why += fmt.Sprintf("; at %s %s", timeline.Clock(c.start, l.At), narrate.LossWords(nil, repl.Loss{Count: l.Count, First: l.First, Last: l.Last, Master: -1}))
		}
	}
	return false, why
}
