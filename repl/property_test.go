package repl

import (
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// gen draws a run of inputs that the model's roles allow, keeping the roles as they evolve.
type gen struct {
	roles []role
	app   int
}

func (g *gen) nodesIn(r role) []int {
	var out []int
	for j, x := range g.roles {
		if x == r {
			out = append(out, j)
		}
	}
	return out
}

func steps0(t *rapid.T, label string, hi int) time.Duration {
	return time.Duration(rapid.IntRange(0, hi).Draw(t, label)) * q
}

// input draws one input the roles allow, and applies it to them.
func (g *gen) input(t *rapid.T) Input {
	n := len(g.roles)
	node := rapid.IntRange(0, n-1).Draw(t, "node")
	writers, replicas, outs := g.nodesIn(writer), g.nodesIn(replica), g.nodesIn(out)
	orNone := func(xs []int, label string) int { return rapid.SampledFrom(append([]int{-1}, xs...)).Draw(t, label) }
	switch rapid.IntRange(0, 12).Draw(t, "kind") {
	case 0, 1:
		l := Link{}
		switch rapid.IntRange(0, 3).Draw(t, "link") {
		case 1:
			l.Delay = q * time.Duration(rapid.IntRange(1, 25).Draw(t, "delay"))
		case 2:
			l.Dead = true
		}
		return SetLink{Node: node, Link: l}
	case 2, 3:
		return SetLag{Node: node, Lag: steps0(t, "lag", 40)}
	case 4:
		return SetApplyLag{Node: node, Lag: steps0(t, "apply-lag", 40)}
	case 5, 6:
		return SetStream{Node: node, Frozen: rapid.Bool().Draw(t, "frozen")}
	case 7:
		return SetReplicator{Node: node, Running: rapid.Bool().Draw(t, "running")}
	case 8:
		if len(replicas) == 0 {
			return SetLag{Node: node}
		}
		p := Promote{Node: rapid.SampledFrom(replicas).Draw(t, "promoted"), From: orNone(writers, "from")}
		for _, r := range replicas {
			if r != p.Node && rapid.Bool().Draw(t, "repoint") {
				p.Repoint = append(p.Repoint, r)
			}
		}
		p.FromGoesOn = p.From >= 0 && rapid.IntRange(0, 3).Draw(t, "goes on") == 0
		g.roles[p.Node] = writer
		switch {
		case p.From == -1:
			if g.app == -1 {
				g.app = p.Node
			}
		case !p.FromGoesOn:
			g.roles[p.From] = out
			if g.app == p.From {
				g.app = p.Node
			}
		}
		return p
	case 9:
		if len(writers) == 0 {
			return SetStream{Node: node}
		}
		w := rapid.SampledFrom(writers).Draw(t, "failed")
		g.roles[w] = out
		if g.app == w {
			g.app = -1
		}
		return Fail{Node: w}
	case 10:
		if len(outs) == 0 {
			return SetApplyLag{Node: node}
		}
		o := rapid.SampledFrom(outs).Draw(t, "recovered")
		of := rapid.SampledFrom(append([]int{-1, o}, writers...)).Draw(t, "of")
		if of == o {
			g.roles[o] = writer
			if g.app == -1 {
				g.app = o
			}
		} else {
			g.roles[o] = replica
		}
		return Recover{Node: o, Of: of}
	case 11:
		g.app = orNone(writers, "app")
		return SetApp{Master: g.app}
	default:
		kept := orNone(writers, "kept")
		var over []int
		for _, x := range append(writers, outs...) {
			if x != kept && rapid.Bool().Draw(t, "overwritten") {
				over = append(over, x)
			}
		}
		if len(over) == 0 {
			return SetReplicator{Node: node, Running: true}
		}
		for _, x := range over {
			g.roles[x] = out
		}
		if slices.Contains(over, g.app) {
			g.app = kept
		}
		var repoint []int
		if kept >= 0 {
			for _, r := range replicas {
				if rapid.Bool().Draw(t, "repoint at the merge") {
					repoint = append(repoint, r)
				}
			}
		}
		return Merge{Overwritten: over, Kept: kept, Repoint: repoint}
	}
}

// drawRun draws a configuration and a run of inputs on the reference's grid.
func drawRun(t *rapid.T) (Config, []ev, time.Duration) {
	cfg := Config{
		Nodes:    rapid.IntRange(2, 4).Draw(t, "nodes"),
		Master:   0,
		Rate:     PerSecond(10),
		Deadline: q * time.Duration(rapid.IntRange(1, 30).Draw(t, "deadline")),
		Mode:     Mode(rapid.IntRange(0, 1).Draw(t, "mode")),
		Timeout:  q * time.Duration(rapid.IntRange(1, 50).Draw(t, "timeout")),
	}
	if rapid.Bool().Draw(t, "apply-wait") {
		cfg.ApplyWait = q * time.Duration(rapid.IntRange(1, 50).Draw(t, "wait"))
	}
	g := &gen{roles: make([]role, cfg.Nodes), app: 0}
	g.roles[0] = writer
	var times []int
	for range rapid.IntRange(0, 25).Draw(t, "inputs") {
		times = append(times, rapid.IntRange(0, 600).Draw(t, "at"))
	}
	slices.Sort(times)
	var evs []ev
	for _, at := range times {
		evs = append(evs, ev{time.Duration(at) * q, g.input(t)})
	}
	end := time.Duration(rapid.IntRange(600, 700).Draw(t, "end")) * q
	return cfg, evs, end
}

// TestMatchesReference: on short random runs the counted model and the write-by-write
// reference agree on the summary (writes offered, acknowledged, failed, committed, the
// longest outage and every outage, every loss), on every decision, and on the ledger write by write; and the
// summary's counts add up.
func TestMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg, evs, end := drawRun(t)
		m, ds := playRun(cfg, end, evs, nil)
		got := m.Summary()
		if got.Acknowledged+got.Failed != got.Offered {
			t.Fatalf("acknowledged %d + failed %d != offered %d", got.Acknowledged, got.Failed, got.Offered)
		}
		var failed int64
		for k, o := range got.Outages {
			failed += o.Writes
			if o.Length() <= 0 || (k > 0 && o.From <= got.Outages[k-1].To) {
				t.Fatalf("outages %+v: not disjoint runs in order", got.Outages)
			}
		}
		if failed != got.Failed {
			t.Fatalf("the outages' writes add up to %d, want the %d failed", failed, got.Failed)
		}
		if got.Lost > got.Acknowledged {
			t.Fatalf("lost %d > acknowledged %d", got.Lost, got.Acknowledged)
		}
		for _, l := range got.Losses {
			if l.Count > 0 && l.Count > l.Last-l.First+1 {
				t.Fatalf("loss %+v: more writes than its range", l)
			}
		}
		r := newRef(cfg)
		var ledger []refWrite
		want, wantDs := r.run(evs, steps(end), func() { ledger = slices.Clone(r.writes) })
		if !equal(got, want) {
			t.Fatalf("summary:\n got %+v\nwant %+v", got, want)
		}
		for i, d := range ds {
			if p, ok := d.(*Promoted); ok {
				c := *p
				c.Ranking, c.WritableAt = nil, 0
				ds[i] = &c
			}
		}
		if !equal(ds, wantDs) {
			t.Fatalf("decisions:\n got %+v\nwant %+v", ds, wantDs)
		}
		type fate struct {
			owner int
			seq   int64
			lost  bool
		}
		gotLedger, wantLedger := map[int64]fate{}, map[int64]fate{}
		for _, e := range m.Ledger() {
			for i := range e.Count {
				gotLedger[e.FirstWrite+i] = fate{e.Master, e.First + i, e.Lost}
			}
		}
		for _, w := range ledger {
			if w.state == refAcked {
				wantLedger[w.k] = fate{r.hists[w.hist].owner, w.seq, w.lost}
			}
		}
		if !equal(gotLedger, wantLedger) {
			t.Fatalf("ledger:\n got %v\nwant %v", gotLedger, wantLedger)
		}
	})
}

