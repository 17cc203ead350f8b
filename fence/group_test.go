package fence

import (
	"testing"

	"github.com/failsim/failsim/statemap"
)

// allOK gives every node an ok probe at 0 and drops the decisions.
func allOK(e *Engine) {
	for i := range e.Len() {
		e.Probe(0, i, statemap.OK)
	}
	e.Ready()
}

// Coordinators that say what FirstUp says change nothing: the engine decides as before.
func TestSetCoordinatorsLikeFirstUp(t *testing.T) {
	a := newTest(t, Automatic, Master, Replica, Replica)
	b := newTest(t, Automatic, Master, Replica, Replica)
	allOK(a)
	allOK(b)
	b.Step(0, SetCoordinators{Coordinators: []int{0, 0, 0}})
	if evs := b.Ready(); len(evs) != 0 {
		t.Fatalf("the same coordinator: %s", kinds(evs))
	}
	for _, e := range []*Engine{a, b} {
		e.Probe(5*s, 0, statemap.SocketIOError)
	}
	if ka, kb := kinds(a.Ready()), kinds(b.Ready()); ka != kb || kb != "state alarm-raised alarm-expired failover" {
		t.Fatalf("single-view %q, group %q", ka, kb)
	}
	if a.Master() != 1 || b.Master() != 1 {
		t.Fatalf("masters %d and %d", a.Master(), b.Master())
	}
}

// With no primary view, nothing is fenced; the alarm waits and expires when a view of the
// node becomes primary again.
func TestNoPrimaryNoFencing(t *testing.T) {
	e := newTest(t, Automatic, Master, Replica, Replica)
	allOK(e)
	e.Step(s, SetCoordinators{Coordinators: []int{-1, -1, -1}})
	if got := kinds(e.Ready()); got != "coordinator" || e.Coordinator() != -1 {
		t.Fatalf("no primary: %s, coordinator %d", got, e.Coordinator())
	}
	e.Probe(5*s, 1, statemap.SocketIOError)
	if got := kinds(e.Ready()); got != "state alarm-raised expiry-waiting" {
		t.Fatalf("without a coordinator: %s", got)
	}
	e.Step(10*s, SetCoordinators{Coordinators: []int{0, 0, 0}})
	if got := kinds(e.Ready()); got != "coordinator alarm-expired failed" {
		t.Fatalf("a coordinator again: %s", got)
	}
}

// A host failure fails a master over to a replica of the coordinator's view, in the
// coordinator's copy; the isolated master's own copy still says it is master until its
// failsafe shuns it.
func TestHostFailedAndFailsafe(t *testing.T) {
	e := newTest(t, Automatic, Master, Replica, Replica)
	allOK(e)
	e.Step(s, Fork{Copy: 1, From: 0})
	e.Step(s, SetCopies{CopyOf: []int{0, 1, 1}})
	e.Step(s, SetCoordinators{Coordinators: []int{-1, 1, 1}})
	e.Ready()
	e.Step(30*s, HostFailed{Coordinator: 1, Node: 0})
	evs := e.Ready()
	fo, ok := evs[0].(*Failover)
	if len(evs) != 1 || !ok || fo.To != 1 || !fo.Host || fo.Condition != statemap.HostIsDown {
		t.Fatalf("host failure: %s %+v", kinds(evs), evs)
	}
	if !e.Writable(0) || !e.Writable(1) || e.Writable(2) {
		t.Fatalf("writable: %v %v %v, want the two masters of two copies", e.Writable(0), e.Writable(1), e.Writable(2))
	}
	e.Step(30*s, FailsafeShun{Node: 0, Ticks: 3})
	if got := kinds(e.Ready()); got != "failsafe-shun" || e.Writable(0) || !e.Node(0).Failsafe {
		t.Fatalf("failsafe: %s, writable %v", got, e.Writable(0))
	}
	e.Step(30*s, FailsafeShun{Node: 0, Ticks: 3})
	if evs := e.Ready(); len(evs) != 0 {
		t.Fatalf("a second shun: %s", kinds(evs))
	}
	e.Step(40*s, Recover{Node: 0})
	if got := kinds(e.Ready()); got != "recover-refused" {
		t.Fatalf("recover outside a primary view: %s", got)
	}
	e.Step(50*s, MergeCopies{Copy: 1, Sources: []int{0, 1}, Adopted: 1})
	evs = e.Ready()
	m, ok := evs[0].(*CopiesMerged)
	if !ok || m.Adopted != 1 || len(m.Conflicts) != 2 || m.Conflicts[0].Node != 0 || m.Conflicts[1].Node != 1 {
		t.Fatalf("merge: %s %+v", kinds(evs), evs)
	}
	e.Step(50*s, SetCopies{CopyOf: []int{1, 1, 1}})
	e.Step(50*s, SetCoordinators{Coordinators: []int{1, 1, 1}})
	e.Ready()
	e.Step(60*s, Recover{Node: 0})
	if got := kinds(e.Ready()); got != "recovered" || e.Node(0).Role != Replica || e.Master() != 1 {
		t.Fatalf("recover in a primary view: %s, master %d", got, e.Master())
	}
}

// A failover in group mode promotes only a replica of the coordinator's view.
func TestCandidateFromCoordinatorsView(t *testing.T) {
	e := newTest(t, Automatic, Master, Replica, Replica)
	allOK(e)
	e.Step(s, SetCoordinators{Coordinators: []int{2, -1, 2}})
	e.Ready()
	e.Step(30*s, HostFailed{Coordinator: 2, Node: 0})
	evs := e.Ready()
	if fo, ok := evs[0].(*Failover); !ok || fo.To != 2 {
		t.Fatalf("want db3 promoted, not db2 outside the view: %s %+v", kinds(evs), evs)
	}
}

func TestGroupInputsPanic(t *testing.T) {
	e := newTest(t, Automatic, Master, Replica)
	e.SetManager(0, 1, false)
	mustPanic(t, "a coordinator whose manager is down", func() { e.Step(0, SetCoordinators{Coordinators: []int{1, 1}}) })
	mustPanic(t, "a copy that does not exist", func() { e.Step(0, SetCopies{CopyOf: []int{0, 3}}) })
	mustPanic(t, "a fork that skips a number", func() { e.Step(0, Fork{Copy: 5, From: 0}) })
	mustPanic(t, "a host ping by a manager that is down", func() { e.Step(0, HostFailed{Coordinator: 1, Node: 0}) })
}
