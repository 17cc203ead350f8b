package fence

import "github.com/failsim/failsim/statemap"

// An alarm's count is not stored: it is the number of ticks since it was raised, e.ticks-base,
// so that ticks at which nothing expires need not visit it (Tick.Count).
type alarm struct {
	cond      statemap.Condition
	base      int64 // the engine's tick count when it was raised
	threshold int
	action    statemap.Action
	waiting   bool // expired with no coordinator; ExpiryWaiting already said
}

// noExpiry is the tick number of an alarm that never expires by ticking.
const noExpiry = int64(1<<63 - 1)

// expiresAt is the tick number at which the alarm expires: its base plus its threshold; never
// for threshold -1 or an alarm already waiting for a coordinator.
func (a *alarm) expiresAt() int64 {
	if a.threshold < 0 || a.waiting {
		return noExpiry
	}
	return a.base + int64(a.threshold)
}

// count is the alarm's count of ticks.
func (e *Engine) count(a *alarm) int { return int(e.ticks - a.base) }

// due reports whether an alarm has reached its threshold.
func (e *Engine) due(a *alarm) bool { return a.threshold >= 0 && e.ticks-a.base >= int64(a.threshold) }

// dropAlarms deletes every alarm of node n.
func (e *Engine) dropAlarms(n *node) {
	if len(n.alarms) > 0 {
		n.alarms = n.alarms[:0]
		e.stale = true
	}
}

// clearAlarms deletes node i's alarms, saying why.
func (e *Engine) clearAlarms(i int, by ClearCause) {
	n := &e.nodes[i]
	for j := range n.alarms {
		a := &n.alarms[j]
		emit(e, &e.dec.alarmCleared, AlarmCleared{At: e.now, Node: i, Condition: a.cond, Count: e.count(a), Threshold: a.threshold, By: by})
	}
	e.dropAlarms(n)
}

// TicksToExpiry returns how many ticks from now the first alarm expires: 1 means at the next
// tick. ok is false when no alarm can expire by ticking: there is none, each never expires
// (threshold -1) or already waits for a coordinator, or the cluster is in maintenance. A
// driver may skip the n-1 ticks before that one (Tick.Count).
func (e *Engine) TicksToExpiry() (n int64, ok bool) {
	if e.stale {
		e.stale = false
		e.expiry = noExpiry
		for i := range e.nodes {
			for j := range e.nodes[i].alarms {
				e.expiry = min(e.expiry, e.nodes[i].alarms[j].expiresAt())
			}
		}
	}
	if e.expiry == noExpiry || e.policy == Maintenance {
		return 0, false
	}
	return max(e.expiry-e.ticks, 1), true
}

// expireDue expires node i's due alarms, in the order they were raised. With no coordinator
// for the node (coordinatorOf) they wait, still counted, for one to appear.
func (e *Engine) expireDue(i int) {
	n := &e.nodes[i]
	coord := e.coordinatorOf(i)
	for j := 0; j < len(n.alarms); {
		a := n.alarms[j]
		if !e.due(&a) {
			j++
			continue
		}
		if coord < 0 {
			if !a.waiting {
				n.alarms[j].waiting = true
				e.stale = true
				emit(e, &e.dec.expiryWaiting, ExpiryWaiting{At: e.now, Node: i, Condition: a.cond, Count: e.count(&a), Threshold: a.threshold, Action: a.action})
			}
			j++
			continue
		}
		n.alarms = append(n.alarms[:j], n.alarms[j+1:]...)
		e.stale = true
		emit(e, &e.dec.alarmExpired, AlarmExpired{At: e.now, Node: i, Condition: a.cond, Count: e.count(&a), Threshold: a.threshold, Action: a.action, Coordinator: coord})
		e.act(i, a, coord)
	}
}
