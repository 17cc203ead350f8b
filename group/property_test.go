package group

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/failsim/failsim/fence"
)

// run is one generated history: a configuration and the group stepped through random networks
// and ticks, with a model of the copies kept as a consumer would keep them.
type run struct {
	g       *Group
	db, wit Set
	net     Net
	copies  map[int]fence.Cluster // by copy number: a one-node cluster whose role marks its origin
	marks   int
}

func drawRun(t *rapid.T) *run {
	nDB := rapid.IntRange(1, 6).Draw(t, "db")
	nW := rapid.IntRange(0, 2).Draw(t, "witnesses")
	cfg := Config{
		GapThreshold:      rapid.IntRange(1, 4).Draw(t, "gap"),
		FailsafeThreshold: rapid.IntRange(1, 4).Draw(t, "failsafe"),
	}
	for i := range nDB + nW {
		cfg.Members = append(cfg.Members, Member{Name: fmt.Sprint("m", i), Witness: i >= nDB})
	}
	// Witnesses go anywhere in cluster order.
	rapid.Permutation(cfg.Members).Draw(t, "order")
	r := &run{g: New(cfg), copies: map[int]fence.Cluster{0: {{}}}}
	r.db, r.wit = r.g.DB(), r.g.Witnesses()
	return r
}

// drawNet is a network: up to three segments, some hosts down, some managers stopped; often
// healthy, so that views heal and merge.
func drawNet(t *rapid.T, n int) Net {
	if rapid.IntRange(0, 3).Draw(t, "healthy") == 0 {
		return nil
	}
	net := make(Net, n)
	for i := range net {
		net[i] = Host{
			Segment: rapid.IntRange(0, 2).Draw(t, "segment"),
			Down:    rapid.IntRange(0, 5).Draw(t, "down") == 0,
			Stopped: rapid.IntRange(0, 5).Draw(t, "stopped") == 0,
		}
	}
	return net
}

// TestGroupProperties steps random histories and checks the invariants after every step.
func TestGroupProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := drawRun(t)
		r.invariants(t, nil, true, false)
		at := time.Duration(0)
		for range rapid.IntRange(1, 60).Draw(t, "steps") {
			at += time.Duration(rapid.IntRange(1, 10).Draw(t, "dt")) * time.Second
			if rapid.IntRange(0, 2).Draw(t, "what") == 0 {
				was := r.g.Running()
				r.net = drawNet(t, r.g.Members())
				r.g.Step(at, SetNet{Net: r.net})
				// Only a stop or a start changes views and checks quorum at once.
				checked := r.g.Running()&^was != 0
				for m := range (was &^ r.g.Running()).All() {
					checked = checked || !r.host(m).Down
				}
				r.invariants(t, r.g.Ready(), checked, false)
				continue
			}
			steady := r.g.Steady()
			r.g.Step(at, Tick{})
			ds := r.g.Ready()
			if steady && len(ds) > 0 {
				t.Fatalf("a steady group decided %v", ds)
			}
			r.invariants(t, ds, true, true)
		}
	})
}

func (r *run) host(i int) Host {
	if r.net == nil {
		return Host{}
	}
	return r.net[i]
}

func (r *run) hears(m, x int) bool {
	hm, hx := r.host(m), r.host(x)
	return hx.running() && hm.Segment == hx.Segment
}

