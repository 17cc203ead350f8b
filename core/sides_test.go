package core

import (
	"slices"
	"testing"

	"github.com/failsim/failsim/fence"
)

// copies is a managers' view of the copies for Merge: every node holds copy 0, whose master in
// service is master; roles gives how each node stands in it.
type copies struct {
	master int
	roles  []fence.NodeView
}

func (c copies) CopyOf(int) int            { return 0 }
func (c copies) MasterOf(int) int          { return c.master }
func (c copies) Node(i int) fence.NodeView { return c.roles[i] }

func replica() fence.NodeView { return fence.NodeView{Role: fence.Replica} }
func master() fence.NodeView  { return fence.NodeView{Role: fence.Master} }

// TestMergeOverwritesTheOtherSidesMaster: rule 61. db1 went on taking its side's writes after
// db2 was promoted on the other; the merged copy keeps db2, so db1's history is overwritten and
// db1 leaves the topology, no longer deferred.
func TestMergeOverwritesTheOtherSidesMaster(t *testing.T) {
	top := Topology{Writer, Writer, Replica}
	s := NewSides(3, 0, Sides{})
	s.Promoted(0, 1, true, []int{2})
	p := Merge(top, &s, copies{master: 1, roles: []fence.NodeView{{Role: fence.Master, Failed: true}, master(), replica()}}, 0, MergePlan{})
	if p.Kept != 1 || p.Revived || !slices.Equal(p.Overwritten, []int{0}) || len(p.Repoint) != 0 || len(p.Rejoined) != 0 {
		t.Fatalf("plan %+v", p)
	}
	if !slices.Equal(top, Topology{Out, Writer, Replica}) || s.Deferred[0] || !slices.Equal(s.Src, []int{-1, -1, 1}) {
		t.Fatalf("topology %v, sides %+v", top, s)
	}
}

// TestMergeRevivesTheKeptMaster: the adopted copy names a master the topology holds as out: it
// takes writes again; the other writer is overwritten, and, a replica in service in the merged
// copy, rejoins under the kept master, as does the replica that followed it.
func TestMergeRevivesTheKeptMaster(t *testing.T) {
	top := Topology{Out, Writer, Replica}
	s := Sides{Src: []int{-1, -1, 1}, Cut: []int{-1, -1, -1}, Deferred: make([]bool, 3)}
	p := Merge(top, &s, copies{master: 0, roles: []fence.NodeView{master(), replica(), replica()}}, 0, MergePlan{})
	if p.Kept != 0 || !p.Revived || !slices.Equal(p.Overwritten, []int{1}) || !slices.Equal(p.Repoint, []int{2}) || !slices.Equal(p.Rejoined, []int{1}) {
		t.Fatalf("plan %+v", p)
	}
	if !slices.Equal(top, Topology{Writer, Replica, Replica}) || !slices.Equal(s.Src, []int{-1, 0, 0}) {
		t.Fatalf("topology %v, sides %+v", top, s)
	}
}

// TestMergeWithoutAWriter: a merged copy whose master in service takes no writes keeps none:
// nothing is repointed, nobody is overwritten unless it took writes.
func TestMergeWithoutAWriter(t *testing.T) {
	top := Topology{Replica, Replica, Replica}
	s := NewSides(3, 0, Sides{})
	p := Merge(top, &s, copies{master: -1, roles: []fence.NodeView{replica(), replica(), replica()}}, 0, MergePlan{})
	if p.Kept != -1 || p.Revived || len(p.Overwritten)+len(p.Repoint)+len(p.Rejoined) != 0 {
		t.Fatalf("plan %+v", p)
	}
}

// TestRecutFollowsTheSegments: a replica's stream is cut while it cannot reach the master it
// replicates and restored when it can again; a writer's never is.
func TestRecutFollowsTheSegments(t *testing.T) {
	top := Topology{Writer, Replica, Replica}
	s := NewSides(3, 0, Sides{})
	apart := func(a, b int) bool { return (a == 2) == (b == 2) } // db3 alone
	got := s.Recut(top, apart, nil)
	if !slices.Equal(got, []CutChange{{Node: 2, Was: -1, Cut: 0}}) {
		t.Fatalf("cut: %+v", got)
	}
	if got = s.Recut(top, apart, got[:0]); len(got) != 0 {
		t.Fatalf("cut again: %+v", got)
	}
	healed := func(a, b int) bool { return true }
	if got = s.Recut(top, healed, got[:0]); !slices.Equal(got, []CutChange{{Node: 2, Was: 0, Cut: -1}}) {
		t.Fatalf("healed: %+v", got)
	}
}
