package property

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/narrate"
)

// onlyCoordinator judges only-coordinator-fences: each expired alarm and each fence at the
// moment it is made, against the managers up at that moment, which it follows from the events;
// and, at the end of each instant at which a manager or the coordinator changed, the engine's
// coordinator against the first node whose manager is up, both read from the engine, and
// against the coordinator the engine last announced. The managers are a group: with fewer
// than a majority of them up (n/2+1 of n; one of one), no view is primary and nobody may
// fence, the coordinator is none. It judges the managers that are up, not partitions or
// witnesses: a trace with those is judged by the group's own properties.
type onlyCoordinator struct {
	judge
	names     []string
	up        []bool // per node: its manager is up, as the events last said
	announced int    // the coordinator the engine last announced; -1 none
}

func newOnlyCoordinator(j judge, tr Trace) *onlyCoordinator {
	p := &onlyCoordinator{judge: j, names: tr.Names, up: make([]bool, tr.nodes()), announced: min(0, tr.nodes()-1)}
	for i := range p.up {
		p.up[i] = true
	}
	return p
}

// renew implements renewer, as newOnlyCoordinator makes one.
func (p *onlyCoordinator) renew(tr Trace) {
	p.judge.renew()
	for i := range p.up {
		p.up[i] = true
	}
	p.announced = min(0, tr.nodes()-1)
}

// Topics implements Subscriber: the managers, the coordinator and the fences.
func (p *onlyCoordinator) Topics() Topics {
	return OnKinds(fence.KindAlarmExpired, fence.KindManagerDown, fence.KindManagerUp, fence.KindCoordinatorChanged,
		fence.KindFailover, fence.KindNoCandidate, fence.KindNodeFailed, fence.KindAlreadyFailed)
}

// Event implements Property: it looks at the coordinator when a manager or the coordinator
// changed.
func (p *onlyCoordinator) Event(ev act.Event) bool {
	switch ev := ev.(type) {
	case *fence.AlarmExpired:
		switch want := quorumFirstUp(p.up); {
		case want < 0:
			p.fail(ev.At, "%s's %s alarm was acted on with no primary view (%s of %d managers up)", p.names[ev.Node], ev.Condition, upCount(p.up), len(p.up))
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
	if quorumFirstUp(p.up) < 0 {
		p.fail(d.When(), "%s with no primary view (%s of %d managers up): %s", d.Kind(), upCount(p.up), len(p.up), narrate.Describe(p.names, d))
	}
}

// quorumFirstUp is the coordinator when the managers up are up[i]: the first of them when
// they are a majority of all (n/2+1; for one node, that one), else -1: no view is primary.
func quorumFirstUp(up []bool) int {
	n := 0
	for _, u := range up {
		if u {
			n++
		}
	}
	if n < len(up)/2+1 {
		return -1
	}
	return fence.FirstUp(up)
}

func upCount(up []bool) string {
	n := 0
	for _, u := range up {
		if u {
			n++
		}
	}
	return fmt.Sprint(n)
}

// Look implements Property.
func (p *onlyCoordinator) Look(at time.Duration, e fence.View) bool {
	up := p.up[:0:0]
	for i := range e.Len() {
		up = append(up, e.Node(i).ManagerUp)
	}
	want := quorumFirstUp(up)
	if got := e.Coordinator(); got != want || p.announced != want {
		p.fail(at, "the coordinator is %s (announced %s), but the first node whose manager is up, with a majority up, is %s", name(p.names, got), name(p.names, p.announced), name(p.names, want))
	}
	return false
}
