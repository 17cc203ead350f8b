// Package core is one run's decision core under the Tungsten Manager's rules: the engine
// (package fence), the managers as a group (package cluster, made only when something needs
// it) and the majority rule (group.Majority), behind the few calls the scheduler makes
// (drive.Machine) and one Ready that hands out, in the order they were decided, the engine's
// decisions and the group's events.
//
// It is etcd raft's RawNode for failsim: the inputs go in by method, the outputs come out of
// Ready, and Advance says they were consumed. It is pure: no I/O, no clock, no goroutines.
// Another manager's rules are another implementation of drive.Machine beside this one, under
// the same scheduler, adapters, observers, report and check (docs/engine.md, "The core").
package core

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/group"
	"github.com/failsim/failsim/statemap"
)

// Core is one run's decision core. Its zero value is not usable: call New. It is not safe for
// concurrent use.
type Core struct {
	e       *fence.Engine
	group   cluster.Config   // the group's settings, when grouped
	grouped bool             // the managers run as a group; false: no group (the live runtime)
	c       *cluster.Cluster // made at the first action that needs it; nil until then
	now     time.Duration    // the time of the last input
	router  Router           // the application's routing; nil: Sticky

	out   []act.Event        // the batch Ready hands out
	stood []Standing         // how the managers stood at the batch's decisions about a node's service
	ints  []int              // their CopyOf and MasterOf, back to back
	state cluster.GroupState // the note noteGroup tells, reused
	views []group.Set        // its views, reused
}

// New returns the core of engine e, fresh (no call made into it yet). With g not nil the
// managers run as a group (package cluster) beside the engine: manager, host and partition
// actions change the group's network, and at a tick the group decides just before the engine.
// The group is made at the first action that needs it: until then every manager runs on one
// network, and the group would only confirm the coordinator the engine has (see alone). With
// g nil (the live runtime) there is no group, and the engine's coordinator is the first node
// whose manager is up.
func New(e *fence.Engine, g *cluster.Config) *Core {
	k := &Core{e: e}
	if g != nil {
		k.group, k.grouped = *g, true
	}
	return k
}

// Reuse gives k, fresh, the space of old's batches (old is done with: nothing it handed out
// is read again), so that a caller replaying run after run (sim.Replayer) does not grow them
// anew each time. A nil old changes nothing.
func (k *Core) Reuse(old *Core) {
	if old == nil {
		return
	}
	clear(old.out[:cap(old.out)])
	clear(old.stood[:cap(old.stood)])
	k.out, k.stood, k.ints = old.out[:0], old.stood[:0], old.ints[:0]
	k.views = old.views[:0]
}

// NewReusing is New followed by Reuse(old) that makes old itself the fresh core, rather than
// allocating one: old is done with, and nothing it handed out, nor old itself, is read again.
// A nil old is New.
func NewReusing(e *fence.Engine, g *cluster.Config, old *Core) *Core {
	if old == nil {
		return New(e, g)
	}
	spare := *old
	*old = Core{e: e}
	if g != nil {
		old.group, old.grouped = *g, true
	}
	old.Reuse(&spare)
	return old
}

// Passive implements drive.Passive: the core decides, and its engine's TicksToExpiry changes,
// only in Apply, Probe, CatchUp and Tick.
func (k *Core) Passive() {}

// Len is the number of nodes.
func (k *Core) Len() int { return k.e.Len() }

// View is a read-only view of the engine, to read between instants.
func (k *Core) View() fence.View { return k.e.View() }

// Cluster is the managers as a group, to read between instants (do not step it); nil until the
// first action that concerns the group made it, and always without a group.
func (k *Core) Cluster() *cluster.Cluster { return k.c }

// Running reports whether node i's manager runs: it probes.
func (k *Core) Running(i int) bool {
	if k.c != nil {
		return k.c.Running(i)
	}
	return k.e.Node(i).ManagerUp
}

