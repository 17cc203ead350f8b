package repl

import (
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/fault"
)

// TestRankTies: the highest stored position wins; a tie goes to the lowest precedence, then to
// the first in cluster order; the excluded come after, in cluster order, whatever they stored.
func TestRankTies(t *testing.T) {
	s := []Standing{
		{Node: 0, Stored: 900, Precedence: 1, Excluded: NotEligible},
		{Node: 1, Stored: 100, Precedence: 3},
		{Node: 2, Stored: 100, Precedence: 2},
		{Node: 3, Stored: 100, Precedence: 2},
		{Node: 4, Stored: 99, Precedence: 1},
		{Node: 5, Stored: 500, Precedence: 1, Excluded: ReplicatorStopped},
	}
	if b := Best(s); b != 2 {
		t.Errorf("Best = %d, want 2 (precedence 2, before node 3)", b)
	}
	var order []int
	for _, x := range Rank(s) {
		order = append(order, x.Node)
	}
	same(t, "rank", order, []int{2, 3, 1, 4, 0, 5})
	if b := Best([]Standing{{Node: 0, Excluded: Lagging}}); b != -1 {
		t.Errorf("Best of none = %d", b)
	}
}

// TestRankPrecedenceInModel: four nodes, all stored alike when db1 dies; the cluster line's
// precedences (db2:replica:3 db3:replica:2 db4:replica:2) promote db3; without them, db2.
func TestRankPrecedenceInModel(t *testing.T) {
	for _, c := range []struct {
		prec []int
		want int
	}{{[]int{1, 3, 2, 2}, 2}, {nil, 1}} {
		cfg := Config{Nodes: 4, Master: 0, Rate: PerSecond(10), Deadline: time.Second, Precedence: c.prec}
		_, ds := play(t, cfg, 20*time.Second,
			ev{10 * time.Second, SetLink{Node: 0, Link: Link{Dead: true}}},
			ev{12 * time.Second, failover{from: 0}})
		p := decisionsOf[Promoted](ds)
		if len(p) != 1 || p[0].Node != c.want || p[0].Stored != 100 {
			t.Errorf("precedence %v: %+v, want node %d with 100 stored", c.prec, p, c.want)
		}
	}
}

// TestExclusions: a replica whose replicator is stopped, one lagging more than the cap, and one
// out of the coordinator's view are no candidates, however much they stored.
func TestExclusions(t *testing.T) {
	cfg := Config{Nodes: 5, Master: 0, Rate: PerSecond(10), Deadline: time.Second, LagCap: 5 * time.Second}
	m := New(cfg)
	m.Step(10*time.Second, SetStream{Node: 1, Frozen: true}) // db2 stops at 100 stored
	m.Step(30*time.Second, SetReplicator{Node: 2, Running: false})
	m.Step(30*time.Second, SetLag{Node: 4, Lag: 5 * time.Second})
	m.Begin(40 * time.Second)
	// db2: lacks write 100, made at 10s: 30s behind, over the cap. db3: stopped at 300. db4: all
	// 400, not in view. db5: commits up to 35s (351), 4.9s behind (lacks 35.1s): under the cap.
	got := m.Standings(func(j int) bool { return j != 0 }, func(j int) bool { return j != 3 })
	same(t, "standings", got, []Standing{
		{Node: 0, Precedence: 1, Excluded: NotEligible},
		{Node: 1, Stored: 100, Lag: 30 * time.Second, Precedence: 2, Excluded: Lagging},
		{Node: 2, Stored: 300, Lag: 10 * time.Second, Precedence: 3, Excluded: ReplicatorStopped},
		{Node: 3, Stored: 400, Precedence: 4, Excluded: NotInView},
		{Node: 4, Stored: 351, Lag: sec(4.9), Precedence: 5},
	})
	if b := Best(got); b != 4 {
		t.Errorf("Best = %d, want 4", b)
	}
}

