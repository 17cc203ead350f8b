package check

import (
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// never stands for "no failover" in comparisons of failover times.
const never = time.Duration(1<<63 - 1)

// fenceRecorder keeps the first time a master was fenced.
type fenceRecorder struct{ first time.Duration }

func (r *fenceRecorder) Event(ev act.Event) {
	if r.first != never {
		return
	}
	switch ev := ev.(type) {
	case *fence.Failover, *fence.NoCandidate:
		r.first = ev.When()
	case *fence.NodeFailed:
		if ev.Role == fence.Master {
			r.first = ev.At
		}
	}
}

// firstFailover replays tl under m and returns when a master was first fenced, never if not.
func firstFailover(tl *timeline.Timeline, m *statemap.Map) time.Duration {
	r := &fenceRecorder{first: never}
	sim.Replay(tl, m, r)
	return r.first
}

// drawTrace draws a trace: a freely drawn timeline, or a generated trace of a family.
func drawTrace(t *rapid.T, m *statemap.Map) *timeline.Timeline {
	if rapid.Bool().Draw(t, "free") {
		return drawTimeline(t)
	}
	f := Family(rapid.IntRange(0, 2).Draw(t, "family"))
	shape := Shape{Nodes: rapid.IntRange(1, 5).Draw(t, "nodes"), Length: 30 * time.Minute, Interval: 3 * time.Second, Timeout: 5 * time.Second}
	g, err := NewGenerator(f, shape, m, 0)
	if err != nil {
		g, _ = NewGenerator(Benign, shape, m, 0)
	}
	return g.Trace(TraceRand(rapid.Uint64().Draw(t, "seed"), 0))
}

// remap returns m with condition c's rule changed by fn.
func remap(m *statemap.Map, c statemap.Condition, fn func(*statemap.Rule)) *statemap.Map {
	r := m.Rule(c)
	fn(&r)
	return statemap.New(statemap.Rules{c: r}, mustRules(m))
}

func at(d time.Duration) string {
	if d == never {
		return "never"
	}
	return d.String()
}

// TestRaisingAThresholdNeverFailsOverEarlier: the same trace under a statemap whose one
// threshold is raised (to a higher count, or to -1, never) fails over no earlier, if at all.
func TestRaisingAThresholdNeverFailsOverEarlier(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := drawMap(t)
		tl := drawTrace(t, m)
		c := rapid.SampledFrom(statemap.Conditions()[2:]).Draw(t, "condition")
		old := m.Rule(c).Threshold
		if old < 0 {
			t.Skip("threshold -1 cannot be raised")
		}
		raised := rapid.IntRange(old+1, old+10).Draw(t, "raised")
		if rapid.Bool().Draw(t, "never") {
			raised = -1
		}
		m2 := remap(m, c, func(r *statemap.Rule) { r.Threshold = raised })
		if a, b := firstFailover(tl, m), firstFailover(tl, m2); b < a {
			t.Fatalf("raising %s's threshold from %d to %d made the first failover earlier: %s, was %s\n%s", c, old, raised, at(b), at(a), Timeline(tl, nil, ""))
		}
	})
}

// TestMilderActionNeverAddsAFailover: fail, then alert, then none: making one condition's
// action milder never brings a failover earlier, nor makes one where there was none.
func TestMilderActionNeverAddsAFailover(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := drawMap(t)
		tl := drawTrace(t, m)
		c := rapid.SampledFrom(statemap.Conditions()[2:]).Draw(t, "condition")
		old := m.Rule(c).Action
		if old == statemap.None {
			t.Skip("none is the mildest action")
		}
		milder := statemap.Action(rapid.IntRange(0, int(old)-1).Draw(t, "milder"))
		m2 := remap(m, c, func(r *statemap.Rule) { r.Action = milder })
		if a, b := firstFailover(tl, m), firstFailover(tl, m2); b < a {
			t.Fatalf("making %s's action %s instead of %s made the first failover earlier: %s, was %s\n%s", c, milder, old, at(b), at(a), Timeline(tl, nil, ""))
		}
	})
}

// TestHealingEarlierNeverAddsAFailover: moving a node's last heal earlier (but after the fault
// it heals) never brings a failover earlier, nor makes one where there was none. Only the last
// heal: an earlier one would shift the node's later probes to another phase of the timekeeper,
// which can legitimately move a later fault's expiry by a tick.
func TestHealingEarlierNeverAddsAFailover(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := drawMap(t)
		tl := drawTrace(t, m)
		// The nodes whose last fault event is a heal that follows a fault.
		var heals []int
		for j := range tl.Nodes {
			last, prev := -1, -1
			for k, ev := range tl.Events {
				if ev.Kind == timeline.SetFault && ev.Node == j {
					prev, last = last, k
				}
			}
			if last >= 0 && prev >= 0 && tl.Events[last].Fault.Kind == fault.Heal && tl.Events[prev].Fault.Kind != fault.Heal && tl.Events[last].At > tl.Events[prev].At {
				heals = append(heals, last, prev)
			}
		}
		if len(heals) == 0 {
			t.Skip("no heal to move")
		}
		pick := rapid.IntRange(0, len(heals)/2-1).Draw(t, "heal")
		k, p := heals[2*pick], heals[2*pick+1]
		from, to := tl.Events[p].At, tl.Events[k].At
		earlier := from + time.Duration(rapid.Int64Range(1, int64((to-from)/time.Second)).Draw(t, "after fault"))*time.Second
		tl2 := clone(tl)
		heal := tl2.Events[k]
		heal.At = earlier
		tl2.Events = slices.Delete(tl2.Events, k, k+1)
		i, _ := slices.BinarySearchFunc(tl2.Events, earlier, func(e timeline.Event, t time.Duration) int {
			if e.At <= t {
				return -1
			}
			return 1
		})
		tl2.Events = slices.Insert(tl2.Events, i, heal)
		if a, b := firstFailover(tl, m), firstFailover(tl2, m); b < a {
			t.Fatalf("healing %s at %s instead of %s made the first failover earlier: %s, was %s\n%s", tl.Nodes[heal.Node].Name, earlier, to, at(b), at(a), Timeline(tl, nil, ""))
		}
	})
}
