package property

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/narrate"
	"github.com/failsim/failsim/repl"
)

// The client's properties judge the workload's writes (a timeline's "workload", failsim
// check's --workload) on the replication model's summary, which the replay tells at its end
// (repl.Final). A run without a workload tells none: they hold.
const (
	// MaxOutage DUR: no run of time with no acknowledged write lasts longer than DUR.
	MaxOutage = "max-outage"
	// NoAckedWriteLost: no acknowledged write is lost, at a failover or when partition sides
	// merge and one side's copy is overwritten.
	NoAckedWriteLost = "no-acked-write-lost"
)

// NeedsWorkload reports whether property name judges the workload's writes, and so means
// nothing without one.
func NeedsWorkload(name string) bool { return name == MaxOutage || name == NoAckedWriteLost }

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
			p.fail(o.From, "no write was acknowledged for %s, until %s (%d writes failed): longer than %s", o.Length(), narrate.Clock(p.start, o.To), o.Writes, p.max)
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

// clientSpec checks the arguments of a client property.
func clientSpec(name string, args []string) (Spec, error) {
	if name == NoAckedWriteLost {
		if len(args) > 0 {
			return Spec{}, fmt.Errorf("%s takes no argument, got %q", name, args[0])
		}
		return Spec{Name: name}, nil
	}
	if len(args) != 1 {
		return Spec{}, fmt.Errorf("%s takes one duration, such as max-outage=90s", name)
	}
	if d, err := time.ParseDuration(args[0]); err != nil || d < 0 {
		return Spec{}, fmt.Errorf("%s: %q is not a duration such as 90s", name, args[0])
	}
	return Spec{Name: name, Arg: args[0]}, nil
}