// TestApplyWait: db2 applies 30s after it stores (apply-lag 30s); db1 dies at 100s (10 writes/s:
// positions 1..1000, the last made at 99.9s) and db2 is promoted at 105s with all 1000 stored and
// what it stored by 75s applied: 751, a backlog of 249.
//
//   - Waiting as long as it takes: it applies position 1000 (stored at 99.9s) at 129.9s, and takes
//     writes then. Writes 1000..1298 failed (100s to 129.8s): an outage of 29.9s.
//   - With apply-wait 10s: it takes writes at 115s with what it stored by 85s applied (851): 149
//     positions are applied after, not lost. Writes 1000..1149 failed: 15s.
func TestApplyWait(t *testing.T) {
	for _, c := range []struct {
		wait      time.Duration
		writable  Writable
		failed    int64
		outageEnd time.Duration
	}{
		{0, Writable{At: sec(129.9), Node: 1, Waited: sec(24.9)}, 299, sec(129.9)},
		{10 * time.Second, Writable{At: 115 * time.Second, Node: 1, Waited: 10 * time.Second, Unapplied: 149}, 150, 115 * time.Second},
	} {
		cfg := Config{Nodes: 2, Master: 0, Rate: PerSecond(10), Deadline: time.Second, ApplyWait: c.wait}
		m, ds := play(t, cfg, 150*time.Second,
			ev{0, SetApplyLag{Node: 1, Lag: 30 * time.Second}},
			ev{100 * time.Second, SetLink{Node: 0, Link: Link{Dead: true}}},
			ev{105 * time.Second, Promote{Node: 1, From: 0}})
		p := decisionsOf[Promoted](ds)
		if len(p) != 1 || p[0].Stored != 1000 || p[0].Backlog != 249 || p[0].WritableAt != c.writable.At || p[0].Lost.Count != 0 {
			t.Errorf("apply-wait %v: promotion %+v", c.wait, p)
		}
		same(t, "writable", decisionsOf[Writable](ds), []Writable{c.writable})
		s := m.Summary()
		if s.Failed != c.failed || s.Outage != (Outage{From: 100 * time.Second, To: c.outageEnd, Writes: c.failed}) {
			t.Errorf("apply-wait %v: failed %d, outage %+v", c.wait, s.Failed, s.Outage)
		}
	}
}

// TestDeadline: a write whose acknowledgement would take the deadline or longer fails.
//
//   - Async, db1's link slow 2s from 10s to 20s with a 2s deadline: the 100 writes of those 10s
//     are given up by their clients and never delivered: failed, not committed.
//   - Slow 1.999s: each is answered in time.
//   - Semisync, slow 1.5s and db2's stream 0.6s late: each commit is stored 0.6s after it is made
//     and its reply reaches the client 2.1s after it was issued: committed, not acknowledged.
//     When db1 dies at 20s and db2 is promoted at 25s with all 200 of them, nothing is lost:
//     nothing was acknowledged.
func TestDeadline(t *testing.T) {
	cfg := Config{Nodes: 2, Master: 0, Rate: PerSecond(10), Deadline: 2 * time.Second}
	for _, c := range []struct {
		delay            time.Duration
		acked, committed int64
	}{{2 * time.Second, 201, 201}, {1999 * time.Millisecond, 301, 301}} {
		m, _ := play(t, cfg, 30*time.Second,
			ev{10 * time.Second, SetLink{Node: 0, Link: Slow(c.delay)}},
			ev{20 * time.Second, SetLink{Node: 0}})
		if s := m.Summary(); s.Offered != 301 || s.Acknowledged != c.acked || s.Committed != c.committed {
			t.Errorf("slow %v: %+v", c.delay, s)
		}
	}
	cfg.Mode = Semisync
	m, ds := play(t, cfg, 20*time.Second,
		ev{0, SetLink{Node: 0, Link: Slow(1500 * time.Millisecond)}},
		ev{0, SetLag{Node: 1, Lag: 600 * time.Millisecond}},
		ev{20 * time.Second, SetLink{Node: 0, Link: Link{Dead: true}}})
	m.Step(25*time.Second, Promote{Node: 1, From: 0}) // the summary below counts the writes before 25s
	ds = append(ds, m.Ready()...)
	if p := decisionsOf[Promoted](ds); len(p) != 1 || p[0].Stored != 200 || p[0].Lost.Count != 0 {
		t.Errorf("promotion: %+v", p)
	}
	if s := m.Summary(); s.Acknowledged != 0 || s.Committed != 200 || s.Lost != 0 || s.Offered != 250 {
		t.Errorf("semisync past the deadline: %+v", s)
	}
}

