package check

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/faultmodel"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/narrate"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// drawMap draws a statemap: the defaults with some conditions remapped to any state, a
// threshold from -1 to 4 and any action.
func drawMap(t *rapid.T) *statemap.Map {
	rules := statemap.Rules{}
	conds := statemap.Conditions()[2:] // never undefined or ok
	for range rapid.IntRange(0, 6).Draw(t, "remapped") {
		c := rapid.SampledFrom(conds).Draw(t, "condition")
		rules[c] = statemap.Rule{
			State:     statemap.State(rapid.IntRange(0, 4).Draw(t, "state")),
			Threshold: rapid.IntRange(-1, 4).Draw(t, "threshold"),
			Action:    statemap.Action(rapid.IntRange(0, 2).Draw(t, "action")),
			Source:    "drawn",
		}
	}
	return statemap.New(rules, mustRules(statemap.Default()))
}

// mustRules is the default map as a layer.
func mustRules(m *statemap.Map) statemap.Rules {
	r := statemap.Rules{}
	for _, c := range statemap.Conditions() {
		r[c] = m.Rule(c)
	}
	return r
}

func drawNodes(t *rapid.T) []fence.NodeConfig { return drawCluster(t, 1, 5) }

// drawCluster draws lo to hi nodes named db1, db2, ..., one of them, at random, the master.
func drawCluster(t *rapid.T, lo, hi int) []fence.NodeConfig {
	n := rapid.IntRange(lo, hi).Draw(t, "nodes")
	master := rapid.IntRange(0, n-1).Draw(t, "master")
	var nodes []fence.NodeConfig
	for i := range n {
		role := fence.Replica
		if i == master {
			role = fence.Master
		}
		nodes = append(nodes, fence.NodeConfig{Name: "db" + strconv.Itoa(i+1), Role: role})
	}
	return nodes
}

// checkInvariants checks what must hold of the engine after every step. coords are the
// coordinators the group last told it (nil before any: single-view mode).
func checkInvariants(t *rapid.T, e *fence.Engine, coords []int) {
	firstUp := -1
	var buf []fence.AlarmView
	mastersOf := map[int]int{} // per copy: the masters in service among its holders' entries
	for i := range e.Len() {
		v := e.Node(i)
		if v.Role == fence.Master && !v.Failed {
			mastersOf[e.CopyOf(i)]++
		}
		if v.ManagerUp && firstUp < 0 {
			firstUp = i
		}
		if v.Shunned && !v.Failed {
			t.Fatalf("%s is shunned but in service", v.Name)
		}
		if v.Failsafe && !v.Shunned {
			t.Fatalf("%s is failsafe-shunned but not shunned", v.Name)
		}
		if w := v.Role == fence.Master && !v.Failed && !v.Shunned; e.Writable(i) != w {
			t.Fatalf("%s: Writable = %v, but it is %s, failed %v, shunned %v", v.Name, e.Writable(i), v.Role, v.Failed, v.Shunned)
		}
		if e.Writable(i) && e.MasterOf(i) != i {
			t.Fatalf("%s is writable, but its side's copy says the master is %d", v.Name, e.MasterOf(i))
		}
		if k := e.CoordinatorOf(i); coords != nil && v.ManagerUp && k >= 0 && (e.CoordinatorOf(k) != k || !e.Node(k).ManagerUp) {
			t.Fatalf("%s's coordinator %d is not a running coordinator of its own view (its own is %d)", v.Name, k, e.CoordinatorOf(k))
		}
		buf = e.Alarms(buf[:0], i)
		if v.LastOK && len(buf) > 0 {
			t.Fatalf("self-heal: %s's last probe was ok but it has %d alarms", v.Name, len(buf))
		}
		if e.Policy() == fence.Maintenance && len(buf) > 0 {
			t.Fatalf("maintenance: %s has %d alarms", v.Name, len(buf))
		}
		seen := map[statemap.Condition]bool{}
		for _, a := range buf {
			if seen[a.Condition] {
				t.Fatalf("%s has two %s alarms", v.Name, a.Condition)
			}
			seen[a.Condition] = true
			if a.Threshold >= 0 && a.Count >= a.Threshold && e.CoordinatorOf(i) >= 0 {
				t.Fatalf("%s's %s alarm is due (%d of %d) with coordinator %d, yet still active", v.Name, a.Condition, a.Count, a.Threshold, e.CoordinatorOf(i))
			}
		}
	}
	for c, n := range mastersOf {
		if n > 1 {
			t.Fatalf("%d masters in service in copy %d", n, c)
		}
	}
	want := firstUp
	if coords != nil {
		want = -1
		for _, k := range coords {
			if k >= 0 && (want < 0 || k < want) {
				want = k
			}
		}
	}
	if e.Coordinator() != want {
		t.Fatalf("coordinator %d, want %d (the first manager up, or the least coordinator the group gave)", e.Coordinator(), want)
	}
	if m := e.Master(); m >= 0 && (e.Node(m).Role != fence.Master || e.Node(m).Failed) {
		t.Fatalf("Master() = %d, which is not a master in service", m)
	}
	if len(mastersOf) == 0 && e.Master() >= 0 {
		t.Fatalf("Master() = %d with no master in service", e.Master())
	}
}

