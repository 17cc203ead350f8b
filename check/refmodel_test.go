package check

import (
	"time"

	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/faultmodel"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// refEngine is a small, deliberately plain model of the decision rules in docs/engine.md,
// written apart from package fence to test it differentially: the coordinator is recomputed
// from the managers every time it is needed, nothing is cached, every alarm is counted one tick
// at a time. It must emit exactly the events fence.Engine emits.
//
// With group set (refReplay of a simulated replay, which runs the managers as a group) it follows the group's
// rules as they apply to managers that only stop and start cleanly, every host up on one
// network: the running managers share one view, which is primary when they are a majority of
// the managers (n/2+1; one of one); with none primary nobody fences and the coordinator is none;
// a running manager not primary for 3 ticks in a row (counted at the ticks, before the
// engine's) shuns its own datasource; the operator's recover is refused while there is no
// coordinator.
type refEngine struct {
	m      *statemap.Map
	policy fence.Policy
	now    time.Duration
	nodes  []refNode
	out    []fence.Event // decisions, and in refReplay the fault notes
	group  bool
}

type refNode struct {
	role               fence.Role
	failed, shunned    bool
	failsafe           bool // shunned by its manager's failsafe
	streak             int  // the manager's non-primary ticks in a row (group)
	up, probed, lastOK bool
	state              statemap.State
	alarms             []refAlarm // in the order raised
}

type refAlarm struct {
	cond      statemap.Condition
	count     int
	threshold int
	action    statemap.Action
	waiting   bool
}

func newRefEngine(cfg fence.Config) *refEngine {
	r := &refEngine{m: cfg.Map, policy: cfg.Policy}
	for _, n := range cfg.Nodes {
		r.nodes = append(r.nodes, refNode{role: n.Role, up: true})
	}
	return r
}

// emit records a decision; the caller stamps it with r.now.
func (r *refEngine) emit(ev fence.Decision) {
	r.out = append(r.out, ev)
}

// take returns and forgets the events emitted so far.
func (r *refEngine) take() []fence.Event {
	out := r.out
	r.out = nil
	return out
}

// coordinator is the first node in cluster order whose manager is up, -1 for none; with the
// group, -1 too when fewer than a majority of the managers are up.
func (r *refEngine) coordinator() int {
	up := 0
	for _, n := range r.nodes {
		if n.up {
			up++
		}
	}
	if r.group && up < len(r.nodes)/2+1 {
		return -1
	}
	for i, n := range r.nodes {
		if n.up {
			return i
		}
	}
	return -1
}

// groupTick is the group's tick, before the engine's: each running manager's non-primary
// ticks, and the failsafe shun at the third.
func (r *refEngine) groupTick(at time.Duration) {
	r.now = at
	primary := r.coordinator() >= 0
	for i := range r.nodes {
		n := &r.nodes[i]
		if !n.up {
			continue
		}
		if primary {
			n.streak = 0
			continue
		}
		if n.streak >= 3 {
			continue
		}
		n.streak++
		if n.streak == 3 && !n.failsafe {
			n.failed, n.shunned, n.failsafe = true, true, true
			r.emit(&fence.FailsafeShunned{At: r.now, Node: i, Role: n.role, Ticks: 3})
		}
	}
}

func (r *refEngine) probe(at time.Duration, i int, c statemap.Condition) {
	r.now = at
	n := &r.nodes[i]
	if !n.up {
		return // no manager, no probe
	}
	ok := c == statemap.OK
	rule := r.m.Rule(c)
	to := rule.State
	if ok {
		to = statemap.Online
	}
	if !n.probed || n.state != to {
		r.emit(&fence.StateChanged{At: r.now, Node: i, Condition: c, From: n.state, To: to})
		n.state = to
	}
	n.probed, n.lastOK = true, ok
	if ok {
		// Self-heal: every alarm of the node goes.
		for _, a := range n.alarms {
			r.emit(&fence.AlarmHealed{At: r.now, Node: i, Condition: a.cond, Count: a.count, Threshold: a.threshold})
		}
		n.alarms = nil
		if n.failed && !n.shunned && r.policy == fence.Automatic {
			n.failed = false
			r.emit(&fence.NodeRecovered{At: r.now, Node: i, Role: n.role, By: fence.RecoveredByProbe})
		}
		return
	}
	if r.policy == fence.Maintenance || n.failed {
		return
	}
	for _, a := range n.alarms {
		if a.cond == c {
			return // one alarm per condition
		}
	}
	n.alarms = append(n.alarms, refAlarm{cond: c, threshold: rule.Threshold, action: rule.Action})
	r.emit(&fence.AlarmRaised{At: r.now, Node: i, Condition: c, Threshold: rule.Threshold, Action: rule.Action})
	r.expire(i)
}

func (r *refEngine) tick(at time.Duration) {
	r.now = at
	if r.policy == fence.Maintenance {
		return
	}
	for i := range r.nodes {
		for j := range r.nodes[i].alarms {
			r.nodes[i].alarms[j].count++
		}
		r.expire(i)
	}
}

// ticksToExpiry is how many ticks from now the first alarm expires, counting every alarm that
// is not waiting and has a threshold; none in maintenance, where nothing ticks.
func (r *refEngine) ticksToExpiry() (int64, bool) {
	best := -1
	if r.policy == fence.Maintenance {
		return 0, false
	}
	for _, n := range r.nodes {
		for _, a := range n.alarms {
			if a.waiting || a.threshold < 0 {
				continue
			}
			if left := max(a.threshold-a.count, 1); best < 0 || left < best {
				best = left
			}
		}
	}
	if best < 0 {
		return 0, false
	}
	return int64(best), true
}

// expire acts on node i's alarms that reached their threshold, oldest first.
func (r *refEngine) expire(i int) {
	n := &r.nodes[i]
	var keep []refAlarm
	due := func(a refAlarm) bool { return a.threshold >= 0 && a.count >= a.threshold }
	for len(n.alarms) > 0 {
		a := n.alarms[0]
		n.alarms = n.alarms[1:]
		if !due(a) {
			keep = append(keep, a)
			continue
		}
		c := r.coordinator()
		if c < 0 {
			if !a.waiting {
				a.waiting = true
				r.emit(&fence.ExpiryWaiting{At: r.now, Node: i, Condition: a.cond, Count: a.count, Threshold: a.threshold, Action: a.action})
			}
			keep = append(keep, a)
			continue
		}
		r.emit(&fence.AlarmExpired{At: r.now, Node: i, Condition: a.cond, Count: a.count, Threshold: a.threshold, Action: a.action, Coordinator: c})
		r.act(i, a.cond, a.action)
	}
	n.alarms = keep
}

func (r *refEngine) act(i int, c statemap.Condition, action statemap.Action) {
	n := &r.nodes[i]
	switch {
	case action == statemap.None:
		r.emit(&fence.Logged{At: r.now, Node: i, Condition: c})
	case action == statemap.Alert:
		r.emit(&fence.AlertNotImplemented{At: r.now, Node: i, Condition: c})
	case n.failed:
		r.emit(&fence.AlreadyFailed{At: r.now, Node: i, Condition: c})
	case n.role == fence.Replica:
		n.failed = true
		r.emit(&fence.NodeFailed{At: r.now, Node: i, Condition: c, Role: fence.Replica})
	case r.policy == fence.Manual:
		// The master stays failed until the operator's recover, whatever the policy becomes.
		n.failed, n.shunned = true, true
		r.emit(&fence.NodeFailed{At: r.now, Node: i, Condition: c, Role: fence.Master})
	default:
		n.failed, n.shunned, n.role = true, true, fence.Replica
		var why []fence.Ineligible
		for j := range r.nodes {
			x := &r.nodes[j]
			if j == i {
				continue
			}
			switch {
			case x.role == fence.Replica && !x.failed && x.up && x.lastOK:
				x.role = fence.Master
				r.emit(&fence.Failover{At: r.now, Node: i, Condition: c, To: j})
				return
			case x.failed:
				why = append(why, fence.Ineligible{Node: j, Why: fence.IsFailed})
			case !x.up:
				why = append(why, fence.Ineligible{Node: j, Why: fence.ManagerIsDown})
			case !x.probed:
				why = append(why, fence.Ineligible{Node: j, Why: fence.NeverProbed})
			default:
				why = append(why, fence.Ineligible{Node: j, Why: fence.LastProbeNotOK})
			}
		}
		r.emit(&fence.NoCandidate{At: r.now, Node: i, Condition: c, Ineligible: why})
	}
}

func (r *refEngine) setPolicy(at time.Duration, p fence.Policy) {
	r.now = at
	if p == r.policy {
		return
	}
	r.policy = p
	r.emit(&fence.PolicyChanged{At: r.now, Policy: p})
	if p == fence.Maintenance {
		for i := range r.nodes {
			n := &r.nodes[i]
			for _, a := range n.alarms {
				r.emit(&fence.AlarmCleared{At: r.now, Node: i, Condition: a.cond, Count: a.count, Threshold: a.threshold, By: fence.ClearedByMaintenance})
			}
			n.alarms = nil
		}
	}
}

func (r *refEngine) setManager(at time.Duration, i int, up bool) {
	r.now = at
	if r.nodes[i].up == up {
		return
	}
	before := r.coordinator()
	r.nodes[i].up = up
	r.nodes[i].streak = 0
	if up {
		r.emit(&fence.ManagerUp{At: r.now, Node: i})
	} else {
		r.emit(&fence.ManagerDown{At: r.now, Node: i})
	}
	after := r.coordinator()
	if after >= 0 {
		for j := range r.nodes {
			r.nodes[j].streak = 0
		}
	}
	if after == before {
		return
	}
	anyUp := false
	for _, n := range r.nodes {
		anyUp = anyUp || n.up
	}
	r.emit(&fence.CoordinatorChanged{At: r.now, Coordinator: after, NoPrimary: r.group && after < 0 && anyUp})
	if before < 0 && r.policy != fence.Maintenance {
		for j := range r.nodes {
			r.expire(j)
		}
	}
}

func (r *refEngine) recover(at time.Duration, i int) {
	r.now = at
	n := &r.nodes[i]
	if r.group && r.coordinator() < 0 {
		r.emit(&fence.RecoverRefused{At: r.now, Node: i})
		return
	}
	if !n.failed {
		r.emit(&fence.RecoverIgnored{At: r.now, Node: i})
		return
	}
	// Alarms raised before the node was failed go with the recover.
	for _, a := range n.alarms {
		r.emit(&fence.AlarmCleared{At: r.now, Node: i, Condition: a.cond, Count: a.count, Threshold: a.threshold, By: fence.ClearedByRecover})
	}
	n.alarms = nil
	n.failed, n.shunned, n.failsafe = false, false, false
	for j := range r.nodes {
		if j != i && n.role == fence.Master && r.nodes[j].role == fence.Master {
			n.role = fence.Replica
		}
	}
	r.emit(&fence.NodeRecovered{At: r.now, Node: i, Role: n.role, By: fence.RecoveredByOperator})
}

// refReplay replays tl against the reference engine one second at a time, with no shortcut:
// every second it applies the timeline's events, finishes the probes due, starts the probes
// due, and ticks on every tenth second. Every time in tl must be a whole second. group says
// whether the managers run as a group (sim.Replay; the live runtime does not).
func refReplay(tl *timeline.Timeline, m *statemap.Map, group bool) []fence.Event {
	r := newRefEngine(fence.Config{Nodes: tl.Nodes, Map: m, Policy: tl.Policy})
	r.group = group
	type probe struct {
		fault    fault.Fault
		down     bool
		busy     bool
		finishAt time.Duration
		cond     statemap.Condition
		next     time.Duration
	}
	ps := make([]probe, len(tl.Nodes))
	var log []fence.Event
	ev := 0
	for t := time.Duration(0); t <= tl.End; t += time.Second {
		for ; ev < len(tl.Events) && tl.Events[ev].At == t; ev++ {
			e := tl.Events[ev]
			switch e.Kind {
			case timeline.SetFault:
				ps[e.Node].fault = e.Fault
				r.out = append(r.out, &drive.FaultSet{At: t, Node: e.Node, Fault: e.Fault})
			case timeline.ManagerDown:
				ps[e.Node].down, ps[e.Node].busy = true, false
				r.setManager(t, e.Node, false)
			case timeline.ManagerUp:
				if ps[e.Node].down {
					ps[e.Node].down, ps[e.Node].next = false, t
				}
				r.setManager(t, e.Node, true)
			case timeline.SetPolicy:
				r.setPolicy(t, e.Policy)
			case timeline.Recover:
				r.recover(t, e.Node)
			}
		}
		for i := range ps {
			if p := &ps[i]; p.busy && p.finishAt == t {
				p.busy = false
				r.probe(t, i, p.cond)
			}
		}
		for i := range ps {
			p := &ps[i]
			if p.down || p.busy || p.next > t {
				continue
			}
			o := faultmodel.Predict(p.fault, tl.Timeout)
			p.next = max(t+tl.Interval, t+o.Took)
			if o.Took == 0 {
				r.probe(t, i, o.Condition)
				continue
			}
			p.busy, p.finishAt, p.cond = true, t+o.Took, o.Condition
		}
		if t > 0 && t%statemap.TickInterval == 0 {
			if group {
				r.groupTick(t)
			}
			r.tick(t)
		}
		log = append(log, r.take()...)
	}
	return log
}
