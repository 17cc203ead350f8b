package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/faultmodel"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/narrate"
	"github.com/failsim/failsim/statemap"
)

// The built-in properties of failsim check. A timeline states one with
// "expect property NAME [ARG]"; a replay judges it like any other expectation, so a
// counterexample that failsim check writes fails again under failsim replay.
const (
	// NoFalseFailover: the master is never fenced falsely (a failover, a master failed with no
	// replica eligible, or a master failed under manual policy). On a timeline recording
	// "family benign" (failsim check's benign traces and their counterexamples) every fence
	// of the master is false. Elsewhere a fence is false when the master's database was alive
	// at that moment by the fault on its link (DatabaseDead): no fault, stall, slow, error, or
	// a forced condition no dead database shows.
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
)

// prop indexes the built-in properties, in the order of Properties.
type prop uint8

const (
	pNoFalseFailover prop = iota
	pDetectsDeath
	pSingleMaster
	pNoFenceInMaintenance
	pOnlyCoordinator
	pSelfHeal
	numProps
)

var propNames = [numProps]string{NoFalseFailover, DetectsDeathWithin, SingleMaster, NoFenceInMaintenance, OnlyCoordinatorFences, SelfHealResets}

// Properties returns the built-in property names in the order failsim check runs and reports
// them.
func Properties() []string { return slices.Clone(propNames[:]) }

// Property is one built-in property observing one replay. It is an Expect: Verdict says
// whether it held and, if not, what its first violation was.
type Property interface {
	Expect
	// Name is the property's name, as in Properties.
	Name() string
	// Violated reports whether the property has been violated so far.
	Violated() bool
}

// NewProperty returns a fresh observer of property name with its arguments, for one replay of
// tl. The error says what is wrong with the name or the arguments.
func NewProperty(tl *Timeline, name string, args []string) (Property, error) {
	text := "expect property " + strings.Join(append([]string{name}, args...), " ")
	return newProperty(tl, expectBase{text: text}, name, args)
}

// property parses "expect property NAME [ARG...]", or NAME=ARG as failsim check spells it: a
// property of failsim check, judged over a replay so that a counterexample timeline reproduces
// its violation.
func (p *parser) property(base expectBase, args []string) (Expect, error) {
	if len(args) == 0 {
		return nil, p.errf("expect property: which? want one of %s", strings.Join(propNames[:], ", "))
	}
	if name, arg, ok := strings.Cut(args[0], "="); ok {
		args = append([]string{name, arg}, args[1:]...)
	}
	x, err := newProperty(p.tl, base, args[0], args[1:])
	if err != nil {
		return nil, p.errf("%w", err)
	}
	return x, nil
}

func newProperty(tl *Timeline, base expectBase, name string, args []string) (*single, error) {
	w := newWatcher(tl)
	k, err := w.enable(name, args)
	if err != nil {
		return nil, err
	}
	return &single{expectBase: base, w: w, k: k}, nil
}

// single is one property as an expectation.
type single struct {
	expectBase
	w *watcher
	k prop
}

func (s *single) Name() string                              { return propNames[s.k] }
func (s *single) Violated() bool                            { return s.w.bad[s.k] }
func (s *single) Verdict() (bool, string)                   { return !s.w.bad[s.k], s.w.why[s.k] }
func (s *single) Event(ev fence.Event)                      { s.w.Event(ev) }
func (s *single) Instant(at time.Duration, e *fence.Engine) { s.w.Instant(at, e) }

// PropertySet judges several properties over one replay as a single observer: cheaper than one
// observer each, which matters when failsim check replays thousands of traces a second.
type PropertySet struct {
	w     *watcher
	names []string
	ks    []prop
}

// NewPropertySet returns an observer of the properties, each given as its name followed by its
// arguments, for one replay of tl. A property may be named once.
func NewPropertySet(tl *Timeline, props ...[]string) (*PropertySet, error) {
	s := &PropertySet{w: newWatcher(tl)}
	for _, p := range props {
		if len(p) == 0 {
			return nil, fmt.Errorf("empty property")
		}
		k, err := s.w.enable(p[0], p[1:])
		if err != nil {
			return nil, err
		}
		if slices.Contains(s.ks, k) {
			return nil, fmt.Errorf("property %s is named twice", p[0])
		}
		s.ks, s.names = append(s.ks, k), append(s.names, p[0])
	}
	return s, nil
}

// Event implements Observer.
func (s *PropertySet) Event(ev fence.Event) { s.w.Event(ev) }

// Instant implements Observer.
func (s *PropertySet) Instant(at time.Duration, e *fence.Engine) { s.w.Instant(at, e) }

