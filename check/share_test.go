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

// makeShares runs every shard of n of a run of traces per family, checking the properties of
// props that apply to each family (nil: the family's defaults), and returns their shares, read
// back.
func makeShares(t testing.TB, m *statemap.Map, fams []Family, props []property.Spec, traces, n int) []*Share {
	t.Helper()
	flags := Flags{Family: "all", Properties: []string{}, Traces: traces, Seed: 3, Out: "ce", Nodes: 5, Length: "1h0m0s"}
	var out []*Share
	for k := range n {
		s := &Share{Kind: ShareKind, Version: ShareVersion, Shard: k, Shards: n, Flags: flags, Statemap: Digest(m)}
		for _, f := range fams {
			first, count := ShardRange(k, n, traces)
			res, err := Run(context.Background(), Config{Map: m, Family: f, Properties: applying(f, props), Shape: DefaultShape(), First: first, Traces: count, Seed: 3})
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
	fams := []Family{Benign, Fatal}
	props := []property.Spec{{Name: property.DetectsDeathWithin, Arg: "45s"}, {Name: property.SingleMaster}, {Name: property.NoFalseFailover}}
	var want []Outcome
	for _, f := range fams {
		res, err := Run(context.Background(), Config{Map: m, Family: f, Properties: applying(f, props), Shape: DefaultShape(), Traces: 150, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, NewOutcome(f, res))
	}
	shares := makeShares(t, m, fams, props, 150, 3)
	got, err := Merge([]*Share{shares[2], shares[0], shares[1]})
	if err != nil {
		t.Fatal(err)
	}
	r1, r2 := NewReport(Flags{}, "", got).JSON(), NewReport(Flags{}, "", want).JSON()
	if !bytes.Equal(r1, r2) {
		t.Fatalf("merged:\n%s\none run:\n%s", r1, r2)
	}
	if n := bytes.Count(r2, []byte(`"counterexample"`)); n != 2 {
		t.Fatalf("the run should have 2 counterexamples, has %d:\n%s", n, r2)
	}
}

// TestMergeRefuses: shares of different runs, a shard twice or missing.
func TestMergeRefuses(t *testing.T) {
	m := statemap.Default()
	shares := makeShares(t, m, []Family{Benign}, nil, 30, 3)
	other := makeShares(t, m, []Family{Benign}, nil, 30, 2)
	reseeded := makeShares(t, m, []Family{Benign}, nil, 30, 3)
	reseeded[1].Flags.Seed = 9
	remapped := makeShares(t, loadMap(t, "../conf/examples/tolerant.properties"), []Family{Benign}, nil, 30, 3)
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
	good := string(makeShares(t, loadMap(t, "../conf/examples/aggressive.properties"), []Family{Benign}, nil, 20, 2)[1].Marshal())
	for _, c := range []struct {
		name, old, new, want string
	}{
		{"comma", `"shards": 2,`, `"shards": 2,,`, `s.json:5: not valid JSON: invalid character ',' looking for beginning of object key string`},
		{"type", `"shards": 2,`, `"shards": "two",`, `s.json:5: shards: a JSON string where int belongs`},
		{"unknown field", `"shards": 2,`, `"shards": 2, "colour": 1,`, `s.json: json: unknown field "colour"`},
		{"two documents", "\n}\n", "\n}\n{}\n", `s.json:60: more than one JSON document`},
		{"kind", `"kind": "failsim-check-share"`, `"kind": "failsim-sweep-share"`, `s.json: kind "failsim-sweep-share": not a failsim-check-share`},
		{"version", `"version": 1`, `"version": 2`, `s.json: share format version 2: this failsim reads version 1`},
		{"shard", `"shard": 1,`, `"shard": 2,`, `s.json: shard 2 of 2: want a shard from 0 to 1`},
		{"shards", `"shards": 2,`, `"shards": 0,`, `s.json: 0 shards: want at least 1`},
		{"too few traces", `"traces": 20,`, `"traces": 1,`, `s.json: 1 traces per family in 2 shards: want at least one trace a shard`},
		{"block", `"first": 10,`, `"first": 11,`, `s.json: benign: traces 11 to 20: shard 1 of 2 judges traces 10 to 19`},
		{"family", `"family": "benign"`, `"family": "gentle"`, `s.json: family "gentle": want benign, fatal or mixed`},
		{"property", `"property": "single-master"`, `"property": "single-mister"`, `s.json: benign: unknown property "single-mister": want one of no-false-failover, detects-death-within, single-master, no-fence-in-maintenance, only-coordinator-fences, self-heal-resets, max-outage, no-acked-write-lost, no-split-brain, no-fence-without-quorum, minority-shuns-within, majority-keeps-writer-within`},
		{"counts", `"violated": 0`, `"violated": 11`, `s.json: benign: single-master violated in 11 of 10 traces`},
		{"no counterexample", `"violated": 0`, `"violated": 1`, `s.json: benign: single-master violated in 1 traces, with no counterexample`},
		{"outside", `"trace": 10,`, `"trace": 9,`, `s.json: benign: no-false-failover's counterexample is trace 9, outside the block`},
		{"timeline", `"timeline": "cluster db1:master`, `"timeline": "cluster db1:boss`, `s.json: benign: no-false-failover's counterexample: s.json:1: node "db1": role "boss": want master, replica or witness`},
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
		{func(s *Share) { s.Families = nil }, "s.json: no family"},
		{func(s *Share) { s.Families[0].Properties = nil }, "s.json: benign: no property"},
		{func(s *Share) {
			s.Families[0].Properties[1].Counterexample = s.Families[0].Properties[0].Counterexample
		}, "s.json: benign: single-master held, with a counterexample"},
		{func(s *Share) { s.Families[0].Properties[1].Traces = 3 }, "s.json: benign: single-master judged 3 traces, not the block's 10"},
		{func(s *Share) { s.Families[0].Properties[0].Counterexample.Replays = -1 }, "s.json: benign: no-false-failover's counterexample counts less than nothing"},
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
	for _, s := range makeShares(f, loadMap(f, "../conf/examples/aggressive.properties"), []Family{Benign}, nil, 20, 2) {
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
	fams := []Family{Benign, Fatal}
	props := []property.Spec{{Name: property.DetectsDeathWithin, Arg: "45s"}, {Name: property.NoFalseFailover}, {Name: property.SingleMaster}}
	// One real shard's results, placed in each shard's block: the merge reads them all the same.
	one := makeShares(b, m, fams, props, 10*n, n)[0]
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
