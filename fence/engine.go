// Package fence is the decision core of the Tungsten Manager as failsim models it: per-node
// alarms raised by bad probes, the 10-second timekeeper that ages them against the statemap's
// thresholds, self-heal on an ok probe, maintenance gating, and coordinator-only fencing with
// role-aware actions (a replica is failed, a master is failed over).
//
// The Engine is a pure state machine. It does no I/O, reads no clock and starts no goroutine:
// the caller tells it what happened and when (Probe, Tick, SetPolicy, SetManager, Recover), and
// takes the decisions it made with Ready. The simulator drives it in virtual time, the live
// runtime with a real clock; the rules are the same. A tick at which no alarm can expire
// decides nothing: a driver may leave such ticks out and account for them with the next one
// (Ticks, TicksToExpiry), which is what makes a replay cost what changes, not the span.
//
// Impossible calls (a node index out of range, time going backwards) panic: they are bugs in the
// driver, not bad input.
package fence

import (
	"fmt"
	"strings"
	"time"

	"github.com/failsim/failsim/statemap"
)

// NodeConfig is one node of the cluster as configured.
type NodeConfig struct {
	Name string
	Role Role
}

// Config is what an Engine starts from.
type Config struct {
	Nodes  []NodeConfig // in the cluster line's order: it decides the coordinator and the failover candidate
	Map    *statemap.Map
	Policy Policy
}

// Engine is the decision state of one cluster. Its zero value is not usable: call New.
type Engine struct {
	nodes       []node
	rules       *statemap.Map
	policy      Policy
	coordinator int // index of the coordinator, -1 when no manager is up
	now         time.Duration
	lastTick    time.Duration // the last tick's time; 0 before any
	ticks       int64         // timekeeper ticks so far, skipped ones included
	expiry      int64         // the tick number at which the first alarm expires; valid unless stale
	stale       bool          // an alarm went since expiry was computed: compute it anew
	out         []Event
}

type node struct {
	name      string
	role      Role
	failed    bool
	shunned   bool // a failed master: never recovered automatically
	managerUp bool
	state     statemap.State
	probed    bool
	lastOK    bool
	alarms    []alarm
}

// An alarm's count is not stored: it is the number of ticks since it was raised, e.ticks-base,
// so that ticks at which nothing expires need not visit it (Ticks).
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

// New returns an engine for cfg. Every manager starts up; every node starts in state unknown
// until its first probe. cfg.Nodes must hold at most one master.
func New(cfg Config) *Engine {
	e := &Engine{rules: cfg.Map, policy: cfg.Policy, coordinator: -1, expiry: noExpiry}
	masters := 0
	e.nodes = make([]node, 0, len(cfg.Nodes))
	room := make([]alarm, 4*len(cfg.Nodes)) // four alarms a node before any grows on its own
	for i, n := range cfg.Nodes {
		if n.Role == Master {
			masters++
		}
		e.nodes = append(e.nodes, node{name: n.Name, role: n.Role, managerUp: true, alarms: room[4*i : 4*i : 4*i+4]})
	}
	if masters > 1 {
		panic("fence: more than one master configured")
	}
	if len(e.nodes) > 0 {
		e.coordinator = 0
	}
	return e
}

// Ready returns the events decided since the last call, oldest first. The slice is reused by
// the next call into the engine: consume or copy it before then.
func (e *Engine) Ready() []Event {
	out := e.out
	e.out = e.out[:0]
	return out
}

func (e *Engine) emit(ev Event) {
	ev.At = e.now
	e.out = append(e.out, ev)
}

func (e *Engine) advance(at time.Duration) {
	if at < e.now {
		panic(fmt.Sprintf("fence: time went backwards: %v after %v", at, e.now))
	}
	e.now = at
}

