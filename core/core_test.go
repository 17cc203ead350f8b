package core_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/core"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
)

// TestReadyIsWhatWasTold: the core hands out in one Ready, unaltered and in order, exactly the
// events an engine and its group tell one by one as they decide them. A reference engine and
// cluster, stepped by the same inputs, are read at each emit; the core's batch is read only at
// Ready, after the whole step, so any event reused or overwritten within the step (the
// engine's decision storage, the group's scratch) would read differently.
func TestReadyIsWhatWasTold(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 5).Draw(t, "nodes")
		w := rapid.IntRange(0, 2).Draw(t, "witnesses")
		cfg := cluster.Config{Witnesses: w, GapThreshold: rapid.IntRange(1, 4).Draw(t, "gap"), FailsafeThreshold: rapid.IntRange(1, 4).Draw(t, "failsafe")}
		nodes := make([]fence.NodeConfig, n)
		for i := range nodes {
			nodes[i].Name = string(rune('a' + i))
		}
		nodes[0].Role = fence.Master
		fresh := func() *fence.Engine { return fence.New(fence.Config{Nodes: nodes, Map: statemap.Default()}) }

		var want []string
		told := func(ev act.Event) { want = append(want, describe(ev)) }
		re := fresh()
		rc := cluster.New(re, cfg, 0, told)
		rc.Partition(0, nil)
		k := core.New(fresh(), &cfg)
		k.Apply(0, &act.Action{Kind: act.Partition})
		// engined is what the core does after an engine-only step: the engine's decisions, then
		// what they opened.
		engined := func(at time.Duration) {
			ds := re.Take()
			for _, d := range ds {
				told(d)
			}
			if len(ds) > 0 {
				rc.Engined(at)
			}
		}
		compare := func(t *rapid.T, step string, at time.Duration) {
			engined(at) // what the step left untaken, as the core's Ready takes it
			var got []string
			for _, ev := range k.Ready() {
				got = append(got, describe(ev))
			}
			k.Advance()
			if len(got) != len(want) {
				t.Fatalf("%s: the core handed out %d events, the reference told %d:\n got %q\nwant %q", step, len(got), len(want), got, want)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s: event %d is %s, the reference told %s", step, i, got[i], want[i])
				}
			}
			want = want[:0]
			rc.Release()
		}
		compare(t, "start", 0)
		members := n + w
		now := time.Duration(0)
		t.Repeat(map[string]func(*rapid.T){
			"partition": func(t *rapid.T) {
				seg := make([]int, members)
				for m := range seg {
					seg[m] = rapid.IntRange(0, 2).Draw(t, "segment")
				}
				rc.Partition(now, seg)
				k.Apply(now, &act.Action{At: now, Kind: act.Partition, Segments: seg})
				compare(t, "partition", now)
			},
			"heal": func(t *rapid.T) {
				rc.Partition(now, nil)
				k.Apply(now, &act.Action{At: now, Kind: act.Partition})
				compare(t, "heal", now)
			},
			"host": func(t *rapid.T) {
				m := rapid.IntRange(0, members-1).Draw(t, "member")
				if rapid.Bool().Draw(t, "down") {
					rc.HostDown(now, m)
					k.Apply(now, &act.Action{At: now, Kind: act.HostDown, Node: m})
				} else {
					rc.HostUp(now, m)
					k.Apply(now, &act.Action{At: now, Kind: act.HostUp, Node: m})
				}
				compare(t, "host", now)
			},
			"manager": func(t *rapid.T) {
				m := rapid.IntRange(0, members-1).Draw(t, "member")
				if rapid.Bool().Draw(t, "down") {
					rc.ManagerStop(now, m)
					k.Apply(now, &act.Action{At: now, Kind: act.ManagerDown, Node: m})
				} else {
					rc.ManagerStart(now, m)
					k.Apply(now, &act.Action{At: now, Kind: act.ManagerUp, Node: m})
				}
				compare(t, "manager", now)
			},
			"probe": func(t *rapid.T) {
				i := rapid.IntRange(0, n-1).Draw(t, "node")
				c := statemap.Condition(rapid.IntRange(0, int(statemap.NumConditions)-1).Draw(t, "condition"))
				if !re.Node(i).ManagerUp {
					return
				}
				now += time.Second
				re.Probe(now, i, c)
				k.Probe(now, i, c)
				compare(t, "probe", now)
			},
			"tick": func(t *rapid.T) {
				now = (now/statemap.TickInterval + 1) * statemap.TickInterval
				if !rc.Quiet() {
					rc.Tick(now)
				}
				re.Ticks(now, 1)
				k.Tick(now, 1)
				compare(t, "tick", now)
			},
			"recover": func(t *rapid.T) {
				i := rapid.IntRange(0, n-1).Draw(t, "node")
				re.Recover(now, i)
				k.Apply(now, &act.Action{At: now, Kind: act.Recover, Node: i})
				compare(t, "recover", now)
			},
		})
	})
}

