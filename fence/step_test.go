package fence

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/failsim/failsim/statemap"
)

// values copies the decisions Ready handed out, so that they can be compared after the next
// call into the engine.
func values(ds []Decision) []Decision {
	out := make([]Decision, len(ds))
	for i, d := range ds {
		out[i] = Clone(d)
	}
	return out
}

// same compares two lists of decisions by value: the structs they point to.
func same(t *testing.T, what string, got, want []Decision) {
	t.Helper()
	eq := len(got) == len(want)
	for i := 0; eq && i < len(got); i++ {
		eq = reflect.DeepEqual(got[i], want[i])
	}
	if !eq {
		t.Fatalf("%s:\n got %s\nwant %s", what, dump(got), dump(want))
	}
}

func dump(ds []Decision) string {
	s := ""
	for _, d := range ds {
		s += "\n  " + d.Kind().String() + " " + sprintValue(d)
	}
	return s
}

// TestStepProbeDone: a finished probe sets the state, raises an alarm for a bad condition and
// heals every alarm on an ok one; a threshold-0 alarm expires and acts at once.
func TestStepProbeDone(t *testing.T) {
	e := newTest(t, Automatic, Master, Replica)
	e.Step(0, ProbeDone{Node: 1, Condition: statemap.OK})
	e.Step(1*s, ProbeDone{Node: 1, Condition: statemap.SocketConnectTimeout})
	same(t, "ok then bad", values(e.Ready()), []Decision{
		&StateChanged{At: 0, Node: 1, Condition: statemap.OK, From: statemap.Unknown, To: statemap.Online},
		&StateChanged{At: 1 * s, Node: 1, Condition: statemap.SocketConnectTimeout, From: statemap.Online, To: statemap.Timeout},
		&AlarmRaised{At: 1 * s, Node: 1, Condition: statemap.SocketConnectTimeout, Threshold: 8, Action: statemap.Fail},
	})
	e.Step(10*s, Tick{})
	e.Step(12*s, ProbeDone{Node: 1, Condition: statemap.OK})
	same(t, "heal", values(e.Ready()), []Decision{
		&StateChanged{At: 12 * s, Node: 1, Condition: statemap.OK, From: statemap.Timeout, To: statemap.Online},
		&AlarmHealed{At: 12 * s, Node: 1, Condition: statemap.SocketConnectTimeout, Count: 1, Threshold: 8},
	})
	e.Step(13*s, ProbeDone{Node: 0, Condition: statemap.SocketIOError})
	same(t, "threshold 0 on the master", values(e.Ready()), []Decision{
		&StateChanged{At: 13 * s, Node: 0, Condition: statemap.SocketIOError, From: statemap.Unknown, To: statemap.Stopped},
		&AlarmRaised{At: 13 * s, Node: 0, Condition: statemap.SocketIOError, Threshold: 0, Action: statemap.Fail},
		&AlarmExpired{At: 13 * s, Node: 0, Condition: statemap.SocketIOError, Count: 0, Threshold: 0, Action: statemap.Fail, Coordinator: 0},
		&Failover{At: 13 * s, Node: 0, Condition: statemap.SocketIOError, To: 1},
	})
	if got := e.Cluster(); !slices.Equal(got, Cluster{{Role: Replica, Failed: true, Shunned: true}, {Role: Master}}) {
		t.Fatalf("cluster after the failover: %+v", got)
	}
}

// TestStepTick: Tick{} is one tick, Tick{Count: n} is n; an alarm expires at the tick that
// reaches its threshold; a negative count panics.
func TestStepTick(t *testing.T) {
	e := newTest(t, Automatic, Master, Replica, Replica)
	e.Step(0, ProbeDone{Node: 2, Condition: statemap.NoRouteToHost}) // threshold 6
	e.Ready()
	e.Step(10*s, Tick{})
	if a := e.Alarms(nil, 2); a[0].Count != 1 {
		t.Fatalf("Tick{}: count %d, want 1", a[0].Count)
	}
	e.Step(50*s, Tick{Count: 4})
	if a := e.Alarms(nil, 2); a[0].Count != 5 || len(e.Ready()) != 0 {
		t.Fatalf("Tick{Count: 4}: count %d, want 5, and nothing decided", a[0].Count)
	}
	e.Step(60*s, Tick{Count: 1})
	same(t, "the sixth tick", values(e.Ready()), []Decision{
		&AlarmExpired{At: 60 * s, Node: 2, Condition: statemap.NoRouteToHost, Count: 6, Threshold: 6, Action: statemap.Fail, Coordinator: 0},
		&NodeFailed{At: 60 * s, Node: 2, Condition: statemap.NoRouteToHost, Role: Replica},
	})
	mustPanic(t, "Tick{Count: -1}", func() { e.Step(70*s, Tick{Count: -1}) })
}

