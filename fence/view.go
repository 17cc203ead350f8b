package fence

import (
	"time"

	"github.com/failsim/failsim/statemap"
)

// NodeView is what the engine knows of one node at the current instant.
type NodeView struct {
	Name      string
	Role      Role // master or replica; a failed node keeps the role it had
	Failed    bool // out of service
	Shunned   bool // a failed master (failed over, or failed under manual policy), or shunned by failsafe: never recovered automatically
	Failsafe  bool // shunned by its own manager's failsafe (FAILSAFE-SHUN)
	ManagerUp bool
	State     statemap.State // the datasource state its last probe showed; unknown before any
	LastOK    bool           // its last finished probe was ok
}

// RoleName is the role as a timeline's expectations name it: master, replica or failed.
func (v NodeView) RoleName() string {
	if v.Failed {
		return "failed"
	}
	return v.Role.String()
}

// AlarmView is one active alarm.
type AlarmView struct {
	Condition statemap.Condition
	Count     int // ticks so far
	Threshold int
	Action    statemap.Action
}

// Len returns the number of nodes.
func (e *Engine) Len() int { return len(e.nodes) }

// Node returns the view of node i.
func (e *Engine) Node(i int) NodeView {
	n, m := &e.nodes[i], e.copies[e.copyOf[i]][i]
	return NodeView{Name: n.name, Role: m.Role, Failed: m.Failed, Shunned: m.Shunned, Failsafe: m.Failsafe, ManagerUp: e.up[i], State: n.state, LastOK: n.lastOK}
}

// Alarms appends node i's active alarms, oldest first, to dst and returns it.
func (e *Engine) Alarms(dst []AlarmView, i int) []AlarmView {
	for j := range e.nodes[i].alarms {
		a := &e.nodes[i].alarms[j]
		dst = append(dst, AlarmView{Condition: a.cond, Count: e.count(a), Threshold: a.threshold, Action: a.action})
	}
	return dst
}

// AlarmCount returns the number of node i's active alarms: len(Alarms(nil, i)) without the
// copy.
func (e *Engine) AlarmCount(i int) int { return len(e.nodes[i].alarms) }

// Policy returns the cluster's policy.
func (e *Engine) Policy() Policy { return e.policy }

// Coordinator returns the index of the coordinator, or -1 when there is none (no manager is
// up, under the default rule).
func (e *Engine) Coordinator() int { return e.coordinator }

// Master returns the index of the master in service, or -1 when there is none: the first node,
// in cluster order, that is master and not failed in its own side's copy of the cluster's state
// (there is one copy until the group forks it).
func (e *Engine) Master() int {
	if len(e.copies) == 1 {
		return e.copies[0].Master()
	}
	for i := range e.nodes {
		if m := e.copies[e.copyOf[i]][i]; m.Role == Master && !m.Failed {
			return i
		}
	}
	return -1
}

// Cluster returns a copy of the cluster's state of record as it stands: each node's role,
// failed and shunned, each from its own side's copy. The copy is the caller's; it allocates.
func (e *Engine) Cluster() Cluster {
	out := make(Cluster, len(e.nodes))
	for i := range out {
		out[i] = e.copies[e.copyOf[i]][i]
	}
	return out
}

// Steady reports whether a probe of node i ending in c, finishing at any time up to until,
// would change nothing, provided no other Step than a Tick is made meanwhile: the node
// already shows what c shows, and c is ok with no alarm to heal and nothing to recover, or c is
// bad and there is nothing to raise (its alarm is active, the node is failed, or the cluster is
// in maintenance). until is the last instant that holds: the tick at which c's active alarm
// expires (probes count before the tick at an instant), or statemap.Never. It assumes the timekeeper
// ticks at every multiple of TickInterval, whether the driver makes those ticks one by one or
// accounts for them with Tick.Count. A driver may skip such probes, keeping their schedule.
func (e *Engine) Steady(i int, c statemap.Condition) (steady bool, until time.Duration) {
	n, m := &e.nodes[i], &e.copies[e.copyOf[i]][i]
	ok := c == statemap.OK
	to := statemap.Online
	if !ok {
		to = e.rules.Rule(c).State
	}
	if !e.up[i] || !n.probed || n.state != to || n.lastOK != ok {
		return false, 0
	}
	if ok {
		if len(n.alarms) > 0 || (m.Failed && !m.Shunned && e.policy == Automatic) {
			return false, 0
		}
		return true, statemap.Never
	}
	if e.policy == Maintenance || m.Failed {
		return true, statemap.Never
	}
	for j := range n.alarms {
		a := &n.alarms[j]
		if a.cond != c {
			continue
		}
		if a.threshold < 0 || e.due(a) {
			return true, statemap.Never // never expires, or waits for a coordinator (a SetManager step)
		}
		// At an instant that is a tick, probes count before it: the next tick may be now.
		return true, statemap.NthTick(max(e.lastTick, e.now-1), int64(a.threshold-e.count(a)))
	}
	return false, 0
}

// LastOK reports whether node i's last finished probe was ok: NodeView.LastOK, without the copy.
func (e *Engine) LastOK(i int) bool { return e.nodes[i].lastOK }
