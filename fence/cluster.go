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
// makes a copy that evolves apart, as each manager's copy does during a partition, and merge
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

// Conflict is one node on which an overwritten side's copy differed from the adopted one.
type Conflict struct {
	Node int    // the node
	Side int    // the overwritten side: its index among merge's sides, its copy number in CopiesMerged
	Kept Member // what the adopted copy says, and the merged cluster keeps
	Lost Member // what the overwritten side's copy said
}

// merge joins the copies of sides whose views merge into the adopted one's (which side that
// is, the group decides: group.Adopt). A node's own FAILSAFE-SHUN survives when the adopted copy
// does not have the node shunned (in service, or a replica failed): its side never saw the
// shun, and only the operator's recover undoes one. own gives the index of the side whose copy
// is the node's own (its manager's), or -1 when it holds none of them. merge returns the merged
// copy, which is sides[adopted] itself when it keeps no shun, the nodes whose shun it kept, and
// every conflict it overwrote: for each other side in order, each node, in cluster order, on
// which that side's copy differs from the merged one. Copies of different lengths panic.
func merge(sides []Cluster, adopted int, own func(node int) int) (merged Cluster, shuns []int, conflicts []Conflict) {
	win := sides[adopted]
	for _, s := range sides {
		if len(s) != len(win) {
			panic(fmt.Sprintf("fence: merge of copies of %d and %d nodes", len(win), len(s)))
		}
	}
	for i := range win {
		if k := own(i); k >= 0 && k != adopted && !win[i].Shunned && sides[k][i].Failsafe {
			shuns = append(shuns, i)
		}
	}
	merged = win
	if len(shuns) > 0 {
		merged = win.Clone()
		for _, i := range shuns {
			merged[i] = sides[own(i)][i]
		}
	}
	for k, s := range sides {
		if k == adopted {
			continue
		}
		for i := range merged {
			if s[i] != merged[i] {
				conflicts = append(conflicts, Conflict{Node: i, Side: k, Kept: merged[i], Lost: s[i]})
			}
		}
	}
	return merged, shuns, conflicts
}
