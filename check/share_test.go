package check

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/property"
	"github.com/failsim/failsim/statemap"
)

// makeShares runs every shard of n of a run of traces per family with --family family,
// checking the properties of props that apply to each family (nil: the family's defaults),
// and returns their shares, read back.
func makeShares(t testing.TB, m *statemap.Map, family string, props []property.Spec, traces, n int) []*Share {
	t.Helper()
	flags := Flags{Family: family, Properties: []string{}, Traces: traces, Seed: 3, Out: "ce", Nodes: 5, Length: "1h0m0s"}
	for _, p := range props {
		if p.Arg != "" {
			p.Name += "=" + p.Arg
		}
		flags.Properties = append(flags.Properties, p.Name)
	}
	fams := []Family{Benign, Fatal, Mixed}
	if f, ok := ParseFamily(family); ok {
		fams = []Family{f}
	}
	var out []*Share
	for k := range n {
		s := &Share{Kind: ShareKind, Version: ShareVersion, Shard: k, Shards: n, Flags: flags, Statemap: Digest(m)}
		for _, f := range fams {
			first, count := ShardRange(k, n, traces)
			ps := applying(f, props)
			if props != nil && ps == nil {
				continue
			}
			res, err := Run(context.Background(), Config{Map: m, Family: f, Properties: ps, Shape: DefaultShape(), First: first, Traces: count, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			s.Families = append(s.Families, ShareFamily{First: first, Outcome: NewOutcome(f, res)})
		}
		back, err := ParseShare(ShareFileName(k, n), s.Marshal())
		if err != nil {
			t.Fatalf("shard %d of %d does not read back: %v\n%s", k, n, err, s.Marshal())
		}
		if !bytes.Equal(back.Marshal(), s.Marshal()) {
			t.Fatalf("shard %d of %d reads back as another share", k, n)
		}
		out = append(out, back)
	}
	return out
}

func TestShardRange(t *testing.T) {
	for _, c := range []struct{ traces, n int }{{10, 1}, {10, 3}, {7, 7}, {100_000_000, 64}, {5, 4}, {math.MaxInt, 3}, {math.MaxInt - 1, 1 << 40}} {
		next := 0
		for k := range min(c.n, 100) {
			first, count := ShardRange(k, c.n, c.traces)
			if first != next || count < c.traces/c.n || count > c.traces/c.n+1 {
				t.Fatalf("%d traces, shard %d of %d: first %d, %d traces; want first %d, %d or %d traces", c.traces, k, c.n, first, count, next, c.traces/c.n, c.traces/c.n+1)
			}
			next += count
		}
		if c.n > 100 {
			continue
		}
		if next != c.traces {
			t.Errorf("%d traces in %d shards: the shards cover %d", c.traces, c.n, next)
		}
	}
}

// applying returns the properties of props that f's traces are judged by.
func applying(f Family, props []property.Spec) []property.Spec {
	var out []property.Spec
	for _, p := range props {
		if f.Applies(p.Name) {
			out = append(out, p)
		}
	}
	return out
}

// TestMergeIsTheWholeRun: the shares of 3 shards, merged in any order, are the outcome of one
// run, counterexamples and counts included.
func TestMergeIsTheWholeRun(t *testing.T) {
	m := loadMap(t, "../conf/examples/aggressive.properties")
	fams := []Family{Benign, Fatal, Mixed}
	props := []property.Spec{{Name: property.DetectsDeathWithin, Arg: "45s"}, {Name: property.SingleMaster}, {Name: property.NoFalseFailover}}
	var want []Outcome
	for _, f := range fams {
		res, err := Run(context.Background(), Config{Map: m, Family: f, Properties: applying(f, props), Shape: DefaultShape(), Traces: 150, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, NewOutcome(f, res))
	}
	shares := makeShares(t, m, "all", props, 150, 3)
	got, err := Merge([]*Share{shares[2], shares[0], shares[1]})
	if err != nil {
		t.Fatal(err)
	}
	r1, r2 := NewReport(Flags{}, "", got).JSON(), NewReport(Flags{}, "", want).JSON()
	if !bytes.Equal(r1, r2) {
		t.Fatalf("merged:\n%s\none run:\n%s", r1, r2)
	}
	if n := bytes.Count(r2, []byte(`"counterexample"`)); n != 3 {
		t.Fatalf("the run should have 3 counterexamples, has %d:\n%s", n, r2)
	}
}

// TestMergeRefuses: shares of different runs, a shard twice or missing.
func TestMergeRefuses(t *testing.T) {
	m := statemap.Default()
	shares := makeShares(t, m, "benign", nil, 30, 3)
	other := makeShares(t, m, "benign", nil, 30, 2)
	reseeded := makeShares(t, m, "benign", nil, 30, 3)
	reseeded[1].Flags.Seed = 9
	remapped := makeShares(t, loadMap(t, "../conf/examples/tolerant.properties"), "benign", nil, 30, 3)
	for _, c := range []struct {
		shares []*Share
		want   string
	}{
		{nil, "no share to merge"},
		{shares[:2], "shard 2 of 3 missing: a merge needs the share of every shard"},
		{shares[1:2], "shard 0, 2 of 3 missing: a merge needs the share of every shard"},
		{[]*Share{shares[0], shares[1], shares[1], shares[2]}, "check-shard-1-of-3.json: shard 1 of 3 again, as in check-shard-1-of-3.json"},
		{[]*Share{shares[0], other[1]}, "check-shard-1-of-2.json: a share of 2 shards, check-shard-0-of-3.json of 3: not one run"},
		{[]*Share{shares[0], reseeded[1], shares[2]}, "check-shard-1-of-3.json: another run's share: --seed 9 where check-shard-0-of-3.json has 3"},
		{[]*Share{shares[0], remapped[1], shares[2]}, "check-shard-1-of-3.json: another run's share: its statemap's rules differ from check-shard-0-of-3.json's"},
	} {
		_, err := Merge(c.shares)
		if err == nil || err.Error() != c.want {
			t.Errorf("Merge: %v\nwant %s", err, c.want)
		}
	}
	if _, err := Merge(shares); err != nil {
		t.Errorf("the whole set: %v", err)
	}
}

// TestParseShareRefuses: broken JSON at its line, and a share that does not add up.
func TestParseShareRefuses(t *testing.T) {
	good := string(makeShares(t, loadMap(t, "../conf/examples/aggressive.properties"), "benign", nil, 20, 2)[1].Marshal())
	for _, c := range []struct {
		name, old, new, want string
	}{
		{"comma", `"shards": 2,`, `"shards": 2,,`, `s.json:5: not valid JSON: invalid character ',' looking for beginning of object key string`},
		{"type", `"shards": 2,`, `"shards": "two",`, `s.json:5: shards: a JSON string where int belongs`},
		{"unknown field", `"shards": 2,`, `"shards": 2, "colour": 1,`, `s.json: json: unknown field "colour"`},
		{"two documents", "\n}\n", "\n}\n{}\n", `s.json:60: more than one JSON document`},
		{"kind", `"kind": "failsim-check-share"`, `"kind": "failsim-sweep-share"`, `s.json:2: kind "failsim-sweep-share": not a failsim-check-share`},
		{"version", `"version": 1`, `"version": 2`, `s.json:3: share format version 2: this failsim reads version 1`},
		{"shard", `"shard": 1,`, `"shard": 2,`, `s.json:4: shard 2 of 2: want a shard from 0 to 1`},
		{"shards", `"shards": 2,`, `"shards": 0,`, `s.json:5: 0 shards: want at least 1`},
		{"too few traces", `"traces": 20,`, `"traces": 1,`, `s.json:10: 1 traces per family in 2 shards: want at least one trace a shard`},
		{"block", `"first": 10,`, `"first": 11,`, `s.json:19: benign: traces 11 to 20: shard 1 of 2 judges traces 10 to 19`},
		{"flags' family", `"family": "benign"`, `"family": "gentle"`, `s.json:8: family "gentle": want benign, fatal, mixed, partition or all`},
		{"family", `"family": "benign",
      "traces"`, `"family": "gentle",
      "traces"`, `s.json:20: family "gentle": want benign, fatal, mixed or partition`},
		{"another family", `"family": "benign",
      "traces"`, `"family": "fatal",
      "traces"`, `s.json:20: families fatal: a run with --family benign checks benign`},
		{"property", `"property": "single-master"`, `"property": "single-mister"`, `s.json:38: benign: unknown property "single-mister": want one of no-false-failover, detects-death-within, single-master, no-fence-in-maintenance, only-coordinator-fences, self-heal-resets, max-outage, no-acked-write-lost, no-split-brain, no-fence-without-quorum, minority-shuns-within, majority-keeps-writer-within`},
		{"counts", `"violated": 0`, `"violated": 11`, `s.json:40: benign: single-master violated in 11 of 10 traces`},
		{"no counterexample", `"violated": 0`, `"violated": 1`, `s.json:40: benign: single-master violated in 1 traces, with no counterexample`},
		{"outside", `"trace": 10,`, `"trace": 9,`, `s.json:28: benign: no-false-failover's counterexample is trace 9, outside the block`},
		{"timeline", `"timeline": "cluster db1:master`, `"timeline": "cluster db1:boss`, `s.json:34: benign: no-false-failover's counterexample: s.json:1: node "db1": role "boss": want master, replica or witness`},
	} {
		data := strings.Replace(good, c.old, c.new, 1)
		if data == good {
			t.Fatalf("%s: %q is not in the share:\n%s", c.name, c.old, good)
		}
		_, err := ParseShare("s.json", []byte(data))
		var fe *fileline.Error
		if err == nil || err.Error() != c.want || !errors.As(err, &fe) {
			t.Errorf("%s: %v\nwant %s", c.name, err, c.want)
		}
	}
	// What a hand edit can break that a text replacement above does not reach.
	for _, c := range []struct {
		edit func(*Share)
		want string
	}{
		{func(s *Share) { s.Families = nil }, "s.json:17: no family"},
		{func(s *Share) { s.Families[0].Properties = nil }, "s.json:22: benign: no property"},
		{func(s *Share) {
			s.Families[0].Properties[1].Counterexample = s.Families[0].Properties[0].Counterexample
		}, "s.json:41: benign: single-master held, with a counterexample"},
		{func(s *Share) { s.Families[0].Properties[1].Traces = 3 }, "s.json:39: benign: single-master judged 3 traces, not the block's 10"},
		{func(s *Share) { s.Families[0].Properties[0].Counterexample.Replays = -1 }, "s.json:27: benign: no-false-failover's counterexample counts less than nothing"},
	} {
		s, err := ParseShare("s.json", []byte(good))
		if err != nil {
			t.Fatal(err)
		}
		c.edit(s)
		if _, err := ParseShare("s.json", s.Marshal()); err == nil || err.Error() != c.want {
			t.Errorf("%v\nwant %s", err, c.want)
		}
	}
	if k, err := PeekKind("s.json", []byte(good)); err != nil || k != ShareKind {
		t.Errorf("PeekKind: %q, %v", k, err)
	}
	if _, err := PeekKind("s.json", []byte(`{"shard": 1}`)); err == nil || err.Error() != `s.json: no "kind": not a share of a failsim run` {
		t.Errorf("PeekKind of no kind: %v", err)
	}
}

// FuzzParseShare: no input makes the share reader panic, and a share it accepts writes back to
// a share it reads the same.
func FuzzParseShare(f *testing.F) {
	aggressive := loadMap(f, "../conf/examples/aggressive.properties")
	for _, s := range makeShares(f, aggressive, "benign", nil, 20, 2) {
		f.Add(s.Marshal())
	}
	for _, s := range makeShares(f, aggressive, "all", []property.Spec{{Name: property.DetectsDeathWithin, Arg: "45s"}, {Name: property.SingleMaster}}, 12, 3) {
		f.Add(s.Marshal())
	}
	f.Add([]byte(`{"kind": "failsim-check-share", "version": 1, "shard": 0, "shards": 1, "flags": {"traces": 1}, "families": [{"family": "benign", "first": 0, "traces": 1, "properties": [{"property": "single-master", "traces": 1, "violated": 1, "counterexample": {"trace": 0, "timeline": ""}}]}]}`))
	f.Add([]byte(`{"kind": "failsim-check-share", "shards": -1}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"kind": "failsim-check-share", "version": 1, "shard": 0, "shards": 1, "flags": {"traces": 1}, "families": [{"family": "benign", "first": 0, "traces": 1, "properties": [{"property": "single-master", "traces": 1, "violated": 0, "counterexample": {"trace": 0}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseShare("fuzz.json", data)
		if err != nil {
			return
		}
		back, err := ParseShare("fuzz.json", s.Marshal())
		if err != nil {
			t.Fatalf("an accepted share written back does not read: %v", err)
		}
		if !bytes.Equal(back.Marshal(), s.Marshal()) {
			t.Fatal("an accepted share reads back as another")
		}
		if _, err := Merge([]*Share{s}); err != nil && s.Shards == 1 {
			t.Fatalf("a lone share of one shard does not merge: %v", err)
		}
	})
}

// BenchmarkMerge reads and merges the shares of a run in 100 shards, each with a counterexample
// per family: what failsim merge does besides printing. See docs/scale.md.
//
//	go test ./check -run '^$' -bench Merge
func BenchmarkMerge(b *testing.B) {
	const n = 100
	m := loadMap(b, "../conf/examples/aggressive.properties")
	props := []property.Spec{{Name: property.DetectsDeathWithin, Arg: "45s"}, {Name: property.NoFalseFailover}, {Name: property.SingleMaster}}
	// One real shard's results, placed in each shard's block: the merge reads them all the same.
	one := makeShares(b, m, "all", props, 10*n, n)[0]
	files := make([][]byte, n)
	for k := range n {
		s := *one
		s.Shard = k
		s.Families = nil
		for _, f := range one.Families {
			f.First, _ = ShardRange(k, n, 10*n)
			f.Properties = append([]PropertyOutcome(nil), f.Properties...)
			for i, p := range f.Properties {
				if p.Counterexample != nil {
					c := *p.Counterexample
					c.Trace = f.First
					f.Properties[i].Counterexample = &c
				}
			}
			s.Families = append(s.Families, f)
		}
		files[k] = s.Marshal()
	}
	b.SetBytes(int64(n * len(files[0])))
	for b.Loop() {
		shares := make([]*Share, n)
		for k, data := range files {
			s, err := ParseShare(ShareFileName(k, n), data)
			if err != nil {
				b.Fatal(err)
			}
			shares[k] = s
		}
		if _, err := Merge(shares); err != nil {
			b.Fatal(err)
		}
	}
}

// TestParseShareRefusesContradictions: a share whose families or properties are not what its
// own flags make a run check, a text that would inject lines into a counterexample's header or
// break JUnit XML, and flags no run has are refused, each at its line.
func TestParseShareRefusesContradictions(t *testing.T) {
	good := makeShares(t, loadMap(t, "../conf/examples/aggressive.properties"), "benign", nil, 20, 2)[1].Marshal()
	for _, c := range []struct {
		edit func(*Share)
		want string
	}{
		{func(s *Share) { s.Families = append(s.Families, s.Families[0]) }, "s.json:61: families benign, benign: a run with --family benign checks benign"},
		{func(s *Share) { s.Flags.Family = "fatal" }, "s.json:20: families benign: a run with --family fatal checks fatal"},
		{func(s *Share) { s.Flags.Family = "all" }, "s.json:17: families benign: a run with --family all checks benign, fatal, mixed"},
		{func(s *Share) {
			p := &s.Families[0].Properties
			*p = append(*p, (*p)[1])
		}, "s.json:22: benign: properties no-false-failover, single-master, no-fence-in-maintenance, only-coordinator-fences, self-heal-resets, single-master: a run with these flags checks no-false-failover, single-master, no-fence-in-maintenance, only-coordinator-fences, self-heal-resets"},
		// The violated default dropped: "all 4 properties held" would be a lie.
		{func(s *Share) { s.Families[0].Properties = s.Families[0].Properties[1:] }, "s.json:22: benign: properties single-master, no-fence-in-maintenance, only-coordinator-fences, self-heal-resets: a run with these flags checks no-false-failover, single-master, no-fence-in-maintenance, only-coordinator-fences, self-heal-resets"},
		{func(s *Share) { s.Flags.Properties = []string{"single-master", "single-master"} }, "s.json:11: property single-master is named twice"},
		{func(s *Share) { s.Flags.Properties = []string{"detects-death-within"} }, "s.json:10: property detects-death-within is not judged on benign traces"},
		{func(s *Share) { s.Flags.Properties = []string{"max-outage=1m"} }, "s.json:10: property max-outage judges a workload's writes: the traces have no workload"},
		{func(s *Share) { s.Families[0].Properties[0].Counterexample.Why = "x\ncluster evil:master\n" }, `s.json:29: benign: no-false-failover's counterexample: "x\ncluster evil:master\n": a control character (U+000A) in the text`},
		{func(s *Share) { s.Families[0].Properties[0].Counterexample.ShrunkWhy = "x\x01" }, `s.json:33: benign: no-false-failover's counterexample: "x\x01": a control character (U+0001) in the text`},
		{func(s *Share) { s.Families[0].Properties[0].Counterexample.Timeline += "\x1b[2J" }, `s.json:34: benign: no-false-failover's counterexample: timeline: a control character (U+001B) in the text`},
		{func(s *Share) { s.Families[0].Properties[0].Counterexample.File = "/etc/passwd" }, "s.json:35: benign: no-false-failover's counterexample names a file: a share writes none"},
		{func(s *Share) { s.Families[0].Properties[0].Counterexample.Nodes = 65 }, "s.json:31: benign: no-false-failover's counterexample has 65 nodes: a cluster has at most 64 members"},
		{func(s *Share) { s.Flags.Out = "odd\ndir\x01" }, `s.json:12: "odd\ndir\x01": a control character (U+000A) in the text`},
		{func(s *Share) { s.Flags.Out = "" }, `s.json:12: out "": want the directory the run's --out named`},
		{func(s *Share) { s.Flags.Statemap = "a\u2028b" }, `s.json:7: "a\u2028b": a control character (U+2028) in the text`},
		{func(s *Share) { s.Flags.Nodes = -5 }, "s.json:13: -5 nodes: want 1 to 64"},
		{func(s *Share) { s.Flags.Length = "-1h" }, `s.json:14: length "-1h": want a duration from 1m to 24h as failsim writes it (1h0m0s)`},
		{func(s *Share) { s.Flags.Length = "60m" }, `s.json:14: length "60m": want a duration from 1m to 24h as failsim writes it (1h0m0s)`},
		{func(s *Share) { s.Flags.Workload = "writes=-1/s" }, `s.json:15: workload "writes=-1/s": `},
		{func(s *Share) { s.Statemap = "x" }, `s.json:16: statemap_sha256 "x": want the 64 hex digits of a SHA-256`},
	} {
		s, err := ParseShare("s.json", good)
		if err != nil {
			t.Fatal(err)
		}
		c.edit(s)
		_, err = ParseShare("s.json", s.Marshal())
		var fe *fileline.Error
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || !errors.As(err, &fe) {
			t.Errorf("%v\nwant %s", err, c.want)
		}
	}
}

// TestMergeHugeShardCount: a share claiming 2^59 shards neither allocates for them nor prints
// them all: the shards missing are summarised.
func TestMergeHugeShardCount(t *testing.T) {
	s := makeShares(t, statemap.Default(), "benign", nil, 20, 2)[0]
	s.Shards, s.Flags.Traces = 1<<59, 10<<59 // shard 0's block is still traces 0 to 9
	s, err := ParseShare("huge.json", s.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	_, err = Merge([]*Share{s})
	if want := "shard 1 to 576460752303423487 of 576460752303423488 (576460752303423487 shards) missing: a merge needs the share of every shard"; err == nil || err.Error() != want {
		t.Errorf("%v\nwant %s", err, want)
	}
}

func TestMissing(t *testing.T) {
	for _, c := range []struct {
		have []int
		n    int
		want string
	}{
		{[]int{0, 1}, 3, "shard 2 of 3"},
		{[]int{1}, 3, "shard 0, 2 of 3"},
		{[]int{0, 5, 5, 9}, 10, "shard 1 to 4, 6 to 8 of 10 (7 shards)"},
		{nil, 10_000_000, "shard 0 to 9999999 of 10000000 (10000000 shards)"},
		{[]int{1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23}, 25, "shard 0, 2, 4, 6, 8, 10, 12, 14, 16, 18 and 3 more of 25 (13 shards)"},
	} {
		if got := Missing(c.have, c.n); got != c.want {
			t.Errorf("Missing(%v, %d) = %q, want %q", c.have, c.n, got, c.want)
		}
	}
}