// TestStepSetPolicy: a change is said once; entering maintenance clears every alarm.
func TestStepSetPolicy(t *testing.T) {
	e := newTest(t, Automatic, Master, Replica)
	e.Step(0, ProbeDone{Node: 1, Condition: statemap.LoginResponseTimeout})
	e.Step(30*s, Tick{Count: 3})
	e.Ready()
	e.Step(31*s, SetPolicy{Policy: Automatic})
	e.Step(32*s, SetPolicy{Policy: Maintenance})
	same(t, "maintenance", values(e.Ready()), []Decision{
		&PolicyChanged{At: 32 * s, Policy: Maintenance},
		&AlarmCleared{At: 32 * s, Node: 1, Condition: statemap.LoginResponseTimeout, Count: 3, Threshold: 8, By: ClearedByMaintenance},
	})
	if e.Policy() != Maintenance {
		t.Fatalf("policy %s", e.Policy())
	}
}

// TestStepSetManager: a manager's change is said once, the coordinator moves with it, and an
// expiry that waited for a coordinator is fenced when one appears.
func TestStepSetManager(t *testing.T) {
	e := newTest(t, Automatic, Master, Replica)
	e.Step(0, ProbeDone{Node: 0, Condition: statemap.OK})
	e.Step(0, ProbeDone{Node: 1, Condition: statemap.NoRouteToHost}) // threshold 6, action fail
	e.Ready()
	e.Step(1*s, SetManager{Node: 0, Up: false})
	e.Step(1*s, SetManager{Node: 0, Up: false})
	e.Step(2*s, SetManager{Node: 1, Up: false})
	same(t, "managers down", values(e.Ready()), []Decision{
		&ManagerDown{At: 1 * s, Node: 0},
		&CoordinatorChanged{At: 1 * s, Coordinator: 1},
		&ManagerDown{At: 2 * s, Node: 1},
		&CoordinatorChanged{At: 2 * s, Coordinator: -1},
	})
	e.Step(60*s, Tick{Count: 6})
	same(t, "no coordinator", values(e.Ready()), []Decision{
		&ExpiryWaiting{At: 60 * s, Node: 1, Condition: statemap.NoRouteToHost, Count: 6, Threshold: 6, Action: statemap.Fail},
	})
	e.Step(65*s, SetManager{Node: 1, Up: true})
	same(t, "a manager up", values(e.Ready()), []Decision{
		&ManagerUp{At: 65 * s, Node: 1},
		&CoordinatorChanged{At: 65 * s, Coordinator: 1},
		&AlarmExpired{At: 65 * s, Node: 1, Condition: statemap.NoRouteToHost, Count: 6, Threshold: 6, Action: statemap.Fail, Coordinator: 1},
		&NodeFailed{At: 65 * s, Node: 1, Condition: statemap.NoRouteToHost, Role: Replica},
	})
}

// TestStepRecover: recovering a node that is not failed is ignored; a failed one comes back
// with its alarms cleared.
func TestStepRecover(t *testing.T) {
	e2 := newTest(t, Automatic, Master, Replica)
	e2.Step(0, Recover{Node: 1})
	same(t, "not failed", values(e2.Ready()), []Decision{&RecoverIgnored{At: 0, Node: 1}})
	e2.Step(1*s, ProbeDone{Node: 1, Condition: statemap.SocketConnectTimeout}) // threshold 8
	e2.Step(1*s, ProbeDone{Node: 1, Condition: statemap.SocketIOError})        // fails it
	e2.Step(20*s, Tick{Count: 2})
	e2.Ready()
	e2.Step(25*s, Recover{Node: 1})
	same(t, "recover a failed replica", values(e2.Ready()), []Decision{
		&AlarmCleared{At: 25 * s, Node: 1, Condition: statemap.SocketConnectTimeout, Count: 2, Threshold: 8, By: ClearedByRecover},
		&NodeRecovered{At: 25 * s, Node: 1, Role: Replica, By: RecoveredByOperator},
	})
}