// checkCopies checks that the engine's view of each node is the reference's, and that every
// copy of the cluster's state the reference holds has at most one master in service.
func checkCopies(t *rapid.T, e *fence.Engine, ref *refEngine) {
	for i := range e.Len() {
		v, m := e.Node(i), ref.member(i)
		if v.Role != m.Role || v.Failed != m.Failed || v.Shunned != m.Shunned || v.Failsafe != m.Failsafe || e.CopyOf(i) != ref.copyOf[i] {
			t.Fatalf("%s: the engine says %+v in copy %d, the reference %+v in copy %d", v.Name, v, e.CopyOf(i), *m, ref.copyOf[i])
		}
	}
	for c, cl := range ref.copies {
		n := 0
		for _, m := range cl {
			if m.Role == fence.Master && !m.Failed {
				n++
			}
		}
		if n > 1 {
			t.Fatalf("copy %d holds %d masters in service: %+v", c, n, cl)
		}
	}
}

// checkEvents checks the events of one step: at its time, and every fence decided by a
// coordinator whose manager is up and, in group mode, that coordinates its own view; a
// promotion only of a replica of the acting coordinator's view whose manager is up. acting is
// the coordinator the step itself names (a host ping's), -1 for none.
func checkEvents(t *rapid.T, e *fence.Engine, evs []act.Event, now time.Duration, group bool, acting int) {
	for _, ev := range evs {
		if ev.When() != now {
			t.Fatalf("an event at %v in a step at %v", ev.When(), now)
		}
		switch ev := ev.(type) {
		case *fence.AlarmExpired:
			acting = ev.Coordinator
			if !e.Node(acting).ManagerUp || (group && e.CoordinatorOf(acting) != acting) {
				t.Fatalf("%v: node %d fenced by %d, which is not a running coordinator", ev.At, ev.Node, acting)
			}
		case *fence.Failover:
			if acting < 0 || !e.Node(ev.To).ManagerUp || (group && e.CoordinatorOf(ev.To) != acting) {
				t.Fatalf("%v: node %d promoted, outside the view of the acting coordinator %d", ev.At, ev.To, acting)
			}
		}
	}
}

