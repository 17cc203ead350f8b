package sweep

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/failsim/failsim/faultmodel"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// MaxAxes is the most axes a grid may have.
const MaxAxes = 2

// memoKey is what a replay of one trace depends on among a point's values: the thresholds of
// conditions the trace's probes end in, and the checker's settings. Points with one key replay
// the trace alike, for the engine reads the rule of no other condition.
type memoKey [MaxAxes]int64

// irrelevant stands for a value the replay does not depend on.
const irrelevant = math.MinInt64

// memoKey returns the key of values for a trace whose probes end in the conditions of mask;
// false when the grid has more axes than a key holds.
func (g Grid) memoKey(values []int64, mask uint64) (memoKey, bool) {
	var k memoKey
	if len(g.Axes) > MaxAxes {
		return k, false
	}
	for i, a := range g.Axes {
		k[i] = values[i]
		if a.What == Threshold && mask&(1<<a.Condition) == 0 {
			k[i] = irrelevant
		}
	}
	return k, true
}

// conditionMasks caches, for one trace, the conditions its probes can end in under a timeout.
type conditionMasks struct {
	timeout time.Duration
	mask    uint64
	ok      bool
}

// of returns the set of conditions the faults of tl make its probes end in under timeout, as
// bits by statemap.Condition.
func (m *conditionMasks) of(tl *timeline.Timeline, timeout time.Duration) uint64 {
	if m.ok && m.timeout == timeout {
		return m.mask
	}
	m.timeout, m.mask, m.ok = timeout, 1<<statemap.OK, true
	for _, ev := range tl.Events {
		if ev.Kind == timeline.SetFault {
			m.mask |= 1 << faultmodel.Predict(ev.Fault, timeout).Condition
		}
	}
	return m.mask
}

// rows groups points (by their values) into rows along one threshold axis: the points of a row
// agree on every other axis, and are in increasing order of the threshold, -1 (never) last.
// Along such a row the time a trace's master is first fenced never decreases: raising a
// threshold never brings a fence earlier nor creates one (check's metamorphic tests). Without
// a threshold axis every point is a row of its own.
func (g Grid) rows(values [][]int64) [][]int {
	along := -1
	for k, a := range g.Axes {
		if a.What == Threshold {
			along = k
		}
	}
	if along < 0 {
		out := make([][]int, len(values))
		for p := range values {
			out[p] = []int{p}
		}
		return out
	}
	rank := func(v int64) int64 {
		if v < 0 {
			return math.MaxInt64
		}
		return v
	}
	var out [][]int
	index := map[memoKey]int{}
	for p, v := range values {
		var k memoKey
		for i := range v {
			if i != along && i < MaxAxes {
				k[i] = v[i]
			}
		}
		r, ok := index[k]
		if !ok || len(g.Axes) > MaxAxes {
			r = len(out)
			index[k] = r
			out = append(out, nil)
		}
		out[r] = append(out[r], p)
	}
	for _, row := range out {
		slices.SortStableFunc(row, func(a, b int) int { return cmp.Compare(rank(values[a][along]), rank(values[b][along])) })
	}
	return out
}

// fillRow sets ats[p] for every point p of row from eval, calling eval only where the row's
// monotony leaves the answer open: between two points that agree, every point agrees.
func fillRow(row []int, ats []time.Duration, eval func(p int) time.Duration) {
	lo, hi := 0, len(row)-1
	ats[row[lo]] = eval(row[lo])
	if hi == lo {
		return
	}
	ats[row[hi]] = eval(row[hi])
	var fill func(lo, hi int)
	fill = func(lo, hi int) {
		if hi-lo <= 1 {
			return
		}
		if a := ats[row[lo]]; a == ats[row[hi]] {
			for i := lo + 1; i < hi; i++ {
				ats[row[i]] = a
			}
			return
		}
		mid := (lo + hi) / 2
		ats[row[mid]] = eval(row[mid])
		fill(lo, mid)
		fill(mid, hi)
	}
	fill(lo, hi)
}