// TestPartitionMerge: db1 | db2 db3 from 30s (the streams across the split freeze); the
// majority promotes db2 at 60s while db1, on the application's side, still takes writes; db1
// shuns itself at 90s; the partition heals at 120s and the majority's copy is adopted.
//
//   - db2 stored what db1 made before 30s: 300 positions. Its promotion loses nothing yet: db1
//     goes on.
//   - db1 acknowledged writes 300..899 (30s to 89.9s), positions 301..900 of its history, which
//     db2's does not hold: the merge loses those 600.
//   - Writes 900..1199 (90s to 119.9s) fail: the application's side has no writable master.
//     From 120s it writes to db2.
func TestPartitionMerge(t *testing.T) {
	cfg := Config{Nodes: 3, Master: 0, Rate: PerSecond(10), Deadline: 2 * time.Second}
	m, ds := play(t, cfg, 150*time.Second,
		ev{30 * time.Second, SetStream{Node: 1, Frozen: true}},
		ev{30 * time.Second, SetStream{Node: 2, Frozen: true}},
		ev{60 * time.Second, Promote{Node: 1, From: 0, Repoint: []int{2}, FromGoesOn: true}},
		ev{60 * time.Second, SetStream{Node: 2, Frozen: false}},
		ev{90 * time.Second, SetApp{Master: -1}},
		ev{120 * time.Second, Merge{Overwritten: []int{0}, Kept: 1}},
		ev{120 * time.Second, SetApp{Master: 1}},
	)
	deferred := Loss{At: 60 * time.Second, Cause: LostAtFailover, Master: 0, Keeper: 1, Deferred: true}
	merged := Loss{At: 120 * time.Second, Cause: LostAtMerge, Master: 0, Keeper: 1, Count: 600, First: 301, Last: 900}
	same(t, "overwritten", decisionsOf[Overwritten](ds), []Overwritten{{At: 120 * time.Second, Node: 0, Kept: 1, Lost: merged}})
	same(t, "summary", m.Summary(), Summary{
		Offered: 1501, Acknowledged: 1201, Failed: 300, Committed: 1201,
		Unavailable: 30 * time.Second,
		Outage:      Outage{From: 90 * time.Second, To: 120 * time.Second, Writes: 300},
		Outages:     []Outage{{From: 90 * time.Second, To: 120 * time.Second, Writes: 300}},
		Lost:        600, Losses: []Loss{deferred, merged},
	})
	var lost int64
	for _, e := range m.Ledger() {
		if e.Lost {
			lost += e.Count
			if e.Master != 0 || e.First != 301 || e.FirstWrite != 300 {
				t.Errorf("lost entry %+v", e)
			}
		}
	}
	if lost != 600 {
		t.Errorf("ledger: %d lost", lost)
	}
}

// TestPositions: a replica's stored position trails its master's commits by its lag, and its
// applied position trails its stored one by its apply lag, through lag changes, a replicator
// stop and start, and a link freeze. 10 writes/s: the commits made at or before x are
// floor(10x)+1.
func TestPositions(t *testing.T) {
	m := New(Config{Nodes: 2, Master: 0, Rate: PerSecond(10), Deadline: time.Second})
	m.Step(0, SetLag{Node: 1, Lag: 10 * time.Second})
	m.Step(0, SetApplyLag{Node: 1, Lag: 5 * time.Second})
	for _, c := range []struct {
		at              float64
		in              Input
		stored, applied int64
	}{
		{50, nil, 401, 351}, // what was made by 40s; what it stored by 45s
		{50, SetLag{Node: 1, Lag: 2 * time.Second}, 481, 351}, // a shorter lag delivers at once up to 48s
		{60, nil, 581, 531},
		{60, SetLag{Node: 1, Lag: 20 * time.Second}, 581, 531}, // a longer one holds 581 until 40s+ passes 58.1s
		{70, nil, 581, 581},
		{80, nil, 601, 581},
		{80, SetReplicator{Node: 1, Running: false}, 601, 581},
		{100, nil, 601, 581},
		{100, SetReplicator{Node: 1, Running: true}, 801, 601}, // catches up at once to what the lags allow
		{105, nil, 851, 801},
		{105, SetStream{Node: 1, Frozen: true}, 851, 801},
		{112, nil, 851, 851}, // frozen, it still applies what it stored
	} {
		at := sec(c.at)
		if c.in == nil {
			m.Begin(at)
		} else {
			m.Step(at, c.in)
		}
		if s, a := m.stored(1, at), m.applied(1, at); s != c.stored || a != c.applied {
			t.Errorf("at %v after %T: stored %d applied %d, want %d %d", at, c.in, s, a, c.stored, c.applied)
		}
	}
	if lag := m.lagOf(1, 112*time.Second); lag != sec(112-85.1) {
		t.Errorf("lag %v", lag)
	}
}

// TestLinkOf: the fault model for writes.
func TestLinkOf(t *testing.T) {
	for f, want := range map[fault.Fault]Link{
		{}:                                      {},
		{Kind: fault.Slow, Delay: time.Second}:  Slow(time.Second),
		{Kind: fault.Delay, Delay: time.Second}: Slow(2 * time.Second),
		{Kind: fault.Stall}:                     {Dead: true},
		{Kind: fault.Refuse}:                    {Dead: true},
		{Kind: fault.Freeze}:                    {Dead: true},
		{Kind: fault.Error, Code: 1040}:         {Dead: true},
		{Kind: fault.HostDown}:                  {Dead: true},
		{Kind: fault.Probe, Condition: "ok"}:    {},
		{Kind: fault.Probe, Condition: "query_results_timeout"}: {Dead: true},
	} {
		if got := LinkOf(f); got != want {
			t.Errorf("LinkOf(%v) = %+v, want %+v", f, got, want)
		}
	}
}