// Violated reports whether the i-th property of the set is violated, and its first violation.
func (s *PropertySet) Violated(i int) (bool, string) { return s.w.bad[s.ks[i]], s.w.why[s.ks[i]] }

// watcher tracks what the properties need from the events, and looks at the engine only at
// instants where something a property judges may have changed.
type watcher struct {
	tl  *Timeline
	on  [numProps]bool
	bad [numProps]bool
	why [numProps]string

	within time.Duration // detects-death-within's fixed duration
	fixed  bool

	started    bool
	benign     bool          // the timeline records family benign: every fence of the master is false
	names      []string      // the nodes' names, for Describe
	faults     []fault.Fault // per node: the fault on its link, for no-false-failover elsewhere
	policy     fence.Policy
	up         []bool // per node: manager up
	coord      int    // the announced coordinator, -1 none
	alarms     []int  // per node: active alarms, from the events
	alarmTotal int
	rolesDirty bool // an event may have changed a role
	coordDirty bool // a manager or the coordinator changed
	rules      [statemap.NumConditions]ruleSeen
	watch      []deathWatch
	buf        []fence.AlarmView
}

// ruleSeen is what an alarm-raised event told of a condition's rule.
type ruleSeen struct {
	known     bool
	threshold int
	action    statemap.Action
}

// deathWatch is one fault on a node, watched for detects-death-within.
type deathWatch struct {
	node     int
	since    time.Duration
	f        fault.Fault
	cond     statemap.Condition
	took     time.Duration
	deadline time.Duration
	armed    bool // the rule is known and fences: deadline is set
}

func newWatcher(tl *Timeline) *watcher {
	return &watcher{tl: tl}
}

func (w *watcher) enable(name string, args []string) (prop, error) {
	i := slices.Index(propNames[:], name)
	if i < 0 {
		return 0, fmt.Errorf("unknown property %q: want one of %s", name, strings.Join(propNames[:], ", "))
	}
	k := prop(i)
	switch {
	case k == pDetectsDeath && len(args) == 1:
		d, err := time.ParseDuration(args[0])
		if err != nil || d <= 0 {
			return 0, fmt.Errorf("%s: %q is not a positive duration such as 90s or 2m", name, args[0])
		}
		w.within, w.fixed = d, true
	case k == pDetectsDeath && len(args) > 1:
		return 0, fmt.Errorf("%s takes at most one duration, got %q", name, strings.Join(args, " "))
	case k != pDetectsDeath && len(args) > 0:
		return 0, fmt.Errorf("%s takes no argument, got %q", name, strings.Join(args, " "))
	}
	w.on[k] = true
	return k, nil
}

// start reads the timeline when the replay starts: its policy statement may follow the expect
// line that built the property.
func (w *watcher) start() {
	w.started = true
	w.policy = w.tl.Policy
	w.benign = w.tl.Family == FamilyBenign
	n := len(w.tl.Nodes)
	if w.on[pNoFalseFailover] && !w.benign {
		w.faults = make([]fault.Fault, n)
	}
	w.names = w.tl.Names()
	w.up, w.alarms = make([]bool, n), make([]int, n)
	for i := range w.up {
		w.up[i] = true
	}
	w.coord = min(0, n-1)
	w.rolesDirty, w.coordDirty = true, true
}

// fail records property k's first violation, at virtual time at.
func (w *watcher) fail(k prop, at time.Duration, format string, args ...any) {
	if !w.on[k] || w.bad[k] {
		return
	}
	w.bad[k] = true
	w.why[k] = narrate.Clock(w.tl.Start, at) + ": " + fmt.Sprintf(format, args...)
}

func (w *watcher) name(i int) string {
	if i < 0 {
		return "none"
	}
	return w.tl.Nodes[i].Name
}

// firstUp returns the first node in cluster order whose manager is up, or -1.
func (w *watcher) firstUp() int { return slices.Index(w.up, true) }