// TestEngineStateMachine drives fence.Engine and the reference model with the same random
// calls, checks the invariants after every step and that both decided the same events. Beside
// the probes, ticks, policies, managers and recovers it draws the group's inputs as package
// cluster makes them: coordinators per node (each view's first manager up, or none), copies
// forked, merged and handed to the nodes, host failures found by a coordinator, failsafe
// shuns.
func TestEngineStateMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes := drawNodes(t)
		m := drawMap(t)
		policy := fence.Policy(rapid.IntRange(0, 2).Draw(t, "policy"))
		cfg := fence.Config{Nodes: nodes, Map: m, Policy: policy}
		e, ref := fence.New(cfg), newRefEngine(cfg)
		names := (&timeline.Timeline{Nodes: nodes}).Names()
		var now, last time.Duration
		node := rapid.IntRange(0, len(nodes)-1)
		conds := statemap.Conditions()
		var coords []int // as last told; nil before any: single-view mode
		copies := 1      // the copies made so far
		acting := -1
		setCoords := func(cs []int) {
			coords = slices.Clone(cs)
			e.Step(now, fence.SetCoordinators{Coordinators: slices.Clone(cs)})
			ref.setCoordinators(now, cs)
		}
		t.Repeat(map[string]func(*rapid.T){
			"wait": func(t *rapid.T) {
				now += time.Duration(rapid.IntRange(0, 15).Draw(t, "seconds")) * time.Second
			},
			"probe ok": func(t *rapid.T) {
				i := node.Draw(t, "node")
				e.Probe(now, i, statemap.OK)
				ref.probe(now, i, statemap.OK)
			},
			"probe bad": func(t *rapid.T) {
				i, c := node.Draw(t, "node"), rapid.SampledFrom(conds[2:]).Draw(t, "condition")
				e.Probe(now, i, c)
				ref.probe(now, i, c)
			},
			"tick": func(t *rapid.T) {
				e.Tick(now)
				ref.tick(now)
			},
			"ticks": func(t *rapid.T) {
				// Several ticks at once, as a driver that skips the ticks deciding nothing
				// accounts for them: never past the one at which an alarm expires.
				n := int64(rapid.IntRange(1, 12).Draw(t, "ticks"))
				if left, ok := e.TicksToExpiry(); ok {
					n = min(n, left)
				}
				e.Ticks(now, n)
				for range n {
					ref.tick(now)
				}
			},
			"policy": func(t *rapid.T) {
				p := fence.Policy(rapid.IntRange(0, 2).Draw(t, "policy"))
				e.SetPolicy(now, p)
				ref.setPolicy(now, p)
			},
			"manager": func(t *rapid.T) {
				i, up := node.Draw(t, "node"), rapid.Bool().Draw(t, "up")
				e.SetManager(now, i, up)
				ref.setManager(now, i, up)
				if coords == nil {
					return
				}
				// As the group does: a manager that is down has no view, and a view whose
				// coordinator went down has none until the group concludes anew.
				cs := slices.Clone(coords)
				for j, k := range cs {
					if k >= 0 && (!e.Node(j).ManagerUp || !e.Node(k).ManagerUp) {
						cs[j] = -1
					}
				}
				setCoords(cs)
			},
			"recover": func(t *rapid.T) {
				i := node.Draw(t, "node")
				e.Recover(now, i)
				ref.recover(now, i)
			},
			"coordinators": func(t *rapid.T) {
				// The managers up fall into views; each view is primary or not, and a primary
				// view's coordinator is its first member.
				label := make([]int, len(nodes))
				primary := []bool{rapid.Bool().Draw(t, "primary"), rapid.Bool().Draw(t, "primary"), rapid.Bool().Draw(t, "primary")}
				cs := make([]int, len(nodes))
				for i := range cs {
					label[i] = rapid.IntRange(0, 2).Draw(t, "view")
					cs[i] = -1
					if !e.Node(i).ManagerUp || !primary[label[i]] {
						continue
					}
					for k := range i + 1 {
						if e.Node(k).ManagerUp && label[k] == label[i] {
							cs[i] = k
							break
						}
					}
				}
				setCoords(cs)
			},
			"fork": func(t *rapid.T) {
				if coords == nil || copies >= 8 {
					t.Skip("no group, or copies enough")
				}
				from := rapid.IntRange(0, copies-1).Draw(t, "from")
				held := map[int]bool{}
				for i := range nodes {
					held[e.CopyOf(i)] = true
				}
				to := []int{copies}
				for c := range copies {
					if !held[c] {
						to = append(to, c)
					}
				}
				c := rapid.SampledFrom(to).Draw(t, "copy")
				e.Step(now, fence.Fork{Copy: c, From: from})
				ref.fork(now, c, from)
				if c == copies {
					copies++
				}
			},
			"merge": func(t *rapid.T) {
				if coords == nil || copies < 2 {
					t.Skip("no group, or one copy")
				}
				sources := rapid.SliceOfNDistinct(rapid.IntRange(0, copies-1), 2, 3, rapid.ID[int]).Draw(t, "sources")
				adopted := rapid.IntRange(0, len(sources)-1).Draw(t, "adopted")
				c := sources[adopted]
				if rapid.Bool().Draw(t, "new") {
					c = copies
					copies++
				}
				e.Step(now, fence.MergeCopies{Copy: c, Sources: slices.Clone(sources), Adopted: adopted})
				ref.mergeCopies(now, c, sources, adopted)
			},
			"copies": func(t *rapid.T) {
				if coords == nil {
					t.Skip("no group")
				}
				cs := make([]int, len(nodes))
				for i := range cs {
					cs[i] = rapid.IntRange(0, copies-1).Draw(t, "copy")
				}
				e.Step(now, fence.SetCopies{CopyOf: slices.Clone(cs)})
				ref.setCopies(now, cs)
			},
			"host failed": func(t *rapid.T) {
				var cs []int
				for k, c := range coords {
					if c == k {
						cs = append(cs, k)
					}
				}
				if len(cs) == 0 {
					t.Skip("no coordinator")
				}
				k, i := rapid.SampledFrom(cs).Draw(t, "coordinator"), node.Draw(t, "node")
				acting = k
				e.Step(now, fence.HostFailed{Coordinator: k, Node: i})
				ref.hostFailed(now, k, i)
			},
			"failsafe": func(t *rapid.T) {
				if coords == nil {
					t.Skip("no group")
				}
				i, n := node.Draw(t, "node"), rapid.IntRange(1, 5).Draw(t, "ticks")
				e.Step(now, fence.FailsafeShun{Node: i, Ticks: n})
				ref.failsafeShun(now, i, n)
			},
			"": func(t *rapid.T) {
				got, want := keepAll(e.Ready()), ref.take()
				if _, ok := firstDiff(got, want); !ok {
					t.Fatalf("the engine and the reference model differ:\nengine:    %s\nreference: %s", describe(names, got), describe(names, want))
				}
				if now < last {
					t.Fatalf("time went back from %v to %v", last, now)
				}
				last = now
				checkEvents(t, e, got, now, coords != nil, acting)
				acting = -1
				checkInvariants(t, e, coords)
				checkCopies(t, e, ref)
				gotN, gotOK := e.TicksToExpiry()
				if wantN, wantOK := ref.ticksToExpiry(); gotN != wantN || gotOK != wantOK {
					t.Fatalf("TicksToExpiry = %d, %v; the reference model says %d, %v", gotN, gotOK, wantN, wantOK)
				}
			},
		})
	})
}