// TestLinkOfToxics: toxiproxy's toxics, each on its stream, for writes on an open connection:
// a command of 47 bytes up, an answer of 11 down, a connection opened with 115 bytes down and
// 183 up.
func TestLinkOfToxics(t *testing.T) {
	ms := time.Millisecond
	for words, want := range map[string]Link{
		"latency 200ms":                      Slow(200 * ms),
		"latency 200ms jitter 50ms upstream": Slow(250 * ms),
		"bandwidth 1KB/s":                    Slow(11 * ms),
		"bandwidth 1KB/s upstream":           Slow(47 * ms),
		"slicer 1 delay 1ms":                 Slow(10 * ms),
		"slicer 10 delay 1ms upstream":       Slow(7 * ms), // 47: 23 and 24, each cut twice more: 8 pieces
		"slicer 64 delay 1ms":                {},
		"slow-close 2s":                      {},
		"slow-close 2s upstream":             {},
		"timeout 0":                          {Dead: true},
		"timeout 5s upstream":                {Dead: true},
		"reset-peer":                         {Dead: true},
		"reset-peer 1s upstream":             {Dead: true},
		"limit-data 125":                     {Dead: true},
		"limit-data 126":                     {},
		"limit-data 230 upstream":            {Dead: true},
		"limit-data 231 upstream":            {},
	} {
		f, err := fault.Parse(strings.Fields(words))
		if err != nil {
			t.Fatal(err)
		}
		if got := LinkOf(f); got != want {
			t.Errorf("LinkOf(%s) = %+v, want %+v", words, got, want)
		}
	}
}

// TestNoWorkload: with no workload nothing is written, positions stay 0, every replica has no
// lag, and the ranking is the first eligible replica in cluster order: fence.FirstEligible.
func TestNoWorkload(t *testing.T) {
	m := New(Config{Nodes: 4, Master: 0})
	m.Step(time.Hour, SetLag{Node: 1, Lag: time.Minute})
	m.Begin(2 * time.Hour)
	rule := m.Candidate(nil)
	for _, elig := range [][]bool{{false, true, true, true}, {false, false, true, true}, {false, false, false, true}, {false, false, false, false}} {
		want := -1
		for j, e := range elig {
			if e {
				want = j
				break
			}
		}
		if got := rule(nil, func(j int) bool { return elig[j] }); got != want {
			t.Errorf("eligible %v: %d, want %d", elig, got, want)
		}
	}
	m.Close(3 * time.Hour)
	if s := m.Summary(); s.Offered != 0 || s.Outage != (Outage{}) || s.Unavailable != 0 {
		t.Errorf("summary %+v", s)
	}
}

// TestPanics: impossible calls are bugs in the caller.
func TestPanics(t *testing.T) {
	cfg := Config{Nodes: 3, Master: 0, Rate: PerSecond(10), Deadline: time.Second}
	for name, f := range map[string]func(m *Model){
		"time back":           func(m *Model) { m.Close(time.Second); m.Step(time.Second, SetLag{Node: 1}) },
		"node out of range":   func(m *Model) { m.Step(0, SetLag{Node: 3}) },
		"negative lag":        func(m *Model) { m.Step(0, SetLag{Node: 1, Lag: -1}) },
		"promote a master":    func(m *Model) { m.Step(0, Promote{Node: 0, From: -1}) },
		"fail over a replica": func(m *Model) { m.Step(0, Promote{Node: 1, From: 2}) },
		"repoint the new master": func(m *Model) {
			m.Step(0, Promote{Node: 1, From: 0, Repoint: []int{1}})
		},
		"recover a live node":  func(m *Model) { m.Step(0, Recover{Node: 1, Of: 0}) },
		"app on a replica":     func(m *Model) { m.Step(0, SetApp{Master: 1}) },
		"fail a replica":       func(m *Model) { m.Step(0, Fail{Node: 2}) },
		"overwrite a replica":  func(m *Model) { m.Step(0, Merge{Overwritten: []int{1}, Kept: 0}) },
		"nil input":            func(m *Model) { m.Step(0, nil) },
		"a config of no nodes": func(*Model) { New(Config{}) },
		"no deadline":          func(*Model) { New(Config{Nodes: 1, Master: 0, Rate: PerSecond(1)}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f(New(cfg))
		}()
	}
}
