package shadow

import "time"

// Compare is the comparison of a shadow's decisions with the live engine's: both in the order
// decided (times never decreasing), it returns the divergences of the shadow named name, in
// time order, and at one time the shadow's side first (in the shadow's order), then the live
// side's (in the live order). A decision matches one of the other stream's of the same kind,
// node, replica promoted and time, each at most once; what matches none is a divergence. It is
// pure; it keeps neither slice.
func Compare(name string, live, shadow []Decision) []Divergence {
	var out []Divergence
	for len(live) > 0 || len(shadow) > 0 {
		// The next time either stream decided at, and the run of each at that time.
		at := first(live, shadow)
		nl, ns := runAt(live, at), runAt(shadow, at)
		out = compareAt(out, name, live[:nl], shadow[:ns])
		live, shadow = live[nl:], shadow[ns:]
	}
	return out
}

// first is the earliest time of the two streams' heads; at least one is not empty.
func first(a, b []Decision) (at time.Duration) {
	switch {
	case len(a) == 0:
		return b[0].At
	case len(b) == 0:
		return a[0].At
	}
	return min(a[0].At, b[0].At)
}

// runAt is how many decisions at the head of ds are at time at.
func runAt(ds []Decision, at time.Duration) int {
	n := 0
	for n < len(ds) && ds[n].At == at {
		n++
	}
	return n
}

// compareAt appends the divergences of the decisions of one time.
func compareAt(out []Divergence, name string, live, shadow []Decision) []Divergence {
	used := make([]bool, len(live)) // live decisions matched so far
	var missed []int                // the shadow decisions with no match, by index
	for j, s := range shadow {
		hit := false
		for i, l := range live {
			if !used[i] && same(l, s) {
				used[i], hit = true, true
				break
			}
		}
		if !hit {
			missed = append(missed, j)
		}
	}
	for _, j := range missed {
		out = append(out, Divergence{Shadow: name, Side: ShadowOnly, Decision: shadow[j]})
	}
	for i, l := range live {
		if !used[i] {
			out = append(out, Divergence{Shadow: name, Side: LiveOnly, Decision: l})
		}
	}
	return out
}
