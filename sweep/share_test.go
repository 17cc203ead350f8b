package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/failsim/failsim/check"
	"github.com/failsim/failsim/fileline"
)

// shareOf computes shard k of n of cfg, written out and decoded again, for a test to tamper
// with.
func shareOf(t testing.TB, cfg Config, k, n int) *Share {
	t.Helper()
	cfg.Shard = Shard{K: k, N: n}
	sh, err := Compute(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := sh.Marshal()
	var back Share
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}

// TestParseShareRefusesAbsurdFigures: a share that would crash the merge's pictures, or put
// figures no run gives into sweep.csv, sweep.json and the plots, is refused at its line, as
// strictly as a check share: a point without the figures of a family the run has, a point in
// force with no values, counts below zero or above the traces, times beyond a trace, flags no
// sweep takes, a control character in a text.
func TestParseShareRefusesAbsurdFigures(t *testing.T) {
	cfg := config(t, 4, "login_response_timeout.threshold=1..5:2") // the point in force (8) is off the grid
	for _, c := range []struct {
		edit func(*Share)
		want string
	}{
		{func(s *Share) { s.Computed[0].Benign = nil }, "s.json:26: point 1: benign figures for 4 benign traces: want them exactly when the run has benign traces"},
		{func(s *Share) { s.Computed[1].Values = []int64{} }, "s.json:48: point 3 has 0 values for 1 axes"},
		{func(s *Share) { s.Computed[1].Values = []int64{3} }, "s.json:48: point 3, the point in force off the grid, has values [3] of the grid's point 1"},
		{func(s *Share) { s.Computed[1].Values = []int64{-7} }, "s.json:49: point 3: login_response_timeout.threshold -7: no value a statemap or checker in force has"},
		{func(s *Share) { s.Computed[0].Benign.FalseFailovers = -7 }, "s.json:33: point 1: -7 false failovers in 4 traces"},
		{func(s *Share) { s.Computed[0].Benign.Rate = 0.5 }, "s.json:34: point 1: a false-failover rate of 0.5 for 0 of 4 traces"},
		{func(s *Share) { v := 1e308; s.Computed[0].Fatal.P95 = &v }, "s.json:42: point 1: a time to fence of 1e+308 s: want 0 to the trace's 3600 s"},
		{func(s *Share) { v := 1.0; s.Computed[0].Fatal.P95 = &v }, "s.json:42: point 1: the times to fence out of order (p50 <= p95 <= max)"},
		{func(s *Share) { s.Computed[0].Fatal.Missed++ }, "s.json:36: point 1: 4 fenced, 0 early and 1 missed: want counts that add up to the 4 fatal traces"},
		{func(s *Share) { s.Run.Nodes = -5 }, "s.json:12: -5 nodes: want 1 to 64"},
		{func(s *Share) { s.Run.Length = "-1h" }, `s.json:13: length "-1h": want a duration from 1m0s to 24h0m0s as failsim writes it`},
		{func(s *Share) { s.Run.Timeout = "0s" }, `s.json:15: timeout "0s": want a duration from 1ms to 24h0m0s as failsim writes it`},
		{func(s *Share) { s.Run.Statemap = "x\ny" }, `s.json:7: "x\ny": a control character (U+000A) in the text`},
		{func(s *Share) { s.Run.Vary = append(s.Run.Vary, s.Run.Vary[0]) }, "s.json:6: --vary login_response_timeout.threshold twice"},
		{func(s *Share) { s.Run.BenignTraces = -1 }, "s.json:3: -1 benign, 4 fatal and 0 partition traces: want none below 0"},
		{func(s *Share) { s.FatalFaults = nil }, "s.json:22: 0 fatal faults for 4 fatal traces"},
		{func(s *Share) { s.FatalFaults[0] = "freeze\x1b" }, `s.json:23: "freeze\x1b": a control character (U+001B) in the text`},
		{func(s *Share) { s.Computed = s.Computed[:1] }, "s.json:25: 1 points computed: shard 1 of 2 computes 2 of the 4"},
	} {
		s := shareOf(t, cfg, 1, 2)
		c.edit(s)
		data, _ := s.Marshal()
		_, err := parseShare(ShareFile{Name: "s.json", Data: data})
		var fe *fileline.Error
		if err == nil || err.Error() != c.want || !errors.As(err, &fe) {
			t.Errorf("got  %v\nwant %s", err, c.want)
		}
	}
}

// TestMergeHugeShardCount: a share of 2^62 shards is neither allocated for nor listed shard by
// shard: the merge says which are missing in a line.
func TestMergeHugeShardCount(t *testing.T) {
	s := shareOf(t, config(t, 3, "socket_io_error.threshold=0..2"), 0, 1)
	s.Of = 1 << 62
	s.Computed = s.Computed[:1]
	data, _ := s.Marshal()
	_, err := MergeShares([]ShareFile{{Name: "huge.json", Data: data}})
	want := "the shares do not make one run: shard 1 to 4611686018427387903 of 4611686018427387904 (4611686018427387903 shards) missing"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// FuzzParseShare: no file makes the share reader, the merge or the files it writes panic
// (sweep.csv, sweep.json, the text and the SVG; the PNG draws the same plots), seeded with the
// shares of real sharded runs: benign and fatal with the point in force off the grid, two axes,
// a workload, and the partition family.
//
//	go test ./sweep -run '^$' -fuzz FuzzParseShare -fuzztime 1m
func FuzzParseShare(f *testing.F) {
	w, err := check.ParseWorkload("writes=200/s,deadline=2s")
	if err != nil {
		f.Fatal(err)
	}
	two := config(f, 3, "socket_io_error.threshold=0..1", "timeout=2s..3s")
	two.Workload = &w
	for _, cfg := range []Config{
		config(f, 3, "login_response_timeout.threshold=1..5:2"),
		two,
		partitionConfig(f, 3, "gap-threshold=2..3"),
	} {
		for k := range 2 {
			data, _ := shareOf(f, cfg, k, 2).Marshal()
			f.Add(data)
		}
		whole, _ := shareOf(f, cfg, 0, 1).Marshal()
		f.Add(whole)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Merger
		if err := m.Add(ShareFile{Name: "fuzz.json", Data: data}); err != nil {
			var fe *fileline.Error
			if !errors.As(err, &fe) && !errors.Is(err, ErrShares) {
				t.Fatalf("a refusal that names no file: %v", err)
			}
			return
		}
		res, err := m.Result()
		if err != nil {
			return // a shard missing
		}
		res.CSV()
		res.JSON()
		if err := res.WriteText(io.Discard); err != nil {
			t.Fatal(err)
		}
		if _, err := res.Picture(SVG); err != nil {
			t.Fatal(err)
		}
	})
}
