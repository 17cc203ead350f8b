package drive

import (
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
)

// Machine is the decision core the driver schedules: one manager's rules for one run, pure,
// driven by these calls alone, as etcd raft's node drives its RawNode. core.Core is the
// Tungsten Manager's (the engine, and the managers as a group when a run needs one); another
// manager's rules are another Machine beside it, under this same scheduler, the same adapters,
// observers, report and check (docs/engine.md, "The core").
//
// The driver calls, at an instant t: CatchUp for the ticks before t that decide nothing; Apply
// for each of the script's manager, host, partition, policy and recovery actions at t, then
// Running of every node; Probe for each outcome that counts at t, in node order; Tick when t
// is a tick; and after each of those steps Ready, whose events it tells the observers, then
// Advance. Between instants it asks TicksToExpiry, Quiet and Steady to plan the next.
type Machine interface {
	// Len is the number of nodes.
	Len() int
	// Apply applies a timed action of the script at t: a manager, host, partition, policy or
	// recovery action (the driver keeps faults and replication to the adapters).
	Apply(t time.Duration, a *act.Action)
	// Running reports whether node i's manager runs, so that its probes do.
	Running(i int) bool
	// Probe gives node i's probe outcome c at t.
	Probe(t time.Duration, i int, c statemap.Condition)
	// CatchUp accounts for n ticks up to the tick at t, none of which can decide anything (the
	// machine said so with TicksToExpiry and Quiet): they only count.
	CatchUp(t time.Duration, n int64)
	// Tick makes the tick at t, accounting for the n-1 left out before it.
	Tick(t time.Duration, n int64)
	// TicksToExpiry is how many ticks from the last one made or accounted for until one can
	// decide something of itself; ok false for none.
	TicksToExpiry() (n int64, ok bool)
	// Quiet reports whether a tick can decide nothing beyond what TicksToExpiry says: while
	// not, the driver makes every tick from the last instant on. Only Apply and Tick change
	// it: the driver asks after each of them.
	Quiet() bool
	// Steady reports whether a probe of node i ending in c would change nothing, and until
	// when at the most: the driver may skip such probes when it foresees their outcomes.
	Steady(i int, c statemap.Condition) (steady bool, until time.Duration)
	// Ready returns what was decided since the last Advance, in the order decided; the
	// events stay valid until Advance.
	Ready() []act.Event
	// Advance says the batch Ready returned was consumed; an empty batch needs none.
	Advance()
	// View is the read-only view of the engine the observers are shown at an instant's end
	// (InstantObserver): asked once, at New, and the same all run.
	View() fence.View
}

// Passive is a Machine that decides, and changes what TicksToExpiry says, only when the
// driver calls Apply, Probe, CatchUp or Tick (core.Core): the driver then asks Ready only after
// one of those since it last did, and TicksToExpiry only after one of those since it last
// asked. It is optional, as InstantObserver is: the driver asks once, at New.
type Passive interface {
	Machine
	// Passive says the machine is one.
	Passive()
}