// invariants checks the group after a step. checked: the step checked quorum (a tick, a stop or
// a start); between checks the conclusions are those of the last one, and a manager that
// crashed since may still be in a view, even coordinate it (the others see it silent at the
// next tick).
func (r *run) invariants(t *rapid.T, ds []Decision, checked, tick bool) {
	g := r.g
	for m := range g.Members() {
		up := r.host(m).running()
		if g.Up(m) != up {
			t.Fatalf("m%d up %v, its host %+v", m, g.Up(m), r.host(m))
		}
		d := g.Digest(m)
		if !up {
			// A manager that is down has no view and is in no partition.
			if g.View(m) != 0 || d.Rule != NoView || g.Coordinator(m) != -1 || g.NonPrimaryTicks(m) != 0 {
				t.Fatalf("down m%d: view %v rule %v", m, g.View(m), d.Rule)
			}
			continue
		}
		if !g.View(m).Has(m) {
			t.Fatalf("m%d not in its own view %v", m, g.View(m))
		}
		// A primary view holds a majority of the database members, or one short plus a
		// witness, or is the one member of the quorum set; its membership is valid: everyone
		// in it runs and hears the manager.
		if d.Primary() && checked {
			vdb, vw, maj := d.ValidatedDB(), d.ValidatedWitnesses(), r.db.Len()/2+1
			single := (r.db|r.wit).Len() == 1 && vdb == 1
			if !(single || vdb >= maj || vdb == maj-1 && vdb+vw >= maj) || d.Validated != d.View || d.View&r.db == 0 {
				t.Fatalf("m%d primary with %+v", m, d)
			}
			for x := range d.View.All() {
				if !r.hears(m, x) {
					t.Fatalf("m%d primary with m%d in its view, unheard", m, x)
				}
			}
		}
		// Never two coordinators in one view: the coordinator of a primary view is its first
		// member, coordinates itself, and everyone in the view shares it.
		if c := g.Coordinator(m); c >= 0 && (checked || g.View(m)&^g.Running() == 0) {
			if c != g.View(m).First() || g.Coordinator(c) != c {
				t.Fatalf("m%d's coordinator m%d coordinates m%d", m, c, g.Coordinator(c))
			}
			for x := range g.View(m).All() {
				if g.View(x) != g.View(m) || g.Coordinator(x) != c {
					t.Fatalf("m%d and m%d in view %v: views %v, coordinators %d %d", m, x, g.View(m), g.View(x), c, g.Coordinator(x))
				}
			}
		}
		// Lockstep: after a tick the managers that hear each other share one view.
		if tick {
			for x := range g.Members() {
				if g.Up(x) && r.hears(m, x) && g.View(x) != g.View(m) {
					t.Fatalf("after a tick m%d and m%d hear each other with views %v and %v", m, x, g.View(m), g.View(x))
				}
			}
		}
		// With no partition and every manager up, after a tick every view is everyone, primary.
		if tick && r.net == nil && (g.View(m) != r.db|r.wit || !d.Primary()) {
			t.Fatalf("healthy network, m%d: view %v, %v", m, g.View(m), d.Rule)
		}
	}
	// One copy per side, a different one for each side.
	sides := g.Sides()
	for i, s := range sides {
		for m := range s.Members.All() {
			if g.Copy(m) != s.Copy || g.View(m) != s.View {
				t.Fatalf("side %+v: m%d holds copy %d, view %v", s, m, g.Copy(m), g.View(m))
			}
		}
		for _, o := range sides[i+1:] {
			if o.Copy == s.Copy {
				t.Fatalf("sides %+v and %+v share a copy", s, o)
			}
		}
	}
	r.decisions(t, ds)
}

