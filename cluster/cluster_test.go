package cluster

import (
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/group"
	"github.com/failsim/failsim/statemap"
)

const s = time.Second

// rig is an engine of n database nodes (the first master) with w witnesses, every node
// probed ok once, and a recorder of every event's kind.
type rig struct {
	e    *fence.Engine
	c    *Cluster
	evs  []string
	wins []SplitBrain
}

func newRig(t *testing.T, n, w int, cfg Config) *rig {
	t.Helper()
	nodes := make([]fence.NodeConfig, n)
	for i := range nodes {
		nodes[i].Name = string(rune('a' + i))
	}
	nodes[0].Role = fence.Master
	r := &rig{e: fence.New(fence.Config{Nodes: nodes, Map: statemap.Default()})}
	cfg.Witnesses = w
	r.c = New(r.e, cfg, 0, r.record)
	for i := range n {
		r.e.Probe(0, i, statemap.OK)
	}
	r.e.Ready()
	r.evs = nil
	return r
}

func (r *rig) record(ev act.Event) {
	switch ev := ev.(type) {
	case fence.Decision:
		r.evs = append(r.evs, ev.Kind().String())
	case *ViewChanged:
		r.evs = append(r.evs, "view")
	case *QuorumChanged:
		r.evs = append(r.evs, "quorum")
	case *HostPingFailed:
		r.evs = append(r.evs, "ping-failed")
	case *SplitBrain:
		r.evs = append(r.evs, "split-brain")
		r.wins = append(r.wins, *ev)
	case *GroupState, *Partitioned, *HostChanged:
	default:
		panic(ev)
	}
}

// ticks makes the group's ticks from..to, every 10 s.
func (r *rig) ticks(from, to time.Duration) {
	for t := from; t <= to; t += 10 * s {
		r.c.Tick(t)
	}
}

func (r *rig) take() string {
	out := strings.Join(r.evs, " ")
	r.evs = nil
	return out
}

// Managers that only stop and start cleanly, a majority up: the coordinator is the first up,
// as without the group, and the group stays quiet: no tick of its own is needed.
func TestCleanStopsStayQuiet(t *testing.T) {
	r := newRig(t, 3, 0, Config{})
	r.c.ManagerStop(5*s, 0)
	if got := r.take(); got != "manager-down coordinator" || r.e.Coordinator() != 1 || !r.c.Quiet() {
		t.Fatalf("a stop: %q, coordinator %d, quiet %v", got, r.e.Coordinator(), r.c.Quiet())
	}
	r.c.ManagerStart(6*s, 0)
	if got := r.take(); got != "manager-up coordinator" || r.e.Coordinator() != 0 || !r.c.Quiet() {
		t.Fatalf("a start: %q, coordinator %d, quiet %v", got, r.e.Coordinator(), r.c.Quiet())
	}
	r.c.ManagerStop(7*s, 1)
	r.c.ManagerStop(7*s, 2)
	if got := r.take(); got != "manager-down manager-down quorum coordinator" || r.e.Coordinator() != -1 || r.c.Quiet() {
		t.Fatalf("a majority down: %q, coordinator %d, quiet %v", got, r.e.Coordinator(), r.c.Quiet())
	}
	r.ticks(10*s, 30*s)
	if got := r.take(); got != "failsafe-shun" || !r.c.Quiet() {
		t.Fatalf("alone for 3 ticks: %q, quiet %v", got, r.c.Quiet())
	}
}

// A partition isolating the master: with the default thresholds the majority's failover and
// the minority's shun fall on one tick, failover first: a zero-length window.
func TestPartitionZeroLengthWindow(t *testing.T) {
	r := newRig(t, 3, 0, Config{})
	r.c.Partition(5*s, []int{0, 1, 1})
	r.ticks(10*s, 20*s)
	if r.e.Coordinator() != -1 || len(r.wins) != 0 {
		t.Fatalf("before the third tick: coordinator %d, windows %v", r.e.Coordinator(), r.wins)
	}
	r.take()
	r.ticks(30*s, 30*s)
	if got := r.take(); got != "view view quorum quorum coordinator ping-failed failover split-brain failsafe-shun split-brain" {
		t.Fatalf("the third tick: %s", got)
	}
	if len(r.wins) != 2 || r.wins[1].From != 30*s || r.wins[1].At != 30*s || r.c.Writable() != group.SetOf(1) {
		t.Fatalf("windows %+v, writable %v", r.wins, r.c.Writable())
	}
	r.c.Partition(60*s, nil)
	r.ticks(60*s, 60*s)
	if got := r.take(); !strings.Contains(got, "copies-merged") || r.e.Master() != 1 || r.e.CopyOf(0) != r.e.CopyOf(1) {
		t.Fatalf("heal: %s, master %d", got, r.e.Master())
	}
}

// A gap threshold below the failsafe threshold opens a window as long as the difference.
func TestGapBelowFailsafeOpensWindow(t *testing.T) {
	r := newRig(t, 3, 0, Config{GapThreshold: 2, FailsafeThreshold: 4})
	r.c.Partition(5*s, []int{0, 1, 1})
	r.ticks(10*s, 60*s)
	if len(r.wins) != 2 || r.wins[0].At != 20*s || r.wins[1].At != 40*s || r.wins[1].From != 20*s {
		t.Fatalf("windows %+v", r.wins)
	}
}

// An isolated master whose manager is down shuns nothing: it stays writable, and the window
// lasts until the partition heals and its manager is back.
func TestIsolatedMasterManagerDown(t *testing.T) {
	r := newRig(t, 3, 0, Config{})
	r.c.ManagerStop(1*s, 0)
	r.c.Partition(5*s, []int{0, 1, 1})
	r.ticks(10*s, 60*s)
	if len(r.wins) != 1 || !r.wins[0].Open || r.wins[0].At != 10*s {
		t.Fatalf("windows %+v, want one open at the first tick (db1 already out of view: pinged at once)", r.wins)
	}
	r.c.Partition(70*s, nil)
	if len(r.wins) != 2 || r.wins[1].Open || r.c.Writable() != group.SetOf(1) {
		t.Fatalf("healed: windows %+v, writable %v", r.wins, r.c.Writable())
	}
}

// The quorum rule makes both sides primary when the side one short holds a witness: both
// fence, two masters are writable until the partition heals.
func TestWitnessMakesTwoPrimaries(t *testing.T) {
	r := newRig(t, 3, 1, Config{})
	r.c.Partition(5*s, []int{0, 1, 1, 0}) // a w | b c
	r.ticks(10*s, 60*s)
	if p := r.c.Group().PrimaryViews(); len(p) != 2 {
		t.Fatalf("primary views %v, want two", p)
	}
	if len(r.wins) != 1 || !r.wins[0].Open || r.wins[0].Writable != group.SetOf(0, 1) {
		t.Fatalf("windows %+v", r.wins)
	}
	r.c.Partition(100*s, nil)
	r.ticks(100*s, 100*s)
	if len(r.wins) != 2 || r.e.Master() != 0 {
		t.Fatalf("healed: windows %+v, master %d (the first member's side wins)", r.wins, r.e.Master())
	}
}