// Probe reports a finished probe of node i at time at that ended in condition c. A node whose
// manager is down runs no probes, so such a report is ignored.
func (e *Engine) Probe(at time.Duration, i int, c statemap.Condition) {
	e.advance(at)
	n := &e.nodes[i]
	if !n.managerUp {
		return
	}
	rule := e.rules.Rule(c)
	to := rule.State
	if c == statemap.OK {
		to = statemap.Online
	}
	if to != n.state || !n.probed {
		e.emit(Event{Kind: StateChanged, Node: n.name, Condition: c, From: n.state, To: to})
		n.state = to
	}
	n.probed = true
	n.lastOK = c == statemap.OK
	if c == statemap.OK {
		for j := range n.alarms {
			a := &n.alarms[j]
			e.emit(Event{Kind: AlarmHealed, Node: n.name, Condition: a.cond, Count: e.count(a), Threshold: a.threshold})
		}
		e.dropAlarms(n)
		if n.failed && !n.shunned && e.policy == Automatic {
			n.failed = false
			e.emit(Event{Kind: NodeRecovered, Node: n.name, Role: n.role, Detail: "ok probe"})
		}
		return
	}
	if e.policy == Maintenance || n.failed {
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
	e.emit(Event{Kind: AlarmRaised, Node: n.name, Condition: c, Threshold: rule.Threshold, Action: rule.Action})
	if rule.Threshold == 0 {
		e.expireDue(i)
	}
}

// dropAlarms deletes every alarm of node n.
func (e *Engine) dropAlarms(n *node) {
	if len(n.alarms) > 0 {
		n.alarms = n.alarms[:0]
		e.stale = true
	}
}

// Tick is the timekeeper at time at: every active alarm's count goes up by one, and an alarm
// whose count reaches its threshold expires. In maintenance nothing is ticked. Tick(at) is
// Ticks(at, 1).
func (e *Engine) Tick(at time.Duration) { e.Ticks(at, 1) }

// Ticks is n timekeeper ticks (n >= 1), the last of them at time at: every active alarm's count
// goes up by n, and an alarm whose count reaches its threshold at the last one expires. The
// ticks before the last are ticks at which nothing expires: a driver may leave out the ticks
// that decide nothing and account for them with the next one it makes, as long as n is at most
// TicksToExpiry; a larger n panics (the driver skipped a tick that decides). Their time is not
// told: nothing happened at them.
func (e *Engine) Ticks(at time.Duration, n int64) {
	if n < 1 {
		panic(fmt.Sprintf("fence: %d ticks", n))
	}
	e.advance(at)
	e.lastTick = at
	if e.policy == Maintenance {
		// Nothing is ticked, and there is no alarm to count: entering maintenance deleted them.
		e.ticks += n
		return
	}
	if left, ok := e.TicksToExpiry(); ok && n > left {
		panic(fmt.Sprintf("fence: %d ticks at once skip one at which an alarm expires (%d ticks away)", n, left))
	}
	e.ticks += n
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

// TicksToExpiry returns how many ticks from now the first alarm expires: 1 means at the next
// tick. ok is false when no alarm can expire by ticking: there is none, each never expires
// (threshold -1) or already waits for a coordinator, or the cluster is in maintenance. A
// driver may skip the n-1 ticks before that one (Ticks).
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
// they wait, still counted, for a manager to come up.
func (e *Engine) expireDue(i int) {
	n := &e.nodes[i]
	for j := 0; j < len(n.alarms); {
		a := n.alarms[j]
		if !e.due(&a) {
			j++
			continue
		}
		if e.coordinator < 0 {
			if !a.waiting {
				n.alarms[j].waiting = true
				e.stale = true
				e.emit(Event{Kind: ExpiryWaiting, Node: n.name, Condition: a.cond, Count: e.count(&a), Threshold: a.threshold, Action: a.action})
			}
			j++
			continue
		}
		n.alarms = append(n.alarms[:j], n.alarms[j+1:]...)
		e.stale = true
		e.emit(Event{Kind: AlarmExpired, Node: n.name, Condition: a.cond, Count: e.count(&a), Threshold: a.threshold, Action: a.action, Other: e.nodes[e.coordinator].name})
		e.act(i, a)
	}
}

// act runs an expired alarm's action on node i; the coordinator is up.
func (e *Engine) act(i int, a alarm) {
	n := &e.nodes[i]
	switch a.action {
	case statemap.None:
		e.emit(Event{Kind: Logged, Node: n.name, Condition: a.cond})
		return
	case statemap.Alert:
		e.emit(Event{Kind: AlertNotImplemented, Node: n.name, Condition: a.cond, Detail: "ALERT NOT IMPLEMENTED"})
		return
	}
	if n.failed {
		e.emit(Event{Kind: AlreadyFailed, Node: n.name, Condition: a.cond})
		return
	}
	n.failed = true
	if n.role != Master {
		e.emit(Event{Kind: NodeFailed, Node: n.name, Condition: a.cond, Role: Replica})
		return
	}
	// A failed master is shunned, whatever the policy: it never comes back by itself.
	n.shunned = true
	if e.policy == Manual {
		e.emit(Event{Kind: NodeFailed, Node: n.name, Condition: a.cond, Role: Master, Detail: "manual policy: no failover"})
		return
	}
	n.role = Replica
	if c := e.candidate(); c >= 0 {
		e.nodes[c].role = Master
		e.emit(Event{Kind: Failover, Node: n.name, Condition: a.cond, Other: e.nodes[c].name})
		return
	}
	e.emit(Event{Kind: NoCandidate, Node: n.name, Condition: a.cond, Detail: e.ineligible(i)})
}

// eligible reports whether node j can be promoted: a replica in service whose manager is up
// and whose last probe was ok.
func (e *Engine) eligible(j int) bool {
	c := &e.nodes[j]
	return c.role == Replica && !c.failed && c.managerUp && c.lastOK
}

// candidate returns the first eligible replica in cluster order, or -1.
func (e *Engine) candidate() int {
	for j := range e.nodes {
		if e.eligible(j) {
			return j
		}
	}
	return -1
}

// ineligible says why no node other than master was eligible, node by node in cluster order.
func (e *Engine) ineligible(master int) string {
	var b strings.Builder
	for j := range e.nodes {
		if j == master {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		c := &e.nodes[j]
		b.WriteString(c.name)
		switch {
		case c.failed:
			b.WriteString(" is failed")
		case !c.managerUp:
			b.WriteString("'s manager is down")
		case !c.probed:
			b.WriteString(" has not been probed yet")
		default:
			b.WriteString("'s last probe was not ok")
		}
	}
	if b.Len() == 0 {
		return "the cluster has no replica"
	}
	return b.String()
}

// SetMap puts statemap m in force (a reload of an edited file): probes from now on follow it;
// alarms already raised keep the threshold and action they were raised with.
func (e *Engine) SetMap(m *statemap.Map) { e.rules = m }

// SetPolicy changes the cluster's policy at time at. Entering maintenance deletes every alarm:
// detection starts afresh with the first probe after leaving it.
func (e *Engine) SetPolicy(at time.Duration, p Policy) {
	e.advance(at)
	if p == e.policy {
		return
	}
	e.policy = p
	e.emit(Event{Kind: PolicyChanged, Policy: p})
	if p != Maintenance {
		return
	}
	for i := range e.nodes {
		e.clearAlarms(i, "maintenance")
	}
}

// clearAlarms deletes node i's alarms, saying why.
func (e *Engine) clearAlarms(i int, why string) {
	n := &e.nodes[i]
	for j := range n.alarms {
		a := &n.alarms[j]
		e.emit(Event{Kind: AlarmCleared, Node: n.name, Condition: a.cond, Count: e.count(a), Threshold: a.threshold, Detail: why})
	}
	e.dropAlarms(n)
}

// SetManager records that node i's manager went down or came up at time at. The coordinator is
// the first node in cluster order whose manager is up; when one appears, alarms that expired
// while there was none are fenced now. A manager already in the state asked for: nothing
// happens.
func (e *Engine) SetManager(at time.Duration, i int, up bool) {
	e.advance(at)
	n := &e.nodes[i]
	if n.managerUp == up {
		return
	}
	n.managerUp = up
	if up {
		e.emit(Event{Kind: ManagerUp, Node: n.name})
	} else {
		e.emit(Event{Kind: ManagerDown, Node: n.name})
	}
	c := -1
	for j := range e.nodes {
		if e.nodes[j].managerUp {
			c = j
			break
		}
	}
	if c == e.coordinator {
		return
	}
	was := e.coordinator
	e.coordinator = c
	name := ""
	if c >= 0 {
		name = e.nodes[c].name
	}
	e.emit(Event{Kind: CoordinatorChanged, Other: name})
	if was < 0 && c >= 0 && e.policy != Maintenance {
		for j := range e.nodes {
			e.expireDue(j)
		}
	}
}

// Recover is the operator returning failed node i to service at time at. Its alarms are
// deleted: one raised before it was failed must not fail it again. It comes back as a
// replica, unless it was the master, was failed without a failover (manual policy) and the
// cluster still has no master: then it is master again.
func (e *Engine) Recover(at time.Duration, i int) {
	e.advance(at)
	n := &e.nodes[i]
	if !n.failed {
		e.emit(Event{Kind: RecoverIgnored, Node: n.name, Detail: "not failed"})
		return
	}
	e.clearAlarms(i, "recover")
	n.failed, n.shunned = false, false
	if n.role == Master {
		for j := range e.nodes {
			if j != i && e.nodes[j].role == Master {
				n.role = Replica
			}
		}
	}
	e.emit(Event{Kind: NodeRecovered, Node: n.name, Role: n.role, Detail: "operator"})
}
