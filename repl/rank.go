package repl

import (
	"slices"
	"time"

	"github.com/failsim/failsim/fence"
)

// Standing is one node's claim to be promoted at a failover, as the ranking reads it.
type Standing struct {
	Node       int
	Stored     int64         // its stored position (0 for a node that is no replica)
	Lag        time.Duration // how long ago the first commit it has not stored was made; 0 when it has all
	Precedence int
	Excluded   Exclusion // why it is no candidate; Candidate when it is one
}

// Exclusion says why a node is no candidate. The zero value is Candidate: it is one.
type Exclusion uint8

// The exclusions, in the order the ranking looks for them: the first that holds is given.
const (
	Candidate         Exclusion = iota
	NotEligible                 // the engine's eligibility: not a replica in service, manager down, last probe not ok
	NotInView                   // not in the coordinator's view of the group
	ReplicatorStopped           // its replicator is not running
	Lagging                     // its stored position trails by more than the lag cap
)

var exclusionNames = [...]string{"candidate", "not-eligible", "not-in-view", "replicator-stopped", "lagging"}

// String is the exclusion's stable name.
func (e Exclusion) String() string {
	if int(e) < len(exclusionNames) {
		return exclusionNames[e]
	}
	return "exclusion(?)"
}

// Better reports whether candidate a ranks before candidate b: the higher stored position, then
// the lower precedence, then the first in cluster order.
func Better(a, b Standing) bool {
	if a.Stored != b.Stored {
		return a.Stored > b.Stored
	}
	if a.Precedence != b.Precedence {
		return a.Precedence < b.Precedence
	}
	return a.Node < b.Node
}

// Rank returns the standings in ranking order, as a new slice: the candidates best first
// (Better), then the excluded in cluster order.
func Rank(s []Standing) []Standing {
	return rankInPlace(slices.Clone(s))
}

// rankInPlace sorts s in ranking order (Rank) and returns it.
func rankInPlace(s []Standing) []Standing {
	slices.SortStableFunc(s, func(a, b Standing) int {
		switch ac, bc := a.Excluded == Candidate, b.Excluded == Candidate; {
		case ac != bc:
			if ac {
				return -1
			}
			return 1
		case !ac:
			return a.Node - b.Node
		case Better(a, b):
			return -1
		case Better(b, a):
			return 1
		}
		return 0
	})
	return s
}

// Best returns the node of the best candidate among s, -1 when none is a candidate.
func Best(s []Standing) int {
	best := -1
	for i, x := range s {
		if x.Excluded == Candidate && (best < 0 || Better(x, s[best])) {
			best = i
		}
	}
	if best < 0 {
		return -1
	}
	return s[best].Node
}

// Standings returns every node's standing at the model's time, in cluster order: eligible(j)
// is the engine's eligibility, inView(j) whether j is in the coordinator's view (nil: every
// node is). A candidate is eligible, in view, a replica whose replicator runs, and lags no more
// than Config.LagCap.
func (m *Model) Standings(eligible, inView func(node int) bool) []Standing {
	out := make([]Standing, len(m.nodes))
	for j := range m.nodes {
		n := &m.nodes[j]
		s := Standing{Node: j, Precedence: m.cfg.Precedence[j]}
		if n.role == replica {
			s.Stored, s.Lag = m.stored(j, m.now), m.lagOf(j, m.now)
		}
		switch {
		case !eligible(j) || n.role != replica:
			s.Excluded = NotEligible
		case inView != nil && !inView(j):
			s.Excluded = NotInView
		case n.stopped:
			s.Excluded = ReplicatorStopped
		case s.Lag > m.cfg.LagCap:
			s.Excluded = Lagging
		}
		out[j] = s
	}
	return out
}

// Candidate returns the candidate rule of the manager's ranking, for fence.Config.Candidate:
// among the candidates (Standings) the highest stored position wins, a tie goes to the lowest
// precedence, then to the first in cluster order. It reads the model at its time, so the model
// must be at the failover's instant (Begin) when the engine decides it; the ranking it made is
// given with the Promoted decision of that instant.
func (m *Model) Candidate(inView func(node int) bool) fence.CandidateRule {
	return func(_ fence.Cluster, eligible func(int) bool) int {
		s := m.Standings(eligible, inView) // new: ranked where it stands, no copy
		best := Best(s)
		m.ranking, m.rankedAt, m.hasRanked = rankInPlace(s), m.now, true
		return best
	}
}
