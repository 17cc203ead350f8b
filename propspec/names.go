package propspec

import "slices"

// The built-in properties, by name. Package property says how each is judged.
const (
	// NoFalseFailover: the master is never fenced falsely (a failover, a master failed with no
	// replica eligible, or a master failed under manual policy). On a benign trace
	// (property.Trace.Benign) every fence of the master is false. Elsewhere a fence is false
	// when the master's database was alive at that moment by the fault on its link
	// (faultmodel.DatabaseDead): no fault, stall, slow, delay, error, or a forced condition no
	// dead database shows.
	NoFalseFailover = "no-false-failover"
	// DetectsDeathWithin [DUR]: a fault on the master in service that the statemap fences,
	// sustained for DUR, is fenced within DUR of its start. Without DUR, the statemap's own
	// promise for the fault's condition: the checker's detection latency (max(interval,
	// timeout), plus the probe's own duration) plus threshold ticks. A fault is judged only
	// while the policy is automatic and the master's manager and a coordinator are up.
	DetectsDeathWithin = "detects-death-within"
	// SingleMaster: never two masters in service at once.
	SingleMaster = "single-master"
	// NoFenceInMaintenance: in maintenance no alarm is raised, aged, expired or acted on.
	NoFenceInMaintenance = "no-fence-in-maintenance"
	// OnlyCoordinatorFences: every expired alarm is acted on by the coordinator, the first
	// node in cluster order whose manager is up; with no manager up nothing is fenced.
	OnlyCoordinatorFences = "only-coordinator-fences"
	// SelfHealResets: a node whose last probe was ok has no alarm: an ok probe always deletes
	// the node's alarms.
	SelfHealResets = "self-heal-resets"
	// NoSplitBrain [DUR]: the split-brain windows, two or more nodes writable at once (master,
	// and in their own side's copy of the cluster's state neither failed nor shunned), last at
	// most DUR in all; without DUR, 0 (a zero-length window holds).
	NoSplitBrain = "no-split-brain"
	// NoFenceWithoutQuorum: every fence, an expired alarm acted on or a host failed on an
	// unanswered ping, is made by the coordinator of a primary view.
	NoFenceWithoutQuorum = "no-fence-without-quorum"
	// MinorityShunsWithin [DUR]: a node writable while its manager runs in no primary view
	// stops being writable within DUR (property.DefaultMinorityShunsWithin without one) of its
	// manager's leaving the primary views. A node whose manager is down is not judged.
	MinorityShunsWithin = "minority-shuns-within"
	// MajorityKeepsWriterWithin [DUR]: a primary view that holds an eligible replica and no
	// writable master has one again within DUR (property.DefaultMajorityKeepsWriterWithin
	// without one), under automatic policy.
	MajorityKeepsWriterWithin = "majority-keeps-writer-within"
)

// The client's properties judge the workload's writes (a timeline's "workload", failsim
// check's --workload) on the replication model's summary, which the replay tells at its end
// (repl.Final). A run without a workload tells none: they hold.
const (
	// MaxOutage DUR: no run of time with no acknowledged write lasts longer than DUR.
	MaxOutage = "max-outage"
	// NoAckedWriteLost: no acknowledged write is lost, at a failover or when partition sides
	// merge and one side's copy is overwritten.
	NoAckedWriteLost = "no-acked-write-lost"
)

// names are the properties in the order failsim check runs and reports them.
var names = [...]string{NoFalseFailover, DetectsDeathWithin, SingleMaster, NoFenceInMaintenance, OnlyCoordinatorFences, SelfHealResets, MaxOutage, NoAckedWriteLost, NoSplitBrain, NoFenceWithoutQuorum, MinorityShunsWithin, MajorityKeepsWriterWithin}

// Names returns the built-in properties' names in the order failsim check runs and reports
// them.
func Names() []string { return slices.Clone(names[:]) }

// NeedsWorkload reports whether property name judges the workload's writes, and so means
// nothing without one.
func NeedsWorkload(name string) bool { return name == MaxOutage || name == NoAckedWriteLost }
