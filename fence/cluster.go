package fence

import (
	"fmt"
	"slices"
)

// Member is one node's entry in the cluster's state of record. The zero value is a replica in
// service.
type Member struct {
	Role    Role // master or replica; a failed node keeps the role it had
	Failed  bool // out of service
	Shunned bool // a failed master (failed over, or failed under manual policy), or one its own manager's failsafe shunned: never recovered automatically
	// Failsafe: shunned (and failed) by its own manager's failsafe, whose view was not primary
	// for the failsafe threshold (FAILSAFE-SHUN). Only the operator's recover undoes it.
	Failsafe bool
}

// Cluster is the cluster's state of record, which the engine's decisions change and its rules
// read: one Member per node, in cluster order. It is a slice: assigning one shares it; Clone
// makes a copy that evolves apart, as each manager's copy does during a partition, and Merge
// joins copies when views join. The zero value is a cluster of no node.
type Cluster []Member

// Clone returns a copy of c that shares nothing with it.
func (c Cluster) Clone() Cluster { return slices.Clone(c) }

// Master returns the index of the master in service, or -1 when there is none.
func (c Cluster) Master() int {
	for i, m := range c {
		if m.Role == Master && !m.Failed {
			return i
		}
	}
	return -1
}

// Side is one side's copy of the cluster state when views merge.
type Side struct {
	Cluster Cluster // the side's copy; every side's has the same length
	Members []int   // the side's members, node indices in any order; at least one
	Primary bool    // the side's view was primary
}

// Conflict is one node on which an overwritten side's copy differed from the adopted one.
type Conflict struct {
	Node int    // the node
	Side int    // the overwritten side, its index in Merge's arguments
	Kept Member // what the adopted copy says, and the merged cluster keeps
	Lost Member // what the overwritten side's copy said
}

// Merge joins the copies of sides whose views merge (failsim's rule): the merged group adopts
// the copy of the side that was primary; if several were, or none was, the side holding the
// first member in cluster order. A member of another side that its own side's copy has shunned
// by failsafe, and the adopted copy does not have shunned, keeps its shun: only recover undoes one. It returns the adopted side's index, a copy of its cluster,
// and every conflict it overwrote: for each other side in argument order, each node, in
// cluster order, on which that side's copy differs from the adopted one. No side, a side with
// no member, or copies of different lengths panic.
func Merge(sides ...Side) (adopted int, merged Cluster, conflicts []Conflict) {
	if len(sides) == 0 {
		panic("fence: Merge of no side")
	}
	adopted = -1
	first := func(s Side) int {
		if len(s.Members) == 0 {
			panic("fence: Merge of a side with no member")
		}
		return slices.Min(s.Members)
	}
	for k, s := range sides {
		if len(s.Cluster) != len(sides[0].Cluster) {
			panic(fmt.Sprintf("fence: Merge of copies of %d and %d nodes", len(sides[0].Cluster), len(s.Cluster)))
		}
		f := first(s)
		switch {
		case adopted < 0:
			adopted = k
		case s.Primary != sides[adopted].Primary:
			if s.Primary {
				adopted = k
			}
		case f < first(sides[adopted]):
			adopted = k
		}
	}
	merged = sides[adopted].Cluster.Clone()
	// A node's own FAILSAFE-SHUN (in its own side's copy) survives when the adopted copy has it
	// not shunned (in service, or a replica failed): its side never saw the shun, and only the
	// operator's recover undoes one.
	for k, s := range sides {
		for _, i := range s.Members {
			if k != adopted && i < len(merged) && !sides[adopted].Cluster[i].Shunned && s.Cluster[i].Failsafe {
				merged[i] = s.Cluster[i]
			}
		}
	}
	for k, s := range sides {
		if k == adopted {
			continue
		}
		for i := range merged {
			if s.Cluster[i] != merged[i] {
				conflicts = append(conflicts, Conflict{Node: i, Side: k, Kept: merged[i], Lost: s.Cluster[i]})
			}
		}
	}
	return adopted, merged, conflicts
}