// describe is an event as it reads now, its type and every field.
func describe(ev act.Event) string { return fmt.Sprintf("%T %+v", ev, ev) }

// TestSticky: the default routing stays where it writes while it can, else takes the first
// node in cluster order that can, else none.
func TestSticky(t *testing.T) {
	usable := func(set ...int) func(int) bool {
		return func(i int) bool { return slices.Contains(set, i) }
	}
	for _, c := range []struct {
		cur  int
		ok   []int
		want int
	}{
		{cur: 1, ok: []int{0, 1}, want: 1}, // sticky
		{cur: 1, ok: []int{0, 2}, want: 0}, // moves to the first
		{cur: -1, ok: []int{2}, want: 2},   // from nowhere
		{cur: 0, ok: nil, want: -1},        // nowhere to go
	} {
		if got := core.Sticky(c.cur, 3, usable(c.ok...)); got != c.want {
			t.Errorf("Sticky(%d, usable %v) = %d, want %d", c.cur, c.ok, got, c.want)
		}
	}
	k := core.New(fence.New(fence.Config{Nodes: []fence.NodeConfig{{Name: "a", Role: fence.Master}, {Name: "b"}, {Name: "c"}}, Map: statemap.Default()}), nil)
	if got := k.Route(2, usable(0, 2)); got != 2 {
		t.Errorf("the core's default routing from 2 = %d, want 2 (Sticky)", got)
	}
	k.SetRouter(func(cur, n int, ok func(int) bool) int { return n - 1 })
	if got := k.Route(0, usable(0)); got != 2 {
		t.Errorf("a router given to the core is not asked: got %d", got)
	}
}

// TestTopologyRepointsTheReplicas: a failover repoints the replicas, not a master failed over
// before and not recovered since; once recovered, it is repointed again; on a partition only
// those that follow the new master are.
func TestTopologyRepointsTheReplicas(t *testing.T) {
	topo := core.NewTopology(4, 0, nil)
	repoint, ok := topo.Decided(&fence.Failover{Node: 0, To: 1}, nil)
	if !ok || !slices.Equal(repoint, []int{2, 3}) {
		t.Fatalf("first failover repoints %v (ok %v), want [2 3]", repoint, ok)
	}
	repoint, _ = topo.Decided(&fence.Failover{Node: 1, To: 2}, nil)
	if !slices.Equal(repoint, []int{3}) {
		t.Fatalf("second failover repoints %v, want [3]: db1 and db2 were failed over", repoint)
	}
	topo.Decided(&fence.NodeRecovered{Node: 0, Role: fence.Replica}, nil)
	repoint, _ = topo.Decided(&fence.Failover{Node: 2, To: 3}, nil)
	if !slices.Equal(repoint, []int{0}) {
		t.Fatalf("after db1's recovery a failover repoints %v, want [0]", repoint)
	}
	if _, ok := topo.Decided(&fence.NodeFailed{Node: 3, Role: fence.Master}, nil); ok || topo.Writes(3) {
		t.Fatalf("a failed master still writes (ok %v)", ok)
	}
	side := core.NewTopology(4, 0, nil)
	from, repoint := side.Promote(0, 1, true, func(j int) bool { return j == 2 }, nil)
	if from != 0 || !slices.Equal(repoint, []int{2}) || !side.Writes(0) {
		t.Fatalf("a partition's failover: from %d, repoint %v, old master writes %v; want 0, [2], true (it goes on)", from, repoint, side.Writes(0))
	}
}
