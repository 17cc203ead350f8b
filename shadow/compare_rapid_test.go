package shadow

import (
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/failsim/failsim/fence"
)

// stream draws a decision stream of a 3-node cluster, times never decreasing.
func stream(t *rapid.T, label string) []Decision {
	n := rapid.IntRange(0, 8).Draw(t, label+"-len")
	out := make([]Decision, n)
	at := time.Duration(0)
	kinds := []fence.Kind{fence.KindNodeFailed, fence.KindFailover, fence.KindNoCandidate}
	for i := range out {
		at += time.Duration(rapid.IntRange(0, 2).Draw(t, label+"-step")) * 10 * time.Second
		k := rapid.SampledFrom(kinds).Draw(t, label+"-kind")
		d := Decision{At: at, Kind: k, Node: rapid.IntRange(0, 2).Draw(t, label+"-node"), To: -1}
		if k == fence.KindFailover {
			d.To = rapid.IntRange(0, 2).Draw(t, label+"-to")
		}
		out[i] = d
	}
	return out
}

// TestCompareProperties: on any two streams, Compare(x, x) is empty; every divergence is a
// decision of the side it names; swapping the streams swaps the sides; and what is left out
// pairs up, decision for decision, the same on both sides.
func TestCompareProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		live, sh := stream(t, "live"), stream(t, "shadow")
		if got := Compare("x", live, live); len(got) != 0 {
			t.Fatalf("Compare(x, x) = %v", got)
		}
		got := Compare("x", live, sh)
		var onlyLive, onlyShadow []Decision
		for _, d := range got {
			from := sh
			if d.Side == LiveOnly {
				from, onlyLive = live, append(onlyLive, d.Decision)
			} else {
				onlyShadow = append(onlyShadow, d.Decision)
			}
			if !slices.Contains(from, d.Decision) {
				t.Fatalf("%v is no decision of its side", d)
			}
		}
		back := Compare("x", sh, live)
		if len(back) != len(got) {
			t.Fatalf("swapped: %d divergences, want %d", len(back), len(got))
		}
		// What matched: the streams less their divergences, as multisets, are equal.
		rest := func(all, out []Decision) []Decision {
			r := slices.Clone(all)
			for _, d := range out {
				i := slices.Index(r, d)
				r = slices.Delete(r, i, i+1)
			}
			return r
		}
		key := func(a, b Decision) int {
			switch {
			case a.At != b.At:
				return int(a.At - b.At)
			case a.Kind != b.Kind:
				return int(a.Kind) - int(b.Kind)
			case a.Node != b.Node:
				return a.Node - b.Node
			}
			return a.To - b.To
		}
		l, s := rest(live, onlyLive), rest(sh, onlyShadow)
		slices.SortFunc(l, key)
		slices.SortFunc(s, key)
		if !slices.Equal(l, s) {
			t.Fatalf("matched decisions differ: live %v, shadow %v", l, s)
		}
		// And nothing left out could have matched: no shadow-only decision equals a live-only one.
		for _, a := range onlyLive {
			if slices.ContainsFunc(onlyShadow, func(b Decision) bool { return same(a, b) }) {
				t.Fatalf("%v is left out on both sides", a)
			}
		}
	})
}