// Apply applies action a at time t: a manager, host, partition, policy or recovery action
// (faults and replication are the adapters'). After a manager, host or partition action, ask
// Running of every node.
func (k *Core) Apply(t time.Duration, a *act.Action) {
	k.now = t
	switch a.Kind {
	case act.ManagerDown, act.ManagerUp, act.HostDown, act.HostUp, act.Partition:
		if !k.grouped {
			k.managerAlone(t, a)
			return
		}
		if k.c == nil && k.alone(a) {
			k.managerAlone(t, a)
			k.take()
			k.noteGroup(t)
			return
		}
		if k.c == nil {
			k.c = cluster.New(k.e, k.group, t, k.tell)
		}
		switch a.Kind {
		case act.ManagerDown:
			k.c.ManagerStop(t, a.Node)
		case act.ManagerUp:
			k.c.ManagerStart(t, a.Node)
		case act.HostDown:
			k.c.HostDown(t, a.Node)
		case act.HostUp:
			k.c.HostUp(t, a.Node)
		case act.Partition:
			if a.ManagersOnly {
				k.c.PartitionManagers(t, a.Segments)
			} else {
				k.c.Partition(t, a.Segments)
			}
		}
	case act.SetPolicy:
		k.e.SetPolicy(t, a.Policy)
		if k.c != nil {
			k.c.PolicyChanged(t)
		}
	case act.Recover:
		k.e.Recover(t, a.Node)
	default:
		panic(fmt.Sprintf("core: action of %v", a.Kind))
	}
}

// alone reports whether action a, with no group made yet, can be told to the engine alone: a
// manager that starts, or one that stops leaving a majority of the managers up, in a cluster
// with no witness. Until the group is made every host is up on one network, and the group
// would only confirm the engine's own coordinator, the first manager up: so a run in which
// managers only stop and start, a majority always up, never makes one.
func (k *Core) alone(a *act.Action) bool {
	if k.group.Witnesses > 0 {
		return false
	}
	switch a.Kind {
	case act.ManagerUp:
		return true
	case act.ManagerDown:
		up := 0
		for i := range k.e.Len() {
			if i != a.Node && k.e.Node(i).ManagerUp {
				up++
			}
		}
		return up >= group.Majority(k.e.Len())
	}
	return false
}

// noteGroup tells how the group stands while none is made: one primary view of the managers
// up (cluster.GroupState, as a made group tells it).
func (k *Core) noteGroup(t time.Duration) {
	var up group.Set
	for i := range k.e.Len() {
		if k.e.Node(i).ManagerUp {
			up = up.With(i)
		}
	}
	k.views = append(k.views[:0], up)
	k.state = cluster.GroupState{At: t, Primary: k.views, Sides: k.views, Majority: group.Majority(k.e.Len())}
	k.tell(&k.state)
}

// managerAlone is a manager action without a group: the engine alone is told.
func (k *Core) managerAlone(t time.Duration, a *act.Action) {
	switch a.Kind {
	case act.ManagerDown:
		k.e.SetManager(t, a.Node, false)
	case act.ManagerUp:
		k.e.SetManager(t, a.Node, true)
	default:
		panic(fmt.Sprintf("core: a %v action needs a group", a.Kind))
	}
}

// Probe gives node i's probe outcome c to the engine at time t.
func (k *Core) Probe(t time.Duration, i int, c statemap.Condition) {
	k.now = t
	k.e.Probe(t, i, c)
}

// CatchUp tells the engine of n ticks up to the tick at t that decide nothing but count; the
// group is not ticked.
func (k *Core) CatchUp(t time.Duration, n int64) {
	k.e.Ticks(t, n)
}

// Tick makes the tick at t, with the n-1 skipped before it: the group's first, while it is not
// quiet, then the engine's.
func (k *Core) Tick(t time.Duration, n int64) {
	k.now = t
	if k.c != nil && !k.c.Quiet() {
		k.c.Tick(t)
	}
	k.e.Ticks(t, n)
}

