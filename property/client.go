package property

import (
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/narrate"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/timeline"
)

// maxOutage is MaxOutage.
type maxOutage struct {
	judge
	max time.Duration
}

// Topics implements Subscriber: the replication model's final summary.
func (p *maxOutage) Topics() Topics {
	return On(TopicFinal)
}

// Event implements Property.
func (p *maxOutage) Event(ev act.Event) bool {
	if f, ok := ev.(*repl.Final); ok {
		if o := f.Summary.Outage; o.Length() > p.max {
			p.fail(o.From, "no write was acknowledged for %s, until %s (%d writes failed): longer than %s", o.Length(), timeline.Clock(p.start, o.To), o.Writes, p.max)
		}
	}
	return false
}

// Look implements Property.
func (p *maxOutage) Look(time.Duration, fence.View) bool { return false }

// noAckedWriteLost is NoAckedWriteLost.
type noAckedWriteLost struct {
	judge
	names []string
}

// Topics implements Subscriber: the replication model's final summary.
func (p *noAckedWriteLost) Topics() Topics {
	return On(TopicFinal)
}

// Event implements Property.
func (p *noAckedWriteLost) Event(ev act.Event) bool {
	if f, ok := ev.(*repl.Final); ok {
		for _, l := range f.Summary.Losses {
			if l.Count > 0 {
				if l.Cause == repl.LostAtMerge {
					p.fail(l.At, "%s when the sides merged and %s's copy was kept", narrate.LossWords(p.names, l), name(p.names, l.Keeper))
					break
				}
				p.fail(l.At, "%s when %s was promoted", narrate.LossWords(p.names, l), name(p.names, l.Keeper))
				break
			}
		}
	}
	return false
}

// Look implements Property.
func (p *noAckedWriteLost) Look(time.Duration, fence.View) bool { return false }
