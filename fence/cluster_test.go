package fence

import (
	"slices"
	"testing"
)

var (
	master  = Member{Role: Master}
	replica = Member{Role: Replica}
	failedM = Member{Role: Replica, Failed: true, Shunned: true} // a master failed over
	failedR = Member{Role: Replica, Failed: true}
	manualM = Member{Role: Master, Failed: true, Shunned: true} // a master failed under manual policy
	// Shunned by their own managers' failsafe.
	failsafeM = Member{Role: Master, Failed: true, Shunned: true, Failsafe: true}
	failsafeR = Member{Role: Replica, Failed: true, Shunned: true, Failsafe: true}
)

// TestClone: a clone evolves apart from the original.
func TestClone(t *testing.T) {
	a := Cluster{master, replica}
	b := a.Clone()
	b[0] = failedM
	b[1] = master
	if !slices.Equal(a, Cluster{master, replica}) || a.Master() != 0 || b.Master() != 1 {
		t.Fatalf("a %+v, b %+v", a, b)
	}
	if (Cluster{manualM, replica}).Master() != -1 {
		t.Fatal("a failed master is in service")
	}
}

// TestMerge pins how copies merge to exact values (issue 10's rule; which side is adopted is
// group's rule, group.Adopt, and given here): the adopted copy wins; a member's own failsafe
// shun survives when the adopted copy has it in service; every node on which another side
// differed from the merged copy is a conflict, side by side, in cluster order.
func TestMerge(t *testing.T) {
	type side struct {
		cluster Cluster
		members []int // the nodes whose own copy this is
	}
	for _, tc := range []struct {
		name      string
		sides     []side
		adopted   int
		merged    Cluster
		shuns     []int
		conflicts []Conflict
	}{
		{
			name: "the primary majority failed the isolated master over",
			sides: []side{
				{Cluster{master, replica, replica}, []int{0}},
				{Cluster{failedM, master, replica}, []int{1, 2}},
			},
			adopted: 1,
			merged:  Cluster{failedM, master, replica},
			conflicts: []Conflict{
				{Node: 0, Side: 0, Kept: failedM, Lost: master},
				{Node: 1, Side: 0, Kept: master, Lost: replica},
			},
		},
		{
			name: "the second side adopted, its copy overwrites the first's",
			sides: []side{
				{Cluster{failedM, master, replica, replica}, []int{3, 1}},
				{Cluster{master, replica, failedR, replica}, []int{2, 0}},
			},
			adopted: 1,
			merged:  Cluster{master, replica, failedR, replica},
			conflicts: []Conflict{
				{Node: 0, Side: 0, Kept: master, Lost: failedM},
				{Node: 1, Side: 0, Kept: replica, Lost: master},
				{Node: 2, Side: 0, Kept: failedR, Lost: replica},
			},
		},
		{
			name: "the first side adopted",
			sides: []side{
				{Cluster{master, replica}, []int{0}},
				{Cluster{manualM, replica}, []int{1}},
			},
			adopted:   0,
			merged:    Cluster{master, replica},
			conflicts: []Conflict{{Node: 0, Side: 1, Kept: master, Lost: manualM}},
		},
		{
			name: "three sides, the last adopted; identical copies conflict nowhere",
			sides: []side{
				{Cluster{master, replica, replica}, []int{0}},
				{Cluster{master, replica, replica}, []int{1}},
				{Cluster{failedM, replica, master}, []int{2}},
			},
			adopted: 2,
			merged:  Cluster{failedM, replica, master},
			conflicts: []Conflict{
				{Node: 0, Side: 0, Kept: failedM, Lost: master},
				{Node: 2, Side: 0, Kept: master, Lost: replica},
				{Node: 0, Side: 1, Kept: failedM, Lost: master},
				{Node: 2, Side: 1, Kept: master, Lost: replica},
			},
		},
		{
			name: "the adopted side never saw the other side's own failsafe shuns, which are kept",
			sides: []side{
				{Cluster{failsafeR, master, replica, failsafeR}, []int{0, 3}},
				{Cluster{replica, failsafeM, failsafeR, replica}, []int{1, 2}},
			},
			adopted: 0,
			merged:  Cluster{failsafeR, failsafeM, failsafeR, failsafeR},
			shuns:   []int{1, 2},
			conflicts: []Conflict{
				{Node: 0, Side: 1, Kept: failsafeR, Lost: replica},
				{Node: 3, Side: 1, Kept: failsafeR, Lost: replica},
			},
		},
		{
			name: "a shun of a member the adopted copy failed over is not kept: the adopted copy knows it is out",
			sides: []side{
				{Cluster{failsafeM, replica, replica}, []int{0}},
				{Cluster{failedM, master, replica}, []int{1, 2}},
			},
			adopted: 1,
			merged:  Cluster{failedM, master, replica},
			conflicts: []Conflict{
				{Node: 0, Side: 0, Kept: failedM, Lost: failsafeM},
				{Node: 1, Side: 0, Kept: master, Lost: replica},
			},
		},
		{
			name: "a replica the adopted copy only failed keeps its own shun: it would come back by itself",
			sides: []side{
				{Cluster{master, failsafeR}, []int{1}},
				{Cluster{master, failedR}, []int{0}},
			},
			adopted:   1,
			merged:    Cluster{master, failsafeR},
			shuns:     []int{1},
			conflicts: nil,
		},
		{
			name: "a shun in a copy that is not the node's own is not kept",
			sides: []side{
				{Cluster{master, failsafeR}, []int{0}},
				{Cluster{master, replica}, []int{1}},
			},
			adopted:   1,
			merged:    Cluster{master, replica},
			conflicts: []Conflict{{Node: 1, Side: 0, Kept: replica, Lost: failsafeR}},
		},
		{
			name:    "one side: adopted, nothing overwritten",
			sides:   []side{{Cluster{master}, []int{0}}},
			adopted: 0,
			merged:  Cluster{master},
		},
	} {
		copies := make([]Cluster, len(tc.sides))
		for k, s := range tc.sides {
			copies[k] = s.cluster
		}
		own := func(i int) int {
			for k, s := range tc.sides {
				if slices.Contains(s.members, i) {
					return k
				}
			}
			return -1
		}
		merged, shuns, conflicts := merge(copies, tc.adopted, own)
		if !slices.Equal(merged, tc.merged) || !slices.Equal(shuns, tc.shuns) || !slices.Equal(conflicts, tc.conflicts) {
			t.Errorf("%s:\n got %+v %v %+v\nwant %+v %v %+v", tc.name, merged, shuns, conflicts, tc.merged, tc.shuns, tc.conflicts)
		}
		if len(shuns) > 0 {
			merged[0] = failedR
			if copies[tc.adopted][0] == failedR {
				t.Errorf("%s: a merged cluster that keeps shuns shares the adopted side's copy", tc.name)
			}
		}
	}
}

// TestMergePanics: merging copies of different clusters is a caller's bug.
func TestMergePanics(t *testing.T) {
	mustPanic(t, "lengths", func() { merge([]Cluster{{master}, {master, replica}}, 0, func(int) int { return -1 }) })
}
