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

// TestMerge pins issue 10's rule to exact values: the primary side's copy wins; between two
// primaries, or two non-primaries, the side holding the first member in cluster order; a
// member's own failsafe shun survives when the adopted copy has it in service; every node on
// which another side differed from the merged copy is a conflict, side by side, in cluster
// order.
func TestMerge(t *testing.T) {
	for _, tc := range []struct {
		name      string
		sides     []Side
		adopted   int
		merged    Cluster
		conflicts []Conflict
	}{
		{
			name: "the primary majority failed the isolated master over",
			sides: []Side{
				{Cluster: Cluster{master, replica, replica}, Members: []int{0}},
				{Cluster: Cluster{failedM, master, replica}, Members: []int{1, 2}, Primary: true},
			},
			adopted: 1,
			merged:  Cluster{failedM, master, replica},
			conflicts: []Conflict{
				{Node: 0, Side: 0, Kept: failedM, Lost: master},
				{Node: 1, Side: 0, Kept: master, Lost: replica},
			},
		},
		{
			name: "both primary: the side of the first member in cluster order",
			sides: []Side{
				{Cluster: Cluster{failedM, master, replica, replica}, Members: []int{3, 1}, Primary: true},
				{Cluster: Cluster{master, replica, failedR, replica}, Members: []int{2, 0}, Primary: true},
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
			name: "none primary: the side of the first member in cluster order",
			sides: []Side{
				{Cluster: Cluster{master, replica}, Members: []int{0}},
				{Cluster: Cluster{manualM, replica}, Members: []int{1}},
			},
			adopted:   0,
			merged:    Cluster{master, replica},
			conflicts: []Conflict{{Node: 0, Side: 1, Kept: master, Lost: manualM}},
		},
		{
			name: "three sides, the primary last; identical copies conflict nowhere",
			sides: []Side{
				{Cluster: Cluster{master, replica, replica}, Members: []int{0}},
				{Cluster: Cluster{master, replica, replica}, Members: []int{1}},
				{Cluster: Cluster{failedM, replica, master}, Members: []int{2}, Primary: true},
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
			name: "none primary: the adopted side never saw the other side's own failsafe shuns, which are kept",
			sides: []Side{
				{Cluster: Cluster{failsafeR, master, replica, failsafeR}, Members: []int{0, 3}},
				{Cluster: Cluster{replica, failsafeM, failsafeR, replica}, Members: []int{1, 2}},
			},
			adopted: 0,
			merged:  Cluster{failsafeR, failsafeM, failsafeR, failsafeR},
			conflicts: []Conflict{
				{Node: 0, Side: 1, Kept: failsafeR, Lost: replica},
				{Node: 3, Side: 1, Kept: failsafeR, Lost: replica},
			},
		},
		{
			name: "a shun of a member the adopted copy failed over is not kept: the adopted copy knows it is out",
			sides: []Side{
				{Cluster: Cluster{failsafeM, replica, replica}, Members: []int{0}},
				{Cluster: Cluster{failedM, master, replica}, Members: []int{1, 2}, Primary: true},
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
			sides: []Side{
				{Cluster: Cluster{master, failsafeR}, Members: []int{1}},
				{Cluster: Cluster{master, failedR}, Members: []int{0}, Primary: true},
			},
			adopted:   1,
			merged:    Cluster{master, failsafeR},
			conflicts: nil,
		},
		{
			name:    "one side: adopted, nothing overwritten",
			sides:   []Side{{Cluster: Cluster{master}, Members: []int{0}}},
			adopted: 0,
			merged:  Cluster{master},
		},
	} {
		adopted, merged, conflicts := Merge(tc.sides...)
		if adopted != tc.adopted || !slices.Equal(merged, tc.merged) || !slices.Equal(conflicts, tc.conflicts) {
			t.Errorf("%s:\n got %d %+v %+v\nwant %d %+v %+v", tc.name, adopted, merged, conflicts, tc.adopted, tc.merged, tc.conflicts)
		}
		merged[0] = failedR
		if tc.sides[adopted].Cluster[0] == failedR {
			t.Errorf("%s: the merged cluster shares the adopted side's copy", tc.name)
		}
	}
}

// TestMergePanics: merging nothing, a side of no member, or copies of different clusters is a
// caller's bug.
func TestMergePanics(t *testing.T) {
	mustPanic(t, "no side", func() { Merge() })
	mustPanic(t, "no member", func() { Merge(Side{Cluster: Cluster{master}}) })
	mustPanic(t, "lengths", func() {
		Merge(Side{Cluster: Cluster{master}, Members: []int{0}}, Side{Cluster: Cluster{master, replica}, Members: []int{1}})
	})
}
