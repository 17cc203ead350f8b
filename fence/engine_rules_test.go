package fence

import (
	"slices"
	"testing"

	"github.com/failsim/failsim/statemap"
)

// TestEngineClusterIsACopy: the engine's view is the caller's to change.
func TestEngineClusterIsACopy(t *testing.T) {
	e := newTest(t, Automatic, Master, Replica)
	c := e.Cluster()
	c[0] = failedM
	if e.Master() != 0 || e.Node(0).Failed {
		t.Fatal("changing the copy changed the engine")
	}
}

// TestEngineDecidesOnCluster: a master failed under manual policy stays master and failed in
// place, as the state of record says.
func TestEngineDecidesOnCluster(t *testing.T) {
	e := newTest(t, Manual, Master, Replica)
	e.Probe(0, 1, statemap.OK)
	e.Probe(0, 0, statemap.SocketIOError)
	if got := e.Cluster(); !slices.Equal(got, Cluster{manualM, replica}) {
		t.Fatalf("cluster %+v", got)
	}
}

func newRuled(t *testing.T, coord CoordinatorRule, cand CandidateRule, roles ...Role) *Engine {
	t.Helper()
	var nodes []NodeConfig
	for i, r := range roles {
		nodes = append(nodes, NodeConfig{Name: "db" + string(rune('1'+i)), Role: r})
	}
	return New(Config{Nodes: nodes, Map: statemap.Default(), Coordinator: coord, Candidate: cand})
}

// lastUp coordinates from the last node whose manager is up.
func lastUp(up []bool) int {
	for i := len(up) - 1; i >= 0; i-- {
		if up[i] {
			return i
		}
	}
	return -1
}

// lastEligible promotes the last eligible node.
func lastEligible(c Cluster, eligible func(int) bool) int {
	for i := len(c) - 1; i >= 0; i-- {
		if eligible(i) {
			return i
		}
	}
	return -1
}

// TestGivenRules: the engine fences from the coordinator its rule chose and promotes the
// candidate its rule chose.
func TestGivenRules(t *testing.T) {
	e := newRuled(t, lastUp, lastEligible, Master, Replica, Replica)
	if e.Coordinator() != 2 {
		t.Fatalf("coordinator %d, want 2", e.Coordinator())
	}
	for i := range 3 {
		e.Probe(0, i, statemap.OK)
	}
	e.Ready()
	e.SetManager(1*s, 0, false)
	if got := e.Ready(); len(got) != 1 {
		t.Fatalf("the last manager stays coordinator: %s", kinds(got))
	}
	e.Probe(2*s, 0, statemap.OK) // its manager is down: ignored
	e.SetManager(3*s, 0, true)
	e.Probe(3*s, 0, statemap.SocketIOError)
	same(t, "fenced by the last, promoted the last", values(e.Ready()), []Decision{
		&ManagerUp{At: 3 * s, Node: 0},
		&StateChanged{At: 3 * s, Node: 0, Condition: statemap.SocketIOError, From: statemap.Online, To: statemap.Stopped},
		&AlarmRaised{At: 3 * s, Node: 0, Condition: statemap.SocketIOError, Threshold: 0, Action: statemap.Fail},
		&AlarmExpired{At: 3 * s, Node: 0, Condition: statemap.SocketIOError, Count: 0, Threshold: 0, Action: statemap.Fail, Coordinator: 2},
		&Failover{At: 3 * s, Node: 0, Condition: statemap.SocketIOError, To: 2},
	})
}

// TestCandidateRuleMayDecline: a rule that promotes none leaves the cluster without a master,
// and the decision says the eligible nodes were not chosen.
func TestCandidateRuleMayDecline(t *testing.T) {
	none := func(Cluster, func(int) bool) int { return -1 }
	e := newRuled(t, nil, none, Master, Replica, Replica)
	e.Probe(0, 1, statemap.OK)
	e.Probe(0, 0, statemap.SocketIOError)
	evs := e.Ready()
	ev, ok := evs[len(evs)-1].(*NoCandidate)
	if want := []Ineligible{{Node: 1, Why: NotChosen}, {Node: 2, Why: NeverProbed}}; !ok || !slices.Equal(ev.Ineligible, want) {
		t.Fatalf("got %s %+v, want ineligible %+v", kinds(evs), evs[len(evs)-1], want)
	}
	if e.Master() != -1 {
		t.Fatalf("master %d", e.Master())
	}
}

// TestRulesHeldToContract: a coordinator whose manager is down, or an ineligible candidate,
// is a rule's bug: it panics.
func TestRulesHeldToContract(t *testing.T) {
	mustPanic(t, "a coordinator whose manager is down", func() {
		e := newRuled(t, func([]bool) int { return 0 }, nil, Master, Replica)
		e.SetManager(0, 0, false)
	})
	mustPanic(t, "a coordinator out of range", func() { newRuled(t, func([]bool) int { return 5 }, nil, Master) })
	mustPanic(t, "an ineligible candidate", func() {
		e := newRuled(t, nil, func(Cluster, func(int) bool) int { return 1 }, Master, Replica)
		e.Probe(0, 0, statemap.SocketIOError) // db2 has never been probed
	})
}