func describe(names []string, evs []act.Event) string {
	s := ""
	for _, ev := range evs {
		switch ev.(type) {
		case *refPing, *refSplit:
			s += fmt.Sprintf("\n  %v %T%+v", ev.When(), ev, ev)
		default:
			s += fmt.Sprintf("\n  %v %s", ev.When(), narrate.Describe(names, ev))
		}
	}
	return s
}

// keep returns a copy of ev that outlives the observer's call: the engine and the replay
// reuse what they hand out.
func keep(ev act.Event) act.Event {
	switch ev := ev.(type) {
	case fence.Decision:
		return fence.Clone(ev)
	case *act.FaultSet:
		c := *ev
		return &c
	case *cluster.HostPingFailed:
		return &refPing{At: ev.At, Coordinator: ev.Coordinator, Member: ev.Member, Count: ev.Count}
	case *cluster.SplitBrain:
		return &refSplit{At: ev.At, Open: ev.Open, Writable: ev.Writable.Members(), From: ev.From}
	case *cluster.SplitBrainWidened:
		return &refSplit{At: ev.At, Open: true, Widened: true, Writable: ev.Writable.Members(), From: ev.From}
	}
	panic(fmt.Sprintf("an event of type %T", ev))
}

// keepAll keeps every decision of a Ready batch, as events.
func keepAll(ds []fence.Decision) []act.Event {
	out := make([]act.Event, len(ds))
	for i, d := range ds {
		out[i] = keep(d)
	}
	return out
}

// eventRecorder is an observer that keeps every event.
type eventRecorder struct{ evs []act.Event }

