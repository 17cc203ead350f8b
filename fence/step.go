package fence

import (
	"fmt"

	"github.com/failsim/failsim/statemap"
)

// One step function per Input; Step has advanced the time.

// stepProbe is ProbeDone: node i's probe ended in c.
func (e *Engine) stepProbe(i int, c statemap.Condition) {
	n := &e.nodes[i]
	if !e.up[i] {
		return
	}
	rule := e.rules.Rule(c)
	to := rule.State
	if c == statemap.OK {
		to = statemap.Online
	}
	if to != n.state || !n.probed {
		emit(e, &e.dec.stateChanged, StateChanged{At: e.now, Node: i, Condition: c, From: n.state, To: to})
		n.state = to
	}
	n.probed = true
	n.lastOK = c == statemap.OK
	m := &e.copies[e.copyOf[i]][i]
	if c == statemap.OK {
		for j := range n.alarms {
			a := &n.alarms[j]
			emit(e, &e.dec.alarmHealed, AlarmHealed{At: e.now, Node: i, Condition: a.cond, Count: e.count(a), Threshold: a.threshold})
		}
		e.dropAlarms(n)
		if m.Failed && !m.Shunned && e.policy == Automatic {
			m.Failed = false
			emit(e, &e.dec.nodeRecovered, NodeRecovered{At: e.now, Node: i, Role: m.Role, By: RecoveredByProbe})
		}
		return
	}
	if e.policy == Maintenance || m.Failed {
		// In maintenance nothing is detected; a failed node has nothing left to fence.
		return
	}
	for _, a := range n.alarms {
		if a.cond == c {
			return
		}
	}
	n.alarms = append(n.alarms, alarm{cond: c, base: e.ticks, threshold: rule.Threshold, action: rule.Action})
	if x := n.alarms[len(n.alarms)-1].expiresAt(); x < e.expiry {
		e.expiry = x
	}
	emit(e, &e.dec.alarmRaised, AlarmRaised{At: e.now, Node: i, Condition: c, Threshold: rule.Threshold, Action: rule.Action})
	if rule.Threshold == 0 {
		e.expireDue(i)
	}
}

// stepTick is Tick: count ticks (>= 1), the last of them now.
func (e *Engine) stepTick(count int64) {
	e.lastTick = e.now
	if e.policy == Maintenance {
		// Nothing is ticked, and there is no alarm to count: entering maintenance deleted them.
		e.ticks += count
		return
	}
	if left, ok := e.TicksToExpiry(); ok && count > left {
		panic(fmt.Sprintf("fence: %d ticks at once skip one at which an alarm expires (%d ticks away)", count, left))
	}
	e.ticks += count
	if e.ticks < e.expiry {
		return
	}
	for i := range e.nodes {
		if len(e.nodes[i].alarms) > 0 {
			e.expireDue(i)
		}
	}
	e.stale = true
}

// stepPolicy is SetPolicy.
func (e *Engine) stepPolicy(p Policy) {
	if p == e.policy {
		return
	}
	e.policy = p
	emit(e, &e.dec.policyChanged, PolicyChanged{At: e.now, Policy: p})
	if p != Maintenance {
		return
	}
	for i := range e.nodes {
		e.clearAlarms(i, ClearedByMaintenance)
	}
}

// stepManager is SetManager.
func (e *Engine) stepManager(i int, up bool) {
	if e.up[i] == up {
		return
	}
	e.up[i] = up
	if up {
		emit(e, &e.dec.managerUp, ManagerUp{At: e.now, Node: i})
	} else {
		emit(e, &e.dec.managerDown, ManagerDown{At: e.now, Node: i})
	}
	if e.coords != nil {
		// The group says who coordinates (SetCoordinators). A node whose manager went down is
		// the cluster's coordinator's to fence: its alarms waiting for a coordinator expire now
		// if there is one, as when a coordinator appears.
		if !up && e.coordinator >= 0 && e.up[e.coordinator] && e.policy != Maintenance {
			e.expireDue(i)
		}
		return
	}
	c := e.chooseCoordinator()
	if c == e.coordinator {
		return
	}
	was := e.coordinator
	e.coordinator = c
	emit(e, &e.dec.coordinatorChanged, CoordinatorChanged{At: e.now, Coordinator: c})
	if was < 0 && c >= 0 && e.policy != Maintenance {
		for j := range e.nodes {
			e.expireDue(j)
		}
	}
}

// stepRecover is Recover.
func (e *Engine) stepRecover(i int) {
	cl := e.copies[e.copyOf[i]]
	if e.coords != nil && e.coordinatorOf(i) < 0 {
		emit(e, &e.dec.recoverRefused, RecoverRefused{At: e.now, Node: i})
		return
	}
	if e.coords != nil && !e.up[i] {
		if cl[i].Failsafe {
			// Its own manager shunned it; with that manager down it is in no primary view.
			emit(e, &e.dec.recoverRefused, RecoverRefused{At: e.now, Node: i, ManagerDown: true})
			return
		}
		// The recover is the coordinator's act, as fencing is: with the node's manager down,
		// in the copy of the cluster's coordinator, which fences it.
		cl = e.copies[e.copyOf[e.coordinatorOf(i)]]
	}
	m := &cl[i]
	if !m.Failed {
		emit(e, &e.dec.recoverIgnored, RecoverIgnored{At: e.now, Node: i})
		return
	}
	e.clearAlarms(i, ClearedByRecover)
	m.Failed, m.Shunned, m.Failsafe = false, false, false
	if m.Role == Master {
		for j := range cl {
			if j != i && cl[j].Role == Master {
				m.Role = Replica
			}
		}
	}
	emit(e, &e.dec.nodeRecovered, NodeRecovered{At: e.now, Node: i, Role: m.Role, By: RecoveredByOperator})
}
