package check

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/failsim/failsim/timeline"
)

// TestSortEventsIsAStableSortByTime: both ways sortEvents sorts (packed keys, and indices by a
// comparison for times past what the packing holds) give what a stable sort by time gives,
// ties in the order the events were made.
func TestSortEventsIsAStableSortByTime(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, span := range []time.Duration{time.Hour, 1 << 50} { // the second is past the packing
		for range 200 {
			evs := make([]timeline.Event, rng.IntN(300))
			for i := range evs {
				evs[i].At = time.Duration(rng.Int64N(int64(span)/int64(time.Minute))) * time.Minute // many ties
				evs[i].Line = i
			}
			want := slices.Clone(evs)
			slices.SortStableFunc(want, func(a, b timeline.Event) int { return int(min(max(a.At-b.At, -1), 1)) })
			var buf traceBuf
			got, _ := buf.sortEvents(slices.Clone(evs))
			if !slices.EqualFunc(got, want, func(a, b timeline.Event) bool { return a.At == b.At && a.Line == b.Line }) {
				t.Fatalf("span %v: sorted %v, want %v", span, got, want)
			}
		}
	}
}

// TestSortKeysMergesRuns: sortKeys sorts keys made in a few sorted runs, as a trace's are, and
// any others, as slices.Sort does.
func TestSortKeysMergesRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var buf traceBuf
	for range 2000 {
		var keys []uint64
		for range rng.IntN(12) {
			at := uint64(rng.IntN(1000))
			for range rng.IntN(40) {
				at += uint64(rng.IntN(50))
				keys = append(keys, at<<20|uint64(len(keys))) // distinct, as sortEvents' are
			}
		}
		if rng.IntN(4) == 0 {
			rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		}
		want := slices.Clone(keys)
		slices.Sort(want)
		if got := buf.sortKeys(slices.Clone(keys)); !slices.Equal(got, want) {
			t.Fatalf("sortKeys(%v) = %v, want %v", keys, got, want)
		}
	}
}