// Event keeps the engine's decisions, the driver's notes, and of the group's own events
// (package cluster's) the unanswered host pings and the split-brain windows. The others are
// left out on purpose: the group's narration of view and quorum changes (ViewChanged,
// QuorumChanged: how managers are grouped into one line is the printer's business, and what
// the views decide, the coordinators, fences, shuns and merges, is in the engine's decisions
// compared), the script's own notes (HostChanged, Partitioned) and GroupState, a note for
// observers that is no event of the log.
func (r *eventRecorder) Event(ev act.Event) {
	switch ev.(type) {
	case fence.Decision, *act.FaultSet, *cluster.HostPingFailed, *cluster.SplitBrain, *cluster.SplitBrainWidened:
		r.evs = append(r.evs, keep(ev))
	}
}

// diffReplay replays tl with sim.Replay and with the reference model, one second at a time,
// and fails on the first event where they differ.
func diffReplay(t interface{ Fatalf(string, ...any) }, tl *timeline.Timeline, m *statemap.Map) {
	var rec eventRecorder
	sim.Replay(tl, m, &rec)
	want := refReplay(tl, m, true)
	if i, ok := firstDiff(rec.evs, want); !ok {
		lo := max(0, i-5)
		t.Fatalf("sim.Replay and the reference differ at event %d:\nreplay:    %s\nreference: %s\ntimeline:\n%s",
			i, describe(tl.Names(), rec.evs[lo:min(i+3, len(rec.evs))]), describe(tl.Names(), want[lo:min(i+3, len(want))]), Timeline(tl, nil, ""))
	}
}

// firstDiff returns the index of the first event where a and b differ, by value, and whether
// they are the same.
func firstDiff(a, b []act.Event) (int, bool) {
	for i := range min(len(a), len(b)) {
		if !reflect.DeepEqual(a[i], b[i]) {
			return i, false
		}
	}
	return min(len(a), len(b)), len(a) == len(b)
}

// TestReplayMatchesReference: on every family's generated traces, under the shipped and the
// example statemaps, the engine driven by sim.Replay decides exactly the events the reference
// model decides stepping one second at a time.
func TestReplayMatchesReference(t *testing.T) {
	n := 150
	if testing.Short() {
		n = 20
	}
	for _, path := range []string{"", "../conf/examples/aggressive.properties", "../conf/examples/tolerant.properties"} {
		m := loadMap(t, path)
		for _, f := range []Family{Benign, Fatal, Mixed, Partition} {
			g, err := NewGenerator(f, DefaultShape(), m, 0)
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				diffReplay(t, g.Trace(TraceRand(21, i)), m)
			}
		}
	}
}

// drawTimeline draws a timeline freely, one of two kinds: any fault on any node at any second,
// manager and policy changes, recovers, short checker settings; or (drawGroupTimeline) the
// managers as a group under partitions, host crashes and manager churn. Every time is a whole
// second.
func drawTimeline(t *rapid.T) *timeline.Timeline {
	if rapid.Bool().Draw(t, "group") {
		return drawGroupTimeline(t)
	}
	return drawPlainTimeline(t)
}