// TicksToExpiry is the engine's fence.Engine.TicksToExpiry: how many ticks from the last until
// the first alarm can expire.
func (k *Core) TicksToExpiry() (int64, bool) { return k.e.TicksToExpiry() }

// Quiet reports whether a tick of the group would decide nothing (no group, or
// cluster.Cluster.Quiet): the scheduler may leave the group's ticks out.
func (k *Core) Quiet() bool { return k.c == nil || k.c.Quiet() }

// Steady is the engine's fence.Engine.Steady: whether a probe of node i ending in c would
// change nothing, and until when at the most.
func (k *Core) Steady(i int, c statemap.Condition) (bool, time.Duration) { return k.e.Steady(i, c) }

// Ready returns what was decided since the last Advance, in order: the group's events and the
// engine's decisions as they came, then those the engine decided outside the group, then what
// those opened (a split-brain window). The events stay valid until Advance.
func (k *Core) Ready() []act.Event {
	if k.e.Untaken() {
		k.take()
		if k.c != nil {
			k.c.Engined(k.now)
		}
	}
	return k.out
}

// Advance says the batch Ready handed out was consumed: its events may be reused.
func (k *Core) Advance() {
	if len(k.out) == 0 {
		return // every decision taken is in the batch: none was
	}
	if k.c != nil {
		k.c.Release()
	} else {
		k.e.Release()
	}
	k.out, k.stood, k.ints = k.out[:0], k.stood[:0], k.ints[:0]
}

// take adds the engine's decisions not yet handed to the batch.
func (k *Core) take() {
	ds := k.e.Take()
	if k.c == nil {
		for _, d := range ds {
			k.out = append(k.out, d) // no group: nothing stood apart from the engine's state
		}
		return
	}
	for _, d := range ds {
		k.tell(d)
	}
}

// tell adds one event to the batch, with how the managers stood at it when it is a decision
// about a node's service and the group is made.
func (k *Core) tell(ev act.Event) {
	k.out = append(k.out, ev)
	if k.c == nil {
		return
	}
	switch ev.(type) {
	case *fence.Failover, *fence.NoCandidate, *fence.NodeFailed, *fence.NodeRecovered:
	default:
		return
	}
	n := k.e.Len()
	at := len(k.ints)
	for i := range n {
		k.ints = append(k.ints, k.e.CopyOf(i))
	}
	for i := range n {
		k.ints = append(k.ints, k.e.MasterOf(i))
	}
	k.stood = append(k.stood, Standing{ev: ev, Writable: k.c.WritableSet(), at: at, n: n})
}

// Standing is how the managers stood at the moment of one decision of a batch: the group
// decides in steps, and a decision made in the middle of one (a failover at a merge of the
// copies, before the coordinators are told) is handed out with the rest once the step is
// done, by which time the copies may have moved on. An adapter that acts on the decision reads
// these, not the core's state after the step.
type Standing struct {
	ev act.Event
	// Writable is the set of nodes that took writes then (cluster.Cluster.WritableSet).
	Writable group.Set
	at, n    int // where its CopyOf and MasterOf are in the core's ints
	ints     []int
}

// CopyOf is the copy of the cluster's state node i's manager held then (fence.Engine.CopyOf).
func (s *Standing) CopyOf(i int) int { return s.ints[s.at+i] }

// MasterOf is the master in service of node i's copy then (fence.Engine.MasterOf).
func (s *Standing) MasterOf(i int) int { return s.ints[s.at+s.n+i] }

// StandingAt returns how the managers stood when ev, an event of the batch Ready handed out,
// was decided: for a failover, a failover with no candidate, a node failed or recovered, once
// the group is made. ok is false for any other event, and without a group (the engine's state
// after the step is then the state at the decision). Valid until Advance.
func (k *Core) StandingAt(ev act.Event) (s Standing, ok bool) {
	for _, x := range k.stood {
		if x.ev == ev {
			x.ints = k.ints
			return x, true
		}
	}
	return Standing{}, false
}
