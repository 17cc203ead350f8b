package property

import "github.com/failsim/failsim/propspec"

// Spec names one property and its argument: propspec.Spec, which a timeline's expect lines
// and failsim check's --property state. Make one with NewSpec or ParseSpec, which check it.
type Spec = propspec.Spec

// NewSpec checks that property name exists and takes args, and returns its spec: see
// propspec.NewSpec.
func NewSpec(name string, args []string) (Spec, error) { return propspec.NewSpec(name, args) }

// ParseSpec reads NAME or NAME=ARG, as failsim check's --property takes it, and checks it as
// NewSpec does: see propspec.ParseSpec.
func ParseSpec(s string) (Spec, error) { return propspec.ParseSpec(s) }

// Names returns the built-in properties' names in the order failsim check runs and reports
// them.
func Names() []string { return propspec.Names() }

// NeedsWorkload reports whether property name judges the workload's writes, and so means
// nothing without one.
func NeedsWorkload(name string) bool { return propspec.NeedsWorkload(name) }

// The built-in properties, by name: propspec's, which documents each.
const (
	NoFalseFailover           = propspec.NoFalseFailover
	DetectsDeathWithin        = propspec.DetectsDeathWithin
	SingleMaster              = propspec.SingleMaster
	NoFenceInMaintenance      = propspec.NoFenceInMaintenance
	OnlyCoordinatorFences     = propspec.OnlyCoordinatorFences
	SelfHealResets            = propspec.SelfHealResets
	NoSplitBrain              = propspec.NoSplitBrain
	NoFenceWithoutQuorum      = propspec.NoFenceWithoutQuorum
	MinorityShunsWithin       = propspec.MinorityShunsWithin
	MajorityKeepsWriterWithin = propspec.MajorityKeepsWriterWithin
	MaxOutage                 = propspec.MaxOutage
	NoAckedWriteLost          = propspec.NoAckedWriteLost
)