// drawPlainTimeline draws a timeline with no group statement: what the live runtime runs.
func drawPlainTimeline(t *rapid.T) *timeline.Timeline {
	tl := &timeline.Timeline{
		File:     "drawn",
		Nodes:    drawNodes(t),
		Interval: time.Duration(rapid.IntRange(1, 6).Draw(t, "interval")) * time.Second,
		Timeout:  time.Duration(rapid.IntRange(1, 8).Draw(t, "timeout")) * time.Second,
		Policy:   fence.Policy(rapid.IntRange(0, 2).Draw(t, "policy")),
		Start:    time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	faults := append(slices.Clone(candidates), fault.Fault{}, fault.Fault{Kind: fault.Slow, Delay: 2 * time.Second}, fault.Fault{Kind: fault.Slow, Delay: 9 * time.Second},
		fault.Fault{Kind: fault.Probe, Condition: "undefined"}) // a condition like any other
	var at time.Duration
	for range rapid.IntRange(0, 25).Draw(t, "events") {
		at += time.Duration(rapid.IntRange(0, 60).Draw(t, "gap")) * time.Second
		ev := timeline.Event{At: at, Node: rapid.IntRange(0, len(tl.Nodes)-1).Draw(t, "node")}
		switch rapid.IntRange(0, 9).Draw(t, "kind") {
		case 0:
			ev.Kind = timeline.ManagerDown
		case 1:
			ev.Kind = timeline.ManagerUp
		case 2:
			ev.Kind, ev.Node, ev.Policy = timeline.SetPolicy, -1, fence.Policy(rapid.IntRange(0, 2).Draw(t, "policy"))
		case 3:
			ev.Kind = timeline.Recover
		default:
			ev.Kind, ev.Fault = timeline.SetFault, rapid.SampledFrom(faults).Draw(t, "fault")
		}
		tl.Events = append(tl.Events, ev)
	}
	tl.End = at + time.Duration(rapid.IntRange(0, 300).Draw(t, "tail"))*time.Second
	return tl
}

// drawGroupTimeline draws a timeline of the managers as a group: 2-6 nodes and 0-2 witnesses,
// liveness thresholds of 1-5 ticks (or the defaults), and among faults, policy changes and
// recovers, partitions (isolating the master, a replica or a witness, splitting the members at
// random, flapping: cuts and heals seconds apart), heals, host crashes and restarts, and
// managers stopping and starting, of any member.
func drawGroupTimeline(t *rapid.T) *timeline.Timeline {
	nodes := drawCluster(t, 2, 6)
	n := len(nodes)
	master := slices.IndexFunc(nodes, func(c fence.NodeConfig) bool { return c.Role == fence.Master })
	tl := &timeline.Timeline{
		File:      "drawn",
		Nodes:     nodes,
		Witnesses: []string{"w1", "w2"}[:rapid.IntRange(0, 2).Draw(t, "witnesses")],
		Interval:  time.Duration(rapid.IntRange(1, 6).Draw(t, "interval")) * time.Second,
		Timeout:   time.Duration(rapid.IntRange(1, 8).Draw(t, "timeout")) * time.Second,
		Policy:    fence.Policy(rapid.SampledFrom([]int{0, 0, 0, 1, 2}).Draw(t, "policy")),
		Start:     time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC),
		Family:    Partition.String(),
	}
	if rapid.Bool().Draw(t, "liveness") {
		tl.GapThreshold = rapid.IntRange(1, 5).Draw(t, "gap-threshold")
		tl.FailsafeThreshold = rapid.IntRange(1, 5).Draw(t, "failsafe-threshold")
	}
	members := n + len(tl.Witnesses)
	faults := append(slices.Clone(candidates), fault.Fault{}, fault.Fault{Kind: fault.Probe, Condition: "undefined"})
	var at time.Duration
	add := func(ev timeline.Event) { ev.At = at; tl.Events = append(tl.Events, ev) }
	split := func(alone ...int) []int {
		seg := make([]int, members)
		for _, m := range alone {
			seg[m] = 1
		}
		return seg
	}
	for range rapid.IntRange(0, 20).Draw(t, "events") {
		at += time.Duration(rapid.IntRange(0, 90).Draw(t, "gap")) * time.Second
		member := rapid.IntRange(0, members-1).Draw(t, "member")
		node := rapid.IntRange(0, n-1).Draw(t, "node")
		switch rapid.IntRange(0, 12).Draw(t, "kind") {
		case 0:
			add(timeline.Event{Kind: timeline.Partition, Node: -1, Segments: split(master)})
		case 1:
			add(timeline.Event{Kind: timeline.Partition, Node: -1, Segments: split(node)})
		case 2: // isolate a witness, or any member
			if members > n {
				member = n + rapid.IntRange(0, members-n-1).Draw(t, "witness")
			}
			add(timeline.Event{Kind: timeline.Partition, Node: -1, Segments: split(member)})
		case 3: // any split, into up to three segments
			seg := make([]int, members)
			for m := range seg {
				seg[m] = rapid.IntRange(0, 2).Draw(t, "segment")
			}
			add(timeline.Event{Kind: timeline.Partition, Node: -1, Segments: seg})
		case 4: // a flapping switch
			for range rapid.IntRange(1, 4).Draw(t, "flaps") {
				add(timeline.Event{Kind: timeline.Partition, Node: -1, Segments: split(member)})
				at += time.Duration(rapid.IntRange(1, 15).Draw(t, "cut")) * time.Second
				add(timeline.Event{Kind: timeline.Partition, Node: -1})
				at += time.Duration(rapid.IntRange(1, 15).Draw(t, "mended")) * time.Second
			}
		case 5:
			add(timeline.Event{Kind: timeline.Partition, Node: -1})
		case 6:
			add(timeline.Event{Kind: timeline.HostDown, Node: member})
		case 7:
			add(timeline.Event{Kind: timeline.HostUp, Node: member})
		case 8:
			add(timeline.Event{Kind: timeline.ManagerDown, Node: member})
		case 9:
			add(timeline.Event{Kind: timeline.ManagerUp, Node: member})
		case 10:
			add(timeline.Event{Kind: timeline.Recover, Node: node})
		case 11:
			add(timeline.Event{Kind: timeline.SetPolicy, Node: -1, Policy: fence.Policy(rapid.IntRange(0, 2).Draw(t, "policy"))})
		default:
			add(timeline.Event{Kind: timeline.SetFault, Node: node, Fault: rapid.SampledFrom(faults).Draw(t, "fault")})
		}
	}
	tl.End = at + time.Duration(rapid.IntRange(0, 300).Draw(t, "tail"))*time.Second
	return tl
}

