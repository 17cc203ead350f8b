package property

import (
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/faultmodel"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
)

// noFalseFailover judges no-false-failover: each fence of the master, at the moment it is
// made, by the fault on the master's link at that moment (after the instant's timeline
// events), or as false on a benign trace.
type noFalseFailover struct {
	judge
	names  []string
	benign bool
	faults []fault.Fault // per node: the fault on its link, from the driver's notes; nil on a benign trace
}

func newNoFalseFailover(j judge, tr Trace) *noFalseFailover {
	p := &noFalseFailover{judge: j, names: tr.Names, benign: tr.Benign}
	if !tr.Benign {
		p.faults = make([]fault.Fault, len(tr.Names))
	}
	return p
}

// renew implements renewer, as newNoFalseFailover makes one.
func (p *noFalseFailover) renew(Trace) {
	p.judge.renew()
	clear(p.faults)
}

// Topics implements Subscriber: the faults on the links and the fences of the master.
func (p *noFalseFailover) Topics() Topics {
	return On(TopicFault) | OnKinds(fence.KindFailover, fence.KindNoCandidate, fence.KindNodeFailed)
}

// Event implements Property: it judges a fence as it is made, and never looks at the engine.
func (p *noFalseFailover) Event(ev act.Event) bool {
	switch ev := ev.(type) {
	case *act.FaultSet:
		if p.faults != nil {
			p.faults[ev.Node] = ev.Fault
		}
	case *fence.Failover:
		p.fenced(ev.At, ev.Kind(), ev.Node, ev.Condition)
	case *fence.NoCandidate:
		p.fenced(ev.At, ev.Kind(), ev.Node, ev.Condition)
	case *fence.NodeFailed:
		if ev.Role == fence.Master {
			p.fenced(ev.At, ev.Kind(), ev.Node, ev.Condition)
		}
	}
	return false
}

// Look implements Property: there is nothing to look at.
func (p *noFalseFailover) Look(time.Duration, fence.View) bool { return false }

// fenced judges master i fenced at time at by condition c, in a decision of kind.
func (p *noFalseFailover) fenced(at time.Duration, kind fence.Kind, i int, c statemap.Condition) {
	switch {
	case p.benign:
		p.fail(at, "master %s was fenced (%s, %s) on a trace with no fatal fault", p.names[i], kind, c)
	case !faultmodel.DatabaseDead(p.faults[i]):
		f := "no fault"
		if p.faults[i].Kind != fault.Heal {
			f = "fault " + p.faults[i].String()
		}
		p.fail(at, "master %s was fenced (%s, %s) while its database was alive (%s)", p.names[i], kind, c, f)
	}
}