// Event implements Observer.
func (w *watcher) Event(ev fence.Event) {
	if !w.started {
		w.start()
	}
	at := ev.When()
	if len(w.watch) > 0 {
		w.overdue(at)
	}
	switch ev := ev.(type) {
	case *fence.AlarmRaised:
		w.alarms[ev.Node]++
		w.alarmTotal++
		if r := &w.rules[ev.Condition]; !r.known {
			*r = ruleSeen{known: true, threshold: ev.Threshold, action: ev.Action}
			w.arm()
		}
	case *fence.AlarmHealed:
		w.alarmGone(ev.Node)
	case *fence.AlarmCleared:
		w.alarmGone(ev.Node)
	case *fence.AlarmExpired:
		w.alarmGone(ev.Node)
		want := w.firstUp()
		switch {
		case want < 0:
			w.fail(pOnlyCoordinator, at, "%s's %s alarm was acted on with no manager up", w.name(ev.Node), ev.Condition)
		case ev.Coordinator != want:
			w.fail(pOnlyCoordinator, at, "%s's %s alarm was acted on by %q, but the coordinator is %s", w.name(ev.Node), ev.Condition, w.tl.Nodes[ev.Coordinator].Name, w.tl.Nodes[want].Name)
		}
	case *fence.PolicyChanged:
		w.policy = ev.Policy
		if ev.Policy != fence.Automatic {
			w.watch = w.watch[:0]
		}
	case *fence.ManagerDown:
		w.up[ev.Node] = false
		w.coordDirty = true
		w.unwatch(ev.Node)
	case *fence.ManagerUp:
		w.up[ev.Node] = true
		w.coordDirty = true
	case *fence.CoordinatorChanged:
		w.coord = ev.Coordinator
		w.coordDirty = true
		if w.coord < 0 {
			w.watch = w.watch[:0]
		}
	case *FaultSet:
		i, f := ev.Node, ev.Fault
		w.unwatch(i)
		if w.faults != nil {
			w.faults[i] = f
		}
		if f.Kind != fault.Heal && w.on[pDetectsDeath] && w.policy == fence.Automatic {
			o := faultmodel.Predict(f, w.tl.Timeout)
			w.watch = append(w.watch, deathWatch{node: i, since: at, f: f, cond: o.Condition, took: o.Took})
			w.arm()
		}
	case *fence.Failover:
		w.fenceMaster(at, ev.Kind(), ev.Node, ev.Condition)
		w.rolesDirty = true
		w.fenceWithNoManager(ev)
	case *fence.NoCandidate:
		w.fenceMaster(at, ev.Kind(), ev.Node, ev.Condition)
		w.rolesDirty = true
		w.fenceWithNoManager(ev)
	case *fence.NodeFailed:
		if ev.Role == fence.Master {
			w.fenceMaster(at, ev.Kind(), ev.Node, ev.Condition)
		}
		w.unwatch(ev.Node)
		w.rolesDirty = true
		w.fenceWithNoManager(ev)
	case *fence.AlreadyFailed:
		w.fenceWithNoManager(ev)
	case *fence.NodeRecovered:
		w.rolesDirty = true
	}

	if w.policy == fence.Maintenance {
		if d, ok := ev.(fence.Decision); ok {
			switch d.Kind() {
			case fence.KindAlarmRaised, fence.KindAlarmExpired, fence.KindExpiryWaiting, fence.KindLogged, fence.KindAlertNotImplemented,
				fence.KindAlreadyFailed, fence.KindNodeFailed, fence.KindFailover, fence.KindNoCandidate:
				w.fail(pNoFenceInMaintenance, at, "in maintenance: %s", narrate.Describe(w.names, ev))
			}
		}
	}
}

// fenceWithNoManager judges a fencing decision d for only-coordinator-fences: with no manager
// up, nobody may fence.
func (w *watcher) fenceWithNoManager(d fence.Decision) {
	if w.firstUp() < 0 {
		w.fail(pOnlyCoordinator, d.When(), "%s with no manager up: %s", d.Kind(), narrate.Describe(w.names, d))
	}
}

// alarmGone counts one of node i's alarms gone, if the events had told of it.
func (w *watcher) alarmGone(i int) {
	if w.alarms[i] > 0 {
		w.alarms[i]--
		w.alarmTotal--
	}
}

// fenceMaster judges the master i fenced by condition c (a failover, a failover with no
// candidate, or a master failed under manual policy) for no-false-failover, and stops
// watching it.
func (w *watcher) fenceMaster(at time.Duration, kind fence.Kind, i int, c statemap.Condition) {
	switch {
	case w.benign:
		w.fail(pNoFalseFailover, at, "master %s was fenced (%s, %s) on a trace with no fatal fault", w.name(i), kind, c)
	case w.faults != nil && !faultmodel.DatabaseDead(w.faults[i]):
		f := "no fault"
		if w.faults[i].Kind != fault.Heal {
			f = "fault " + w.faults[i].String()
		}
		w.fail(pNoFalseFailover, at, "master %s was fenced (%s, %s) while its database was alive (%s)", w.name(i), kind, c, f)
	}
	w.unwatch(i)
}

// unwatch stops watching faults on node i.
func (w *watcher) unwatch(i int) {
	if len(w.watch) > 0 {
		w.watch = slices.DeleteFunc(w.watch, func(d deathWatch) bool { return d.node == i })
	}
}