// decisions checks what each decision says against the group after the step, and keeps the
// copies as a consumer would: a fork clones, a merge takes the adopted copy, which must be the
// one the adoption rule names.
func (r *run) decisions(t *rapid.T, ds []Decision) {
	g := r.g
	next := maps(r.copies)
	for _, d := range ds {
		switch d := d.(type) {
		case FailsafeShun:
			// A manager that is down shuns nothing; a witness holds no datasource.
			if !g.Up(d.Manager) || !r.db.Has(d.Manager) || g.NonPrimaryTicks(d.Manager) != d.Ticks || g.Primary(d.Manager) {
				t.Fatalf("%+v", d)
			}
		case HostPing:
			if g.Coordinator(d.Coordinator) != d.Coordinator || g.InView(d.Coordinator, d.Member) || !r.db.Has(d.Member) {
				t.Fatalf("%+v from a manager that does not coordinate, or of a member in its view", d)
			}
			h := r.host(d.Member)
			if d.Answered != (!h.Down && h.Segment == r.host(d.Coordinator).Segment) {
				t.Fatalf("%+v, host %+v", d, h)
			}
		case Left, Joined, Silent, HeardAgain, Quorum:
		case Forked:
			c, ok := r.copies[d.From]
			if !ok {
				t.Fatalf("%+v of an unknown copy", d)
			}
			r.marks++
			next[d.Copy] = slices.Clone(c)
		case Merged:
			// The adoption rule, spelled out: the primary side's copy; among several
			// primary sides or none, the side holding the first member.
			want := -1
			for k, s := range d.Sources {
				if _, ok := r.copies[s.Copy]; !ok {
					t.Fatalf("%+v of an unknown copy %d", d, s.Copy)
				}
				if want < 0 || (s.Primary && !d.Sources[want].Primary) ||
					(s.Primary == d.Sources[want].Primary && s.Members.First() < d.Sources[want].Members.First()) {
					want = k
				}
			}
			if d.Adopted != want {
				t.Fatalf("%+v: the adoption rule adopts %d", d, want)
			}
			next[d.Copy] = slices.Clone(r.copies[d.Sources[d.Adopted].Copy])
		default:
			t.Fatalf("unknown decision %T", d)
		}
	}
	r.copies = next
	for m := range g.Members() {
		if _, ok := r.copies[g.Copy(m)]; !ok {
			t.Fatalf("m%d holds copy %d, never made", m, g.Copy(m))
		}
	}
}

func maps(m map[int]fence.Cluster) map[int]fence.Cluster {
	out := make(map[int]fence.Cluster, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestTodaysTimelines: where no witness, partition or host event appears and a majority of the
// managers is always up (managers only stop and start cleanly), every view is the managers
// that run, every one of them is primary (every quorum check concludes so), the coordinator is
// fence.FirstUp's at every instant, no host ping fences and nothing shuns: the group decides
// what the engine decides today.
func TestTodaysTimelines(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 6).Draw(t, "db")
		g := New(Config{Members: make([]Member, n)})
		up := make([]bool, n)
		for i := range up {
			up[i] = true
		}
		at := time.Duration(0)
		for range rapid.IntRange(1, 40).Draw(t, "steps") {
			at += time.Duration(rapid.IntRange(1, 10).Draw(t, "dt")) * time.Second
			if rapid.Bool().Draw(t, "tick") {
				g.Step(at, Tick{})
			} else {
				i := rapid.IntRange(0, n-1).Draw(t, "node")
				up[i] = !up[i]
				if count(up) < n/2+1 {
					up[i] = !up[i] // keep a majority up
					continue
				}
				net := make(Net, n)
				for j := range net {
					net[j].Stopped = !up[j]
				}
				g.Step(at, SetNet{Net: net})
			}
			for _, d := range g.Ready() {
				switch d := d.(type) {
				case FailsafeShun, Silent, Forked, Merged:
					t.Fatalf("%T %+v", d, d)
				case HostPing:
					if !d.Answered {
						t.Fatalf("%+v", d)
					}
				case Quorum:
					if !d.Digest.Primary() {
						t.Fatalf("%+v", d)
					}
				}
			}
			var running Set
			for i, u := range up {
				if u {
					running = running.With(i)
				}
			}
			for m := range running.All() {
				if g.View(m) != running || !g.Primary(m) || g.Coordinator(m) != fence.FirstUp(up) {
					t.Fatalf("m%d: view %v, %v, coordinator %d, FirstUp %d", m, g.View(m), g.Digest(m).Rule, g.Coordinator(m), fence.FirstUp(up))
				}
			}
		}
	})
}

func count(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}
