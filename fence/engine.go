// Package fence is the decision core of the Tungsten Manager as failsim models it: per-node
// alarms raised by bad probes, the 10-second timekeeper that ages them against the statemap's
// thresholds, self-heal on an ok probe, maintenance gating, and coordinator-only fencing with
// role-aware actions (a replica is failed, a master is failed over).
//
// The Engine is a pure state machine. It does no I/O, reads no clock and starts no goroutine:
// the caller tells it what happened and when (Probe, Tick, SetPolicy, SetManager, Recover), and
// takes the decisions it made with Ready. The simulator drives it in virtual time, the live
// runtime with a real clock; the rules are the same.
//
// Impossible calls (a node index out of range, time going backwards) panic: they are bugs in the
// driver, not bad input.
package fence

import (
	"fmt"
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
	lastTick    time.Duration // the last Tick's time; 0 before any
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

type alarm struct {
	cond      statemap.Condition
	count     int
	threshold int
	action    statemap.Action
	waiting   bool // expired with no coordinator; ExpiryWaiting already said
}

// New returns an engine for cfg. Every manager starts up; every node starts in state unknown
// until its first probe. cfg.Nodes must hold at most one master.
func New(cfg Config) *Engine {
	e := &Engine{rules: cfg.Map, policy: cfg.Policy, coordinator: -1}
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
		for _, a := range n.alarms {
			e.emit(Event{Kind: AlarmHealed, Node: n.name, Condition: a.cond, Count: a.count, Threshold: a.threshold})
		}
		n.alarms = n.alarms[:0]
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
	n.alarms = append(n.alarms, alarm{cond: c, threshold: rule.Threshold, action: rule.Action})
	e.emit(Event{Kind: AlarmRaised, Node: n.name, Condition: c, Threshold: rule.Threshold, Action: rule.Action})
	if rule.Threshold == 0 {
		e.expireDue(i)
	}
}

// Tick is the timekeeper at time at: every active alarm's count goes up by one, and an alarm
// whose count reaches its threshold expires. In maintenance nothing is ticked.
func (e *Engine) Tick(at time.Duration) {
	e.advance(at)
	e.lastTick = at
	if e.policy == Maintenance {
		return
	}
	for i := range e.nodes {
		n := &e.nodes[i]
		if len(n.alarms) == 0 {
			continue
		}
		due := false
		for j := range n.alarms {
			a := &n.alarms[j]
			a.count++
			due = due || a.due()
		}
		if due {
			e.expireDue(i)
		}
	}
}

// due reports whether an alarm has reached its threshold.
func (a alarm) due() bool { return a.threshold >= 0 && a.count >= a.threshold }

// expireDue expires node i's due alarms, in the order they were raised. With no coordinator
// they wait, still counted, for a manager to come up.
func (e *Engine) expireDue(i int) {
	n := &e.nodes[i]
	for j := 0; j < len(n.alarms); {
		a := n.alarms[j]
		if !a.due() {
			j++
			continue
		}
		if e.coordinator < 0 {
			if !a.waiting {
				n.alarms[j].waiting = true
				e.emit(Event{Kind: ExpiryWaiting, Node: n.name, Condition: a.cond, Count: a.count, Threshold: a.threshold, Action: a.action})
			}
			j++
			continue
		}
		n.alarms = append(n.alarms[:j], n.alarms[j+1:]...)
		e.emit(Event{Kind: AlarmExpired, Node: n.name, Condition: a.cond, Count: a.count, Threshold: a.threshold, Action: a.action, Other: e.nodes[e.coordinator].name})
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
	if e.policy == Manual {
		e.emit(Event{Kind: NodeFailed, Node: n.name, Condition: a.cond, Role: Master, Detail: "manual policy: no failover"})
		return
	}
	n.shunned = true
	n.role = Replica
	for j := range e.nodes {
		c := &e.nodes[j]
		if c.role == Replica && !c.failed && c.lastOK {
			c.role = Master
			e.emit(Event{Kind: Failover, Node: n.name, Condition: a.cond, Other: c.name})
			return
		}
	}
	e.emit(Event{Kind: NoCandidate, Node: n.name, Condition: a.cond, Detail: "no replica is in service with an ok last probe"})
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
		n := &e.nodes[i]
		for _, a := range n.alarms {
			e.emit(Event{Kind: AlarmCleared, Node: n.name, Condition: a.cond, Count: a.count, Threshold: a.threshold})
		}
		n.alarms = n.alarms[:0]
	}
}

// SetManager records that node i's manager went down or came up at time at. The coordinator is
// the first node in cluster order whose manager is up; when one appears, alarms that expired
// while there was none are fenced now.
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

// Recover is the operator returning failed node i to service at time at. It comes back as a
// replica, unless it was the master, was failed without a failover (manual policy) and the
// cluster still has no master: then it is master again.
func (e *Engine) Recover(at time.Duration, i int) {
	e.advance(at)
	n := &e.nodes[i]
	if !n.failed {
		e.emit(Event{Kind: RecoverIgnored, Node: n.name, Detail: "not failed"})
		return
	}
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
