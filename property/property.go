package property

import (
	"fmt"
	"slices"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/narrate"
	"github.com/failsim/failsim/statemap"
)

// The built-in properties, by name.
const (
	// NoFalseFailover: the master is never fenced falsely (a failover, a master failed with no
	// replica eligible, or a master failed under manual policy). On a benign trace
	// (Trace.Benign) every fence of the master is false. Elsewhere a fence is false when the
	// master's database was alive at that moment by the fault on its link
	// (faultmodel.DatabaseDead): no fault, stall, slow, delay, error, or a forced condition no dead
	// database shows.
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
	// stops being writable within DUR (DefaultMinorityShunsWithin without one) of its manager's
	// leaving the primary views. A node whose manager is down is not judged.
	MinorityShunsWithin = "minority-shuns-within"
	// MajorityKeepsWriterWithin [DUR]: a primary view that holds an eligible replica and no
	// writable master has one again within DUR (DefaultMajorityKeepsWriterWithin without
	// one), under automatic policy.
	MajorityKeepsWriterWithin = "majority-keeps-writer-within"
)

// names are the properties in the order failsim check runs and reports them.
var names = [...]string{NoFalseFailover, DetectsDeathWithin, SingleMaster, NoFenceInMaintenance, OnlyCoordinatorFences, SelfHealResets, MaxOutage, NoAckedWriteLost, NoSplitBrain, NoFenceWithoutQuorum, MinorityShunsWithin, MajorityKeepsWriterWithin}

// Names returns the built-in properties' names in the order failsim check runs and reports
// them.
func Names() []string { return slices.Clone(names[:]) }

// Property is one property judging one run. It is told each event of the run as it is decided,
// and says whether it must look at the engine at the end of the instant; it looks only then, so
// a property costs what changes in the run, not its length. A Set runs properties as a
// drive.Observer.
type Property interface {
	// Event judges event ev, which points into storage reused after the call; it returns true
	// to look at the engine at the end of the instant.
	Event(ev act.Event) (look bool)
	// Look judges the engine e at the end of instant at: at the first instant of the run, and
	// at each after an Event or the last Look asked for it. It returns true to look again at the
	// end of the next instant, whatever that instant's events. e is to be read, not called into.
	Look(at time.Duration, e fence.View) (again bool)
	// Verdict says whether the property held so far, and if not, its first violation: the clock
	// time it was found at, then what went wrong ("00:02:20: master db1 was fenced ...").
	Verdict() (held bool, why string)
}

// Trace is what a property knows of the run it judges before the run starts.
type Trace struct {
	Names []string // the nodes' names in cluster order, then the witnesses': the events' indices stand for them
	// Nodes is the number of database nodes, the first Nodes of Names; 0 means all of them.
	Nodes    int
	Start    time.Time     // the clock time of t=0, for the times a verdict names
	Interval time.Duration // the checker's interval between a node's probe starts
	Timeout  time.Duration // the checker's probe budget
	Policy   fence.Policy  // the cluster's policy at t=0
	// Benign says the run is a benign trace of failsim check (a timeline recording "family
	// benign"): every fence of the master is a false one.
	Benign bool
	// Map is the statemap the run is under, for the rule of a fault's condition; nil means the
	// shipped defaults.
	Map *statemap.Map
}

// nodes is the number of database nodes of tr.
func (tr Trace) nodes() int {
	if tr.Nodes > 0 {
		return tr.Nodes
	}
	return len(tr.Names)
}

// New returns property s, fresh, for one run of tr. The error says what is wrong with s, as
// NewSpec does.
func New(s Spec, tr Trace) (Property, error) {
	if _, err := NewSpec(s.Name, s.args()); err != nil {
		return nil, err
	}
	j := judge{start: tr.Start}
	switch s.Name {
	case NoFalseFailover:
		return newNoFalseFailover(j, tr), nil
	case DetectsDeathWithin:
		return newDetectsDeath(j, tr, s.within()), nil
	case SingleMaster:
		return &singleMaster{judge: j}, nil
	case NoFenceInMaintenance:
		return &noFenceInMaintenance{judge: j, names: tr.Names, maint: tr.Policy == fence.Maintenance}, nil
	case OnlyCoordinatorFences:
		return newOnlyCoordinator(j, tr), nil
	case MaxOutage:
		d, _ := time.ParseDuration(s.Arg)
		return &maxOutage{judge: j, max: d}, nil
	case NoAckedWriteLost:
		return &noAckedWriteLost{judge: j, names: tr.Names}, nil
	case NoSplitBrain:
		return &noSplitBrain{judge: j, names: tr.Names, most: s.within()}, nil
	case NoFenceWithoutQuorum:
		return newNoFenceWithoutQuorum(j, tr), nil
	case MinorityShunsWithin:
		return newMinorityShuns(j, tr, s.within()), nil
	case MajorityKeepsWriterWithin:
		return newMajorityKeepsWriter(j, tr, s.within()), nil
	}
	return &selfHeal{judge: j, names: tr.Names}, nil
}

// judge keeps a property's first violation.
type judge struct {
	start time.Time
	bad   bool
	why   string
}

// Verdict implements Property.
func (j *judge) Verdict() (bool, string) { return !j.bad, j.why }

// fail records a violation found at virtual time at, unless one is recorded already.
func (j *judge) fail(at time.Duration, format string, args ...any) {
	if j.bad {
		return
	}
	j.bad = true
	j.why = narrate.Clock(j.start, at) + ": " + fmt.Sprintf(format, args...)
}

// name is node i's name, "none" for -1.
func name(names []string, i int) string {
	if i < 0 {
		return "none"
	}
	return names[i]
}
