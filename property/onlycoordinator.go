package property

import (
	"time"

	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/narrate"
)

// onlyCoordinator judges only-coordinator-fences: each expired alarm and each fence at the
// moment it is made, against the managers up at that moment, which it follows from the events;
// and, at the end of each instant at which a manager or the coordinator changed, the engine's
// coordinator against the first node whose manager is up, both read from the engine, and
// against the coordinator the engine last announced.
type onlyCoordinator struct {
	judge
	names     []string
	up        []bool // per node: its manager is up, as the events last said
	announced int    // the coordinator the engine last announced; -1 none
}

func newOnlyCoordinator(j judge, tr Trace) *onlyCoordinator {
	p := &onlyCoordinator{judge: j, names: tr.Names, up: make([]bool, len(tr.Names)), announced: min(0, len(tr.Names)-1)}
	for i := range p.up {
		p.up[i] = true
	}
	return p
}

// Event implements Property: it looks at the coordinator when a manager or the coordinator
// changed.
func (p *onlyCoordinator) Event(ev fence.Event) bool {
	switch ev := ev.(type) {
	case *fence.AlarmExpired:
		switch want := fence.FirstUp(p.up); {
		case want < 0:
			p.fail(ev.At, "%s's %s alarm was acted on with no manager up", p.names[ev.Node], ev.Condition)
		case ev.Coordinator != want:
			p.fail(ev.At, "%s's %s alarm was acted on by %q, but the coordinator is %s", p.names[ev.Node], ev.Condition, p.names[ev.Coordinator], p.names[want])
		}
	case *fence.ManagerDown:
		p.up[ev.Node] = false
		return true
	case *fence.ManagerUp:
		p.up[ev.Node] = true
		return true
	case *fence.CoordinatorChanged:
		p.announced = ev.Coordinator
		return true
	case *fence.Failover:
		p.fenced(ev)
	case *fence.NoCandidate:
		p.fenced(ev)
	case *fence.NodeFailed:
		p.fenced(ev)
	case *fence.AlreadyFailed:
		p.fenced(ev)
	}
	return false
}

// fenced judges fencing decision d: with no manager up, nobody may fence.
func (p *onlyCoordinator) fenced(d fence.Decision) {
	if fence.FirstUp(p.up) < 0 {
		p.fail(d.When(), "%s with no manager up: %s", d.Kind(), narrate.Describe(p.names, d))
	}
}

// Look implements Property.
func (p *onlyCoordinator) Look(at time.Duration, e *fence.Engine) bool {
	want := -1
	for i := range e.Len() {
		if e.Node(i).ManagerUp {
			want = i
			break
		}
	}
	if got := e.Coordinator(); got != want || p.announced != want {
		p.fail(at, "the coordinator is %s (announced %s), but the first node whose manager is up is %s", name(p.names, got), name(p.names, p.announced), name(p.names, want))
	}
	return false
}