// TestStepRecoverFailedReplica: a replica failed under automatic policy, with no alarm left,
// is returned by the operator before its first ok probe.
func TestStepRecoverFailedReplica(t *testing.T) {
	e := newTest(t, Automatic, Master, Replica)
	e.Step(1*s, ProbeDone{Node: 1, Condition: statemap.SocketIOError})
	e.Ready()
	e.Step(2*s, Recover{Node: 1})
	same(t, "recover", values(e.Ready()), []Decision{&NodeRecovered{At: 2 * s, Node: 1, Role: Replica, By: RecoveredByOperator}})
}

// TestStepNilPanics: a nil input is a driver bug.
func TestStepNilPanics(t *testing.T) {
	e := newTest(t, Automatic, Master)
	mustPanic(t, "Step(nil)", func() { e.Step(0, nil) })
}

// TestWrappersAreStep: each old call decides exactly what its Step does.
func TestWrappersAreStep(t *testing.T) {
	run := func(step bool) []Decision {
		e := newTest(t, Automatic, Master, Replica, Replica)
		var out []Decision
		do := func(at time.Duration, in Input, call func()) {
			if step {
				e.Step(at, in)
			} else {
				call()
			}
			out = append(out, values(e.Ready())...)
		}
		do(0, ProbeDone{Node: 1, Condition: statemap.OK}, func() { e.Probe(0, 1, statemap.OK) })
		do(0, ProbeDone{Node: 0, Condition: statemap.LoginResponseTimeout}, func() { e.Probe(0, 0, statemap.LoginResponseTimeout) })
		do(10*s, Tick{}, func() { e.Tick(10 * s) })
		do(70*s, Tick{Count: 6}, func() { e.Ticks(70*s, 6) })
		do(71*s, SetManager{Node: 2, Up: false}, func() { e.SetManager(71*s, 2, false) })
		do(80*s, Tick{Count: 1}, func() { e.Ticks(80*s, 1) })
		do(81*s, SetPolicy{Policy: Manual}, func() { e.SetPolicy(81*s, Manual) })
		do(82*s, Recover{Node: 0}, func() { e.Recover(82*s, 0) })
		return out
	}
	same(t, "wrappers against Step", run(false), run(true))
	if got := kinds(run(true)); got != "state state alarm-raised manager-down alarm-expired failover policy recovered" {
		t.Fatalf("the script decided %s", got)
	}
}

// TestReadyAllocatesNothing: once its buffers have grown, a steady run of probes, ticks,
// heals and alarms hands out its decisions without allocating.
func TestReadyAllocatesNothing(t *testing.T) {
	e := newTest(t, Automatic, Master, Replica, Replica)
	now := time.Duration(0)
	round := func() {
		now += 10 * s
		e.Step(now, ProbeDone{Node: 1, Condition: statemap.LoginResponseTimeout})
		e.Step(now, ProbeDone{Node: 2, Condition: statemap.QueryResultsTimeout})
		e.Step(now, Tick{})
		e.Step(now, SetPolicy{Policy: Manual})
		e.Step(now, SetManager{Node: 2, Up: false})
		e.Step(now, SetManager{Node: 2, Up: true})
		e.Step(now, ProbeDone{Node: 1, Condition: statemap.OK})
		e.Step(now, ProbeDone{Node: 2, Condition: statemap.OK})
		e.Step(now, SetPolicy{Policy: Automatic})
		e.Step(now, Recover{Node: 1})
		if len(e.Ready()) == 0 {
			t.Fatal("the round decided nothing")
		}
	}
	round()
	if n := testing.AllocsPerRun(100, round); n != 0 {
		t.Fatalf("%.1f allocations a round", n)
	}
}

// TestReadyReuses: the decisions of one batch stay as they were until the next call, and a
// Clone outlives it.
func TestReadyReuses(t *testing.T) {
	e := newTest(t, Automatic, Master, Replica)
	e.Step(0, ProbeDone{Node: 1, Condition: statemap.OK})
	first := e.Ready()
	kept := Clone(first[0])
	e.Step(1*s, ProbeDone{Node: 1, Condition: statemap.SocketConnectTimeout})
	if *kept.(*StateChanged) != (StateChanged{At: 0, Node: 1, Condition: statemap.OK, From: statemap.Unknown, To: statemap.Online}) {
		t.Fatalf("the clone changed: %+v", kept)
	}
	if first[0].(*StateChanged).To != statemap.Timeout {
		t.Fatalf("the reused decision was not overwritten: the test no longer shows the reuse")
	}
	if len(e.Ready()) == 0 {
		t.Fatal("the second batch is missing")
	}
	if got := e.Ready(); got != nil {
		t.Fatalf("Ready after Ready handed out %s", kinds(got))
	}
}

func sprintValue(d Decision) string { return fmt.Sprintf("%+v", d) }
