package property

import (
	"slices"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/faultmodel"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// detectsDeath judges detects-death-within: it watches each fault put on a node's link that
// the statemap fences, from the moment it is put there, and reports one that is still on the
// master in service, with the gates of fencing open, at its deadline. A watch ends without a
// verdict when the fault changes, the node is fenced, or a gate closes: the policy leaves
// automatic, the node's manager goes down, no coordinator is left, or the node is not (or no
// longer) the master in service.
type detectsDeath struct {
	judge
	names   []string
	within  time.Duration // the fixed deadline after a fault's start; 0: the statemap's promise
	lag     time.Duration // the checker's detection latency: max(interval, timeout)
	timeout time.Duration
	m       *statemap.Map
	auto    bool // the policy is automatic, as the events last said
	watch   []deathWatch
}

// deathWatch is one fault on a node, watched until its deadline.
type deathWatch struct {
	node     int
	since    time.Duration
	f        fault.Fault
	cond     statemap.Condition
	deadline time.Duration
}

func newDetectsDeath(j judge, tr Trace, within time.Duration) *detectsDeath {
	m := tr.Map
	if m == nil {
		m = statemap.Default()
	}
	return &detectsDeath{judge: j, names: tr.Names, within: within, lag: max(tr.Interval, tr.Timeout),
		timeout: tr.Timeout, m: m, auto: tr.Policy == fence.Automatic}
}

// renew implements renewer, as newDetectsDeath makes one.
func (p *detectsDeath) renew(tr Trace) {
	p.judge.renew()
	p.auto = tr.Policy == fence.Automatic
	p.watch = p.watch[:0]
}

// idleTopics implements watcher: while it watches no fault, only a fault put on a link and a
// change of policy change anything, and it asks to look whenever it watches one (Event, Look).
func (p *detectsDeath) idleTopics() Topics {
	return On(TopicFault) | OnKinds(fence.KindPolicyChanged)
}

// Event implements Property. A watch whose deadline passed before the event is judged first:
// observers are told of no instant at which nothing was decided, so the first word of a late
// fence may be the fence itself; until then the gates stayed as the last instant saw them. It
// looks at the engine while it watches a fault.
func (p *detectsDeath) Event(ev act.Event) bool {
	if len(p.watch) > 0 {
		p.overdue(ev.When())
	}
	switch ev := ev.(type) {
	case *act.FaultSet:
		p.unwatch(ev.Node)
		if ev.Fault.Kind != fault.Heal && p.auto {
			p.watchFault(ev.At, ev.Node, ev.Fault)
		}
	case *fence.PolicyChanged:
		p.auto = ev.Policy == fence.Automatic
		if !p.auto {
			p.watch = p.watch[:0]
		}
	case *fence.ManagerDown:
		p.unwatch(ev.Node)
	case *fence.CoordinatorChanged:
		if ev.Coordinator < 0 {
			p.watch = p.watch[:0]
		}
	case *fence.Failover:
		p.unwatch(ev.Node)
	case *fence.NoCandidate:
		p.unwatch(ev.Node)
	case *fence.NodeFailed:
		p.unwatch(ev.Node)
	}
	return len(p.watch) > 0
}

// watchFault starts watching fault f put on node i's link at time at, if the statemap fences
// the condition its probes end in.
func (p *detectsDeath) watchFault(at time.Duration, i int, f fault.Fault) {
	o := faultmodel.Predict(f, p.timeout)
	r := p.m.Rule(o.Condition)
	if !r.Fatal() {
		return
	}
	deadline := at + p.within
	if p.within == 0 {
		deadline = at + p.promise(o.Took, r.Threshold)
	}
	p.watch = append(p.watch, deathWatch{node: i, since: at, f: f, cond: o.Condition, deadline: deadline})
}

// promise is how long after a fault starts the statemap promises to fence it: the first bad
// probe starts within max(interval, timeout) and takes took; its alarm expires at the
// threshold-th tick after it is raised.
func (p *detectsDeath) promise(took time.Duration, threshold int) time.Duration {
	return p.lag + took + time.Duration(threshold)*statemap.TickInterval
}

// Look implements Property: a watched fault on a node that is not the master in service, whose
// manager is down, or with no coordinator, is dropped; one past its deadline is a violation. It
// looks again while a fault is watched.
func (p *detectsDeath) Look(at time.Duration, e fence.View) bool {
	if len(p.watch) == 0 {
		return false
	}
	coordUp := e.Coordinator() >= 0
	p.watch = slices.DeleteFunc(p.watch, func(d deathWatch) bool {
		v := e.Node(d.node)
		if v.Role != fence.Master || v.Failed || !v.ManagerUp || !coordUp {
			return true
		}
		if at >= d.deadline {
			p.late(d)
			return true
		}
		return false
	})
	return len(p.watch) > 0
}

// overdue judges the watched faults whose deadline passed before at.
func (p *detectsDeath) overdue(at time.Duration) {
	if !slices.ContainsFunc(p.watch, func(d deathWatch) bool { return d.deadline < at }) {
		return // none is overdue: nothing to delete
	}
	p.watch = slices.DeleteFunc(p.watch, func(d deathWatch) bool {
		if d.deadline >= at {
			return false
		}
		p.late(d)
		return true
	})
}

// late reports a watched fault not fenced by its deadline, as found at the deadline.
func (p *detectsDeath) late(d deathWatch) {
	p.fail(d.deadline, "master %s has had fault %s (%s) since %s and was not fenced by %s, %s after it",
		p.names[d.node], d.f, d.cond, timeline.Clock(p.start, d.since), timeline.Clock(p.start, d.deadline), d.deadline-d.since)
}

// unwatch stops watching node i's fault.
func (p *detectsDeath) unwatch(i int) {
	if len(p.watch) > 0 {
		p.watch = slices.DeleteFunc(p.watch, func(d deathWatch) bool { return d.node == i })
	}
}