// arm sets the deadline of every watched fault whose rule is now known to fence, and drops the
// ones whose rule is known never to fence.
func (w *watcher) arm() {
	w.watch = slices.DeleteFunc(w.watch, func(d deathWatch) bool {
		r := w.rules[d.cond]
		return r.known && (r.action != statemap.Fail || r.threshold < 0)
	})
	for k := range w.watch {
		d := &w.watch[k]
		r := w.rules[d.cond]
		if d.armed || !r.known {
			continue
		}
		d.armed = true
		if w.fixed {
			d.deadline = d.since + w.within
		} else {
			d.deadline = d.since + w.promise(d.took, r.threshold)
		}
	}
}

// promise is how long after a fault starts the statemap promises to fence it: the first bad
// probe starts within max(interval, timeout) and takes took; its alarm expires at the
// threshold-th tick after it is raised.
func (w *watcher) promise(took time.Duration, threshold int) time.Duration {
	return max(w.tl.Interval, w.tl.Timeout) + took + time.Duration(threshold)*statemap.TickInterval
}

// Instant implements Observer. It looks at the engine only where an event, an active alarm, a
// watched fault or maintenance says something may be judged.
func (w *watcher) Instant(at time.Duration, e *fence.Engine) {
	if !w.started {
		w.start()
	}
	if w.rolesDirty {
		w.rolesDirty = false
		w.checkMasters(at, e)
	}
	if w.coordDirty {
		w.coordDirty = false
		if want, got := w.firstUp(), e.Coordinator(); got != want || w.coord != want {
			w.fail(pOnlyCoordinator, at, "the coordinator is %s (announced %s), but the first node whose manager is up is %s", w.name(got), w.name(w.coord), w.name(want))
		}
	}
	if w.alarmTotal > 0 {
		w.checkAlarms(at, e)
	}
	if len(w.watch) > 0 {
		w.checkDeaths(at, e)
	}
}

func (w *watcher) checkMasters(at time.Duration, e *fence.Engine) {
	if !w.on[pSingleMaster] {
		return
	}
	var masters []string
	for i := range e.Len() {
		if v := e.Node(i); v.Role == fence.Master && !v.Failed {
			masters = append(masters, v.Name)
		}
	}
	if len(masters) > 1 {
		w.fail(pSingleMaster, at, "%d masters in service: %s", len(masters), strings.Join(masters, ", "))
	}
}

// checkAlarms looks at the nodes that have alarms: none in maintenance, none after an ok probe.
func (w *watcher) checkAlarms(at time.Duration, e *fence.Engine) {
	for i, n := range w.alarms {
		if n == 0 {
			continue
		}
		if !e.LastOK(i) && w.policy != fence.Maintenance {
			continue
		}
		v := e.Node(i)
		w.buf = e.Alarms(w.buf[:0], i)
		if len(w.buf) == 0 {
			w.alarmTotal -= w.alarms[i] // the engine deleted them without saying so
			w.alarms[i] = 0
			continue
		}
		a := w.buf[0]
		if v.LastOK {
			w.fail(pSelfHeal, at, "%s's last probe was ok, but its %s alarm is still at %d of %d", v.Name, a.Condition, a.Count, a.Threshold)
		}
		if w.policy == fence.Maintenance {
			w.fail(pNoFenceInMaintenance, at, "in maintenance %s has an alarm: %s at %d of %d", v.Name, a.Condition, a.Count, a.Threshold)
		}
	}
}

// overdue judges the watched faults whose deadline passed before at, before an event at at can
// drop them: the replay tells of no instant at which nothing was decided, so the first word of
// a late fence may be the fence itself. Until at the gates stayed as the last instant saw them.
func (w *watcher) overdue(at time.Duration) {
	w.watch = slices.DeleteFunc(w.watch, func(d deathWatch) bool {
		if !d.armed || d.deadline >= at {
			return false
		}
		w.failLate(d)
		return true
	})
}

// failLate reports a watched fault not fenced by its deadline, as found at the deadline.
func (w *watcher) failLate(d deathWatch) {
	w.fail(pDetectsDeath, d.deadline, "master %s has had fault %s (%s) since %s and was not fenced by %s, %s after it",
		w.tl.Nodes[d.node].Name, d.f, d.cond, narrate.Clock(w.tl.Start, d.since), narrate.Clock(w.tl.Start, d.deadline), d.deadline-d.since)
}

// checkDeaths judges the watched faults: one on a node that is not the master in service, or
// with no coordinator, is dropped; one past its deadline is a violation.
func (w *watcher) checkDeaths(at time.Duration, e *fence.Engine) {
	coordUp := e.Coordinator() >= 0
	w.watch = slices.DeleteFunc(w.watch, func(d deathWatch) bool {
		v := e.Node(d.node)
		if v.Role != fence.Master || v.Failed || !v.ManagerUp || !coordUp {
			return true
		}
		if d.armed && at >= d.deadline {
			w.failLate(d)
			return true
		}
		return false
	})
}
