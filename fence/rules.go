package fence

import "slices"

// CoordinatorRule chooses the coordinator, the one manager that fences, from which managers are
// up (up[i] for node i, in cluster order; the engine's own slice, read-only, valid during the
// call). It returns a node index whose manager is up, or -1 for none; anything else panics.
// The engine asks it at New and whenever a manager goes down or comes up. It must be a pure
// function of its argument.
type CoordinatorRule func(up []bool) int

// FirstUp is the default CoordinatorRule: the first node in cluster order whose manager is up,
// -1 when none is.
func FirstUp(up []bool) int { return slices.Index(up, true) }

// CandidateRule chooses the replica to promote when the master is failed over. c is the
// cluster's state with the failed master already marked failed (the engine's own value:
// read-only, valid during the call); eligible(i) reports whether node i may be promoted: a
// replica in service whose manager is up and whose last probe was ok. It returns an eligible
// node, or -1 to promote none; an ineligible node panics. It must be a pure function of its
// arguments (and of any state of its own that the engine does not change).
type CandidateRule func(c Cluster, eligible func(node int) bool) int

// FirstEligible is the default CandidateRule: the first eligible node in cluster order, -1 when
// none is.
func FirstEligible(c Cluster, eligible func(node int) bool) int {
	for i := range c {
		if eligible(i) {
			return i
		}
	}
	return -1
}