// TestReplayMatchesReferenceRapid: the same differential test on timelines rapid draws freely
// under a drawn statemap, shrunk by rapid on failure.
func TestReplayMatchesReferenceRapid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tl, m := drawTimeline(t), drawMap(t)
		diffReplay(t, tl, m)
	})
}

// TestPropertiesHoldUnderAnyStatemap: whatever the statemap, the engine keeps the safety
// properties on every family and fences every fatal fault within the statemap's own promise.
// (no-false-failover is left out: whether a stall or too many connections should fail over is
// the statemap's choice, which is what failsim check reports on.)
func TestPropertiesHoldUnderAnyStatemap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := drawMap(t)
		seed := rapid.Uint64().Draw(t, "seed")
		for _, f := range []Family{Benign, Fatal, Mixed} {
			specs := f.Defaults()
			if f == Benign {
				specs = specs[1:] // no-false-failover depends on what the statemap fences
			}
			cfg := Config{Map: m, Family: f, Properties: specs, Shape: Shape{Nodes: 4, Length: 30 * time.Minute, Interval: 3 * time.Second, Timeout: 5 * time.Second}, Traces: 20, Seed: seed, Workers: 1}
			if cfg.Validate() != nil {
				continue // a statemap that fences nothing makes no fatal trace
			}
			res, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range res.Violations {
				t.Fatalf("%s: %s in trace %d: %s\nshrunk: %s\n%s", f, v.Property, v.Trace, v.Why, v.ShrunkWhy, Timeline(v.Shrunk, nil, "", v.Property))
			}
		}
	})
}

// TestBlipsStayBenign: a blip as long as the generator makes it, of any fault the statemap
// fences, at any phase of the probes and the timekeeper, never fences the master.
func TestBlipsStayBenign(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := drawMap(t)
		shape := Shape{Nodes: 2, Length: 10 * time.Minute, Interval: time.Duration(rapid.IntRange(1, 6).Draw(t, "interval")) * time.Second, Timeout: time.Duration(rapid.IntRange(1, 8).Draw(t, "timeout")) * time.Second}
		g, err := NewGenerator(Benign, shape, m, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(g.blips) == 0 {
			t.Skip("the statemap fences nothing that tolerates a blip")
		}
		b := rapid.SampledFrom(g.blips).Draw(t, "blip")
		start := time.Duration(rapid.IntRange(0, 120).Draw(t, "start")) * time.Second
		tl := &timeline.Timeline{File: "blip", Nodes: g.nodes, Interval: shape.Interval, Timeout: shape.Timeout, End: shape.Length,
			Events: []timeline.Event{{At: start, Kind: timeline.SetFault, Node: 0, Fault: b.f}, {At: start + b.max, Kind: timeline.SetFault, Node: 0}}}
		if at := firstFailover(tl, m); at != never {
			t.Fatalf("a %s blip of %s (threshold %d) fenced the master at %s\n%s", b.f, b.max, m.Rule(faultmodel.Predict(b.f, shape.Timeout).Condition).Threshold, at, Timeline(tl, nil, ""))
		}
	})
}
