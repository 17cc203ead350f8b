package check

import (
	"fmt"
	"slices"

	"github.com/failsim/failsim/property"
	"github.com/failsim/failsim/timeline"
)

// Family is a kind of generated trace. The zero value is Benign.
type Family uint8

// The trace families.
const (
	// Benign traces hold only faults a statemap should ride through: slowness below the
	// checker's budget, query stalls and timeouts, lock-contention bursts, too many
	// connections, wrong credentials, flapping stalls, and blips of any fault shorter than its
	// threshold tolerates.
	Benign Family = iota
	// Fatal traces are benign noise plus one fault on the master that the statemap fences,
	// sustained to the end of the trace.
	Fatal
	// Mixed traces hold benign and fatal faults on any node, policy changes, manager outages
	// and operator recovers.
	Mixed
	// Partition traces are the managers as a group under stress: 0-2 active witnesses beside
	// the nodes, network partitions (isolating the master, a replica or a witness, splitting a
	// minority from a majority, flapping), host crashes and restarts, and manager churn, on
	// healthy databases.
	Partition
	numFamilies
)

// familyNames are the families' names, as --family takes them and a timeline's "family"
// statement records them (the words package timeline reads there: family_test.go holds the two
// equal).
var familyNames = [numFamilies]string{"benign", "fatal", "mixed", "partition"}

// String is the family's name, as --family and a timeline's "family" statement write it.
func (f Family) String() string {
	if f < numFamilies {
		return familyNames[f]
	}
	return fmt.Sprintf("family(%d)", uint8(f))
}

// ParseFamily reads a family name.
func ParseFamily(s string) (Family, bool) {
	i := slices.Index(familyNames[:], s)
	return Family(i), i >= 0
}

// Applies reports whether property name is judged on traces of family f: no-false-failover only
// on benign traces, where every fence is a false one (a trace records its family, so that its
// replay judges it so too); detects-death-within only where a fatal
// fault can happen; the group's (no-split-brain, no-fence-without-quorum) only on partition
// traces, where single-master and only-coordinator-fences do not apply (each side's copy may
// hold its own master, and the coordinator is a view's, not the first manager up); the other
// safety properties everywhere.
func (f Family) Applies(name string) bool {
	switch name {
	case property.NoSplitBrain, property.NoFenceWithoutQuorum, property.MinorityShunsWithin, property.MajorityKeepsWriterWithin:
		return f == Partition
	case property.SingleMaster, property.OnlyCoordinatorFences:
		return f != Partition
	case property.NoFalseFailover:
		return f == Benign
	case property.DetectsDeathWithin:
		return f == Fatal || f == Mixed
	}
	return true
}

// MaxNodes is the most nodes a trace of family f may have: a timeline's cluster holds at most
// timeline.MaxMembers members, and a partition trace may add up to len(witnessNames) witnesses
// beside its nodes.
func (f Family) MaxNodes() int {
	if f == Partition {
		return timeline.MaxMembers - len(witnessNames)
	}
	return timeline.MaxMembers
}

// Defaults returns the properties run on family f when none are named: every one that applies,
// in the order of property.Names, but those that judge a workload's writes (a workload adds
// its own: Config.Workload).
func (f Family) Defaults() []property.Spec {
	var out []property.Spec
	for _, n := range property.Names() {
		if f.Applies(n) && !property.NeedsWorkload(n) {
			out = append(out, property.Spec{Name: n})
		}
	}
	return out
}
