package core

import "github.com/failsim/failsim/fence"

// Sides is what the replication topology keeps of a partition, beside each node's Role
// (docs/engine.md, "The client's view during a partition"; rules 57-63): whose history each
// replica follows, which streams a partition cut, and which masters failed over went on taking
// their side's writes. The simulator steps its replication model with what Merge and Recut
// decide from it.
type Sides struct {
	// Src is, per node, the writer whose history it replicates while a replica; -1 for none.
	Src []int
	// Cut is, per node, the writer its stream from was cut by a partition; -1 for none.
	Cut []int
	// Deferred is, per node, a master failed over while it went on on its side: the merge
	// decides its loss.
	Deferred []bool
}

// NewSides returns the sides of n nodes whose master is master at the start, reusing old's
// space: every other node replicates the master, no stream is cut.
func NewSides(n, master int, old Sides) Sides {
	s := Sides{Src: reuse(old.Src, n), Cut: reuse(old.Cut, n), Deferred: reuse(old.Deferred, n)}
	for j := range s.Src {
		s.Src[j], s.Cut[j] = master, -1
	}
	s.Src[master] = -1
	return s
}

// reuse returns s resized to n zero values, reusing its space.
func reuse[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// Promoted notes a failover to to that repointed the replicas repointed (Topology.Promote):
// they replicate to now, which replicates none; from, if it goes on taking its side's writes,
// is deferred to the merge.
func (s *Sides) Promoted(from, to int, goesOn bool, repointed []int) {
	for _, j := range repointed {
		s.Src[j] = to
	}
	s.Src[to] = -1
	if goesOn {
		s.Deferred[from] = true
	}
}

// Recovered notes node back in the topology, replicating of (-1 for none: a master).
func (s *Sides) Recovered(node, of int) { s.Src[node] = of }

// MergePlan is what a merge of the sides holding one copy of the cluster's state does to the
// replication topology, in the order the model is told it: Revived, then Overwritten and
// Repoint (one repl.Merge), then Rejoined.
type MergePlan struct {
	// Kept is the merged copy's master in service if it takes writes; -1 for none.
	Kept int
	// Revived: Kept was out of the topology; the adopted copy names it master in service, so it
	// takes writes again, on its own history.
	Revived bool
	// Overwritten are the other masters holding the copy (a writer, or a master failed over
	// while it went on on its side): their histories are overwritten by Kept's.
	Overwritten []int
	// Repoint are the replicas holding the copy that replicated another history: they
	// replicate Kept.
	Repoint []int
	// Rejoined are the nodes out of the topology that the merged copy holds as replicas in
	// service: they replicate Kept again (the engine may promote them later).
	Rejoined []int
}

// Copies is what Merge reads of the managers' copies of the cluster's state (fence.View has it):
// the copy node i's manager holds, the master in service of that copy, and how i stands in it.
type Copies interface {
	CopyOf(i int) int
	MasterOf(i int) int
	Node(i int) fence.NodeView
}

// Merge decides what merging the sides now holding copy k of the cluster's state (as v holds
// the copies) does to topology t and s, and applies it to both. The plan's slices reuse
// old's space.
func Merge(t Topology, s *Sides, v Copies, k int, old MergePlan) MergePlan {
	p := MergePlan{Kept: -1, Overwritten: old.Overwritten[:0], Repoint: old.Repoint[:0], Rejoined: old.Rejoined[:0]}
	for i := range t {
		if v.CopyOf(i) == k {
			p.Kept = v.MasterOf(i)
			break
		}
	}
	if p.Kept >= 0 && t[p.Kept] == Out {
		p.Revived = true
		t[p.Kept] = Writer
	}
	if p.Kept >= 0 && t[p.Kept] != Writer {
		p.Kept = -1
	}
	for i, x := range t {
		if v.CopyOf(i) != k || i == p.Kept {
			continue
		}
		switch {
		case x == Writer || (x == Out && s.Deferred[i]):
			p.Overwritten = append(p.Overwritten, i)
		case x == Replica && p.Kept >= 0 && s.Src[i] != p.Kept:
			p.Repoint = append(p.Repoint, i)
		}
	}
	if p.Kept >= 0 {
		s.Deferred[p.Kept] = false
	}
	for _, i := range p.Overwritten {
		t[i], s.Deferred[i] = Out, false
	}
	for _, i := range p.Repoint {
		s.Src[i] = p.Kept
	}
	for i, x := range t {
		if x != Out || v.CopyOf(i) != k {
			continue
		}
		if n := v.Node(i); n.Role == fence.Replica && !n.Failed {
			p.Rejoined = append(p.Rejoined, i)
			t[i], s.Src[i] = Replica, p.Kept
		}
	}
	return p
}

// CutChange is a replica's stream cut or restored by a partition: Cut is the writer it is cut
// from now (-1: restored), Was the one it was cut from before (-1: none).
type CutChange struct {
	Node, Was, Cut int
}

// Recut cuts each replica's stream while it is on another segment than the master it
// replicates (reaches(a, b): on one segment), and restores it when they reach each other
// again; it returns the streams that changed, appended to dst.
func (s *Sides) Recut(t Topology, reaches func(a, b int) bool, dst []CutChange) []CutChange {
	for j, x := range t {
		cut := -1
		if x == Replica && s.Src[j] >= 0 && !reaches(j, s.Src[j]) {
			cut = s.Src[j]
		}
		if was := s.Cut[j]; cut != was {
			s.Cut[j] = cut
			dst = append(dst, CutChange{Node: j, Was: was, Cut: cut})
		}
	}
	return dst
}