// TestSemisyncLosesNothing: under semisync, while the master never fell back, a failover to
// the most advanced of its replicas loses no acknowledged write, whatever the lags, freezes
// and replicator stops before it.
func TestSemisyncLosesNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg, _, _ := drawRun(t)
		cfg.Mode = Semisync
		m := New(cfg)
		g := &gen{roles: make([]role, cfg.Nodes), app: 0}
		g.roles[0] = writer
		var at time.Duration
		for range rapid.IntRange(0, 15).Draw(t, "inputs") {
			at += steps0(t, "after", 60)
			var in Input
			for in == nil {
				switch x := g.input(t).(type) {
				case SetLink, SetLag, SetApplyLag, SetStream, SetReplicator:
					in = x
				}
			}
			m.Step(at, in)
		}
		at += steps0(t, "failover after", 100)
		m.Begin(at)
		if len(decisionsOf[FellBack](m.Ready())) > 0 {
			return // acknowledged without a replica: async's risk
		}
		best, stored := -1, int64(-1)
		var others []int
		for j := range m.nodes {
			if m.nodes[j].role != replica {
				continue
			}
			others = append(others, j)
			if s := m.stored(j, at); s > stored {
				best, stored = j, s
			}
		}
		if best < 0 {
			return
		}
		others = slices.DeleteFunc(others, func(j int) bool { return j == best })
		m.Step(at, Promote{Node: best, From: 0, Repoint: others})
		p := decisionsOf[Promoted](m.Ready())
		if len(p) != 1 || p[0].Lost.Count != 0 {
			t.Fatalf("promoting the most advanced replica lost writes: %+v", p)
		}
	})
}
