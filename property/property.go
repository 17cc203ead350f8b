package property

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

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
	if _, err := NewSpec(s.Name, s.Args()); err != nil {
		return nil, err
	}
	j := judge{start: tr.Start}
	switch s.Name {
	case NoFalseFailover:
		return newNoFalseFailover(j, tr), nil
	case DetectsDeathWithin:
		return newDetectsDeath(j, tr, s.Duration()), nil
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
		return &noSplitBrain{judge: j, names: tr.Names, most: s.Duration()}, nil
	case NoFenceWithoutQuorum:
		return newNoFenceWithoutQuorum(j, tr), nil
	case MinorityShunsWithin:
		return newMinorityShuns(j, tr, s.Duration()), nil
	case MajorityKeepsWriterWithin:
		return newMajorityKeepsWriter(j, tr, s.Duration()), nil
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

// renew makes the judge fresh: no violation found.
func (j *judge) renew() { j.bad, j.why = false, "" }

// fail records a violation found at virtual time at, unless one is recorded already.
func (j *judge) fail(at time.Duration, format string, args ...any) {
	if j.bad {
		return
	}
	j.bad = true
	j.why = timeline.Clock(j.start, at) + ": " + fmt.Sprintf(format, args...)
}

// name is node i's name, "none" for -1.
func name(names []string, i int) string {
	if i < 0 {
		return "none"
	}
	return names[i]
}
