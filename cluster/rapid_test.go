package cluster

import (
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/group"
	"github.com/failsim/failsim/statemap"
)

// TestClusterStateMachine drives a cluster with rapid: partitions, heals, hosts and managers
// down and up, ticks and the operator's recovers, in any order, on 1-5 nodes and 0-2
// witnesses, checking after every call what the composition must keep: the engine's
// coordinators are the group's, running and primary; each node reads its own side's copy; a
// fence comes only from a coordinator of a primary view; the writable set and the split-brain
// windows agree; and once the network is whole and every host and manager up, a few ticks
// leave one view, one copy and at most one writable master.
func TestClusterStateMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 5).Draw(t, "nodes")
		w := rapid.IntRange(0, 2).Draw(t, "witnesses")
		cfg := Config{Witnesses: w, GapThreshold: rapid.IntRange(1, 4).Draw(t, "gap"), FailsafeThreshold: rapid.IntRange(1, 4).Draw(t, "failsafe")}
		nodes := make([]fence.NodeConfig, n)
		for i := range nodes {
			nodes[i].Name = string(rune('a' + i))
		}
		nodes[0].Role = fence.Master
		e := fence.New(fence.Config{Nodes: nodes, Map: statemap.Default()})
		var (
			c       *Cluster
			primary []group.Set
			open    bool
		)
		emit := func(ev act.Event) {
			switch ev := ev.(type) {
			case *GroupState:
				primary = append(primary[:0], ev.Primary...)
			case *SplitBrain:
				if ev.Open == open {
					t.Fatalf("a split-brain window %v twice", ev.Open)
				}
				open = ev.Open
			case *fence.AlarmExpired:
				coordinates(t, primary, ev.Coordinator)
			case *HostPingFailed:
				coordinates(t, primary, ev.Coordinator)
			}
		}
		c = New(e, cfg, 0, emit)
		for i := range n {
			e.Probe(0, i, statemap.OK)
		}
		for _, ev := range e.Ready() {
			emit(ev)
		}
		members := n + w
		now := time.Duration(0)
		check := func() {
			for i := range n {
				k := e.CoordinatorOf(i)
				if !e.Node(i).ManagerUp {
					continue
				}
				if g := c.Group().Coordinator(i); k != -1 && k != g {
					t.Fatalf("node %d: engine coordinator %d, group %d", i, k, g)
				}
				if k >= 0 && (!c.Running(k) || !c.Group().Primary(k)) {
					t.Fatalf("node %d's coordinator %d is not a running primary manager", i, k)
				}
			}
			if c.Writable().Len() >= 2 != open {
				t.Fatalf("writable %v, window open %v", c.Writable(), open)
			}
		}
		t.Repeat(map[string]func(*rapid.T){
			"partition": func(t *rapid.T) {
				seg := make([]int, members)
				for m := range seg {
					seg[m] = rapid.IntRange(0, 2).Draw(t, "segment")
				}
				c.Partition(now, seg)
			},
			"heal": func(t *rapid.T) { c.Partition(now, nil) },
			"host": func(t *rapid.T) {
				m := rapid.IntRange(0, members-1).Draw(t, "member")
				if rapid.Bool().Draw(t, "down") {
					c.HostDown(now, m)
				} else {
					c.HostUp(now, m)
				}
			},
			"manager": func(t *rapid.T) {
				m := rapid.IntRange(0, members-1).Draw(t, "member")
				if rapid.Bool().Draw(t, "down") {
					c.ManagerStop(now, m)
				} else {
					c.ManagerStart(now, m)
				}
			},
			"tick": func(t *rapid.T) {
				now = (now/(10*time.Second) + 1) * 10 * time.Second
				c.Tick(now)
				e.Tick(now)
				for _, ev := range e.Ready() {
					emit(ev)
				}
				c.Engined(now)
			},
			"recover": func(t *rapid.T) {
				e.Recover(now, rapid.IntRange(0, n-1).Draw(t, "node"))
				for _, ev := range e.Ready() {
					emit(ev)
				}
				c.Engined(now)
			},
			"": func(t *rapid.T) { check() },
		})
		// Whole again: one network, every host and manager up, enough ticks to settle.
		c.Partition(now, nil)
		for m := range members {
			c.HostUp(now, m)
			c.ManagerStart(now, m)
		}
		for range cfg.GapThreshold + cfg.FailsafeThreshold + 2 {
			now = (now/(10*time.Second) + 1) * 10 * time.Second
			c.Tick(now)
		}
		check()
		if sides := c.Group().Sides(); len(sides) != 1 {
			t.Fatalf("whole again, %d sides", len(sides))
		}
		for i := range n {
			if e.CopyOf(i) != e.CopyOf(0) {
				t.Fatalf("whole again, node %d holds copy %d, node 0 copy %d", i, e.CopyOf(i), e.CopyOf(0))
			}
		}
		if c.Writable().Len() > 1 {
			t.Fatalf("whole again, %v writable", c.Writable())
		}
	})
}

// coordinates fails unless coord is the coordinator (first member) of one of the primary views.
func coordinates(t *rapid.T, primary []group.Set, coord int) {
	for _, v := range primary {
		if v.First() == coord {
			return
		}
	}
	t.Fatalf("a fence by %d, which coordinates none of the primary views %v", coord, primary)
}
