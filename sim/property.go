package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
)

// The built-in properties of failsim check. A timeline states one with
// "expect property NAME [ARG]"; a replay judges it like any other expectation, so a
// counterexample that failsim check writes fails again under failsim replay.
const (
	// NoFalseFailover: the master is never fenced (no failover, no failed master). failsim
	// check judges it on benign traces only, where every fence is a false one.
	NoFalseFailover = "no-false-failover"
	// DetectsDeathWithin [DUR]: a fatal fault on the master in service, sustained for DUR, is
	// fenced within DUR of the fault. Without DUR, the statemap's own promise for the fault's
	// condition: the checker's detection latency (max(interval, timeout) plus the probe's own
	// duration) plus threshold ticks. Judged only while the policy is automatic and the master's
	// manager and a coordinator are up.
	DetectsDeathWithin = "detects-death-within"
	// SingleMaster: never two masters in service at once.
	SingleMaster = "single-master"
	// NoFenceInMaintenance: in maintenance no alarm is raised, aged, expired or acted on.
	NoFenceInMaintenance = "no-fence-in-maintenance"
	// OnlyCoordinatorFences: every expired alarm is acted on by the coordinator, which is the
	// first node in cluster order whose manager is up; with no manager up nothing is fenced.
	OnlyCoordinatorFences = "only-coordinator-fences"
	// SelfHealResets: a node whose last probe was ok has no alarm.
	SelfHealResets = "self-heal-resets"
)

// Properties returns the built-in property names in the order failsim check runs and reports
// them.
func Properties() []string {
	return []string{NoFalseFailover, DetectsDeathWithin, SingleMaster, NoFenceInMaintenance, OnlyCoordinatorFences, SelfHealResets}
}

// Property is a built-in property observing one replay. It is an Expect: Verdict says whether
// it held and, if not, what its first violation was.
type Property interface {
	Expect
	// Name is the property's name, as in Properties.
	Name() string
	// Violated reports whether the property has been violated so far.
	Violated() bool
}

// NewProperty returns a fresh observer of property name with its arguments, for one replay of
// tl. The error says what is wrong with the name or the arguments, in lower case.
func NewProperty(tl *Timeline, name string, args []string) (Property, error) {
	text := "expect property " + strings.Join(append([]string{name}, args...), " ")
	return newProperty(tl, expectBase{text: text}, name, args)
}

// property parses "expect property NAME [ARG...]": a property of failsim check, judged over a
// replay so that a counterexample timeline reproduces its violation.
func (p *parser) property(base expectBase, args []string) (Expect, error) {
	if len(args) == 0 {
		return nil, p.errf("expect property: which? want one of %s", strings.Join(Properties(), ", "))
	}
	x, err := newProperty(p.tl, base, args[0], args[1:])
	if err != nil {
		return nil, p.errf("%w", err)
	}
	return x, nil
}

func newProperty(tl *Timeline, base expectBase, name string, args []string) (Property, error) {
	if !slices.Contains(Properties(), name) {
		return nil, fmt.Errorf("unknown property %q: want one of %s", name, strings.Join(Properties(), ", "))
	}
	pb := propBase{expectBase: base, name: name, tl: tl}
	if name == DetectsDeathWithin {
		x := &detectsDeath{propBase: pb}
		switch len(args) {
		case 0:
		case 1:
			d, err := time.ParseDuration(args[0])
			if err != nil || d < 0 {
				return nil, fmt.Errorf("%s: %q is not a duration such as 90s or 2m", name, args[0])
			}
			x.within, x.fixed = d, true
		default:
			return nil, fmt.Errorf("%s takes at most one duration, got %q", name, strings.Join(args, " "))
		}
		return x, nil
	}
	if len(args) > 0 {
		return nil, fmt.Errorf("%s takes no argument, got %q", name, strings.Join(args, " "))
	}
	switch name {
	case NoFalseFailover:
		return &noFalseFailover{propBase: pb}, nil
	case SingleMaster:
		return &singleMaster{propBase: pb}, nil
	case NoFenceInMaintenance:
		return &noFenceInMaintenance{propBase: pb}, nil
	case OnlyCoordinatorFences:
		return newOnlyCoordinator(pb), nil
	}
	return &selfHealResets{propBase: pb}, nil
}

// propBase keeps a property's first violation.
type propBase struct {
	expectBase
	name     string
	tl       *Timeline
	violated bool
	why      string
}

func (b *propBase) Name() string   { return b.name }
func (b *propBase) Violated() bool { return b.violated }

func (b *propBase) Verdict() (bool, string) { return !b.violated, b.why }

// fail records the first violation, at virtual time at.
func (b *propBase) fail(at time.Duration, format string, args ...any) {
	if b.violated {
		return
	}
	b.violated = true
	b.why = Clock(b.tl.Start, at) + ": " + fmt.Sprintf(format, args...)
}

func (b *propBase) nodeIndex(name string) int {
	for i, n := range b.tl.Nodes {
		if n.Name == name {
			return i
		}
	}
	return -1
}

// fencesMaster reports whether ev fences a master: a failover, a failover with no candidate, or a
// master failed without failover (manual policy).
func fencesMaster(ev fence.Event) bool {
	return ev.Kind == fence.Failover || ev.Kind == fence.NoCandidate || (ev.Kind == fence.NodeFailed && ev.Role == fence.Master)
}

type noFalseFailover struct{ propBase }

func (x *noFalseFailover) Event(ev fence.Event) {
	if fencesMaster(ev) {
		x.fail(ev.At, "master %s was fenced (%s, %s) on a trace with no fatal fault", ev.Node, ev.Kind, ev.Condition)
	}
}

type singleMaster struct {
	propBase
	dirty bool
}

// Event notes that the engine decided something; roles change only with an event.
func (x *singleMaster) Event(ev fence.Event) { x.dirty = true }

func (x *singleMaster) Instant(at time.Duration, e *fence.Engine) {
	if !x.dirty || x.violated {
		return
	}
	x.dirty = false
	var masters []string
	for i := range e.Len() {
		if v := e.Node(i); v.Role == fence.Master && !v.Failed {
			masters = append(masters, v.Name)
		}
	}
	if len(masters) > 1 {
		x.fail(at, "%d masters in service: %s", len(masters), strings.Join(masters, ", "))
	}
}

type noFenceInMaintenance struct {
	propBase
	policy  fence.Policy
	started bool
	alarms  []fence.AlarmView
}

func (x *noFenceInMaintenance) Event(ev fence.Event) {
	x.start()
	if ev.Kind == fence.PolicyChanged {
		x.policy = ev.Policy
		return
	}
	if x.policy != fence.Maintenance {
		return
	}
	switch ev.Kind {
	case fence.AlarmRaised, fence.AlarmExpired, fence.ExpiryWaiting, fence.Logged, fence.AlertNotImplemented,
		fence.AlreadyFailed, fence.NodeFailed, fence.Failover, fence.NoCandidate:
		x.fail(ev.At, "in maintenance: %s", Describe(ev))
	}
}

// start reads the timeline's policy when the replay starts: the policy statement may follow
// the expect line that built the property.
func (x *noFenceInMaintenance) start() {
	if !x.started {
		x.started, x.policy = true, x.tl.Policy
	}
}

func (x *noFenceInMaintenance) Instant(at time.Duration, e *fence.Engine) {
	x.start()
	if x.policy != fence.Maintenance || x.violated {
		return
	}
	for i := range e.Len() {
		if x.alarms = e.Alarms(x.alarms[:0], i); len(x.alarms) > 0 {
			x.fail(at, "in maintenance %s has an alarm: %s at %d of %d", e.Node(i).Name, x.alarms[0].Condition, x.alarms[0].Count, x.alarms[0].Threshold)
			return
		}
	}
}

type onlyCoordinator struct {
	propBase
	up    []bool
	coord int
	dirty bool
}

func newOnlyCoordinator(b propBase) *onlyCoordinator {
	x := &onlyCoordinator{propBase: b, up: make([]bool, len(b.tl.Nodes)), coord: -1}
	for i := range x.up {
		x.up[i] = true
	}
	if len(x.up) > 0 {
		x.coord = 0
	}
	return x
}

// first returns the first node in cluster order whose manager is up, or -1.
func (x *onlyCoordinator) first() int {
	return slices.Index(x.up, true)
}

func (x *onlyCoordinator) Event(ev fence.Event) {
	switch ev.Kind {
	case fence.ManagerDown, fence.ManagerUp:
		if i := x.nodeIndex(ev.Node); i >= 0 {
			x.up[i] = ev.Kind == fence.ManagerUp
		}
		x.dirty = true
	case fence.CoordinatorChanged:
		x.coord = x.nodeIndex(ev.Other)
		x.dirty = true
	case fence.AlarmExpired:
		want := x.first()
		switch {
		case want < 0:
			x.fail(ev.At, "%s's %s alarm was acted on with no manager up", ev.Node, ev.Condition)
		case ev.Other != x.tl.Nodes[want].Name:
			x.fail(ev.At, "%s's %s alarm was acted on by %q, but the coordinator is %s", ev.Node, ev.Condition, ev.Other, x.tl.Nodes[want].Name)
		}
	case fence.NodeFailed, fence.Failover, fence.NoCandidate, fence.AlreadyFailed:
		if x.first() < 0 {
			x.fail(ev.At, "%s with no manager up: %s", ev.Kind, Describe(ev))
		}
	}
}

func (x *onlyCoordinator) Instant(at time.Duration, e *fence.Engine) {
	if !x.dirty || x.violated {
		return
	}
	x.dirty = false
	want := x.first()
	if got := e.Coordinator(); got != want || x.coord != want {
		name := func(i int) string {
			if i < 0 {
				return "none"
			}
			return x.tl.Nodes[i].Name
		}
		x.fail(at, "the coordinator is %s (announced %s), but the first node whose manager is up is %s", name(got), name(x.coord), name(want))
	}
}

type selfHealResets struct {
	propBase
	alarms []fence.AlarmView
}

// Instant checks every node whose last probe was ok: it must have no alarm. An ok probe
// leaves no event when the node was online already, so every instant is looked at.
func (x *selfHealResets) Instant(at time.Duration, e *fence.Engine) {
	if x.violated {
		return
	}
	for i := range e.Len() {
		x.alarms = e.Alarms(x.alarms[:0], i)
		if len(x.alarms) == 0 {
			continue
		}
		if v := e.Node(i); v.LastOK {
			a := x.alarms[0]
			x.fail(at, "%s's last probe was ok, but its %s alarm is still at %d of %d", v.Name, a.Condition, a.Count, a.Threshold)
			return
		}
	}
}

// detectsDeath watches every fault set on the master in service. Once the fault's alarm shows
// the statemap's rule for its condition (the alarm-raised event carries threshold and action),
// a fatal rule arms a deadline; a fence of that node disarms it; reaching the deadline with
// the fault unchanged, under automatic policy, with the node's manager and a coordinator up
// all along, is a violation.
type detectsDeath struct {
	propBase
	within  time.Duration
	fixed   bool
	rules   [statemap.NumConditions]*fence.Event // the first alarm-raised seen per condition
	watch   []deathWatch
	policy  fence.Policy
	started bool
}

type deathWatch struct {
	node     int
	name     string
	since    time.Duration
	f        fault.Fault
	cond     statemap.Condition
	took     time.Duration
	deadline time.Duration // 0 until armed
	armed    bool
	void     bool // not judged: the fault changed, or the gates were not open all along
}

func (x *detectsDeath) Event(ev fence.Event) {
	if !x.started {
		x.started, x.policy = true, x.tl.Policy
	}
	switch ev.Kind {
	case fence.FaultInjected:
		i := x.nodeIndex(ev.Node)
		for k := range x.watch {
			if x.watch[k].node == i {
				x.watch[k].void = true
			}
		}
		f, err := fault.Parse(strings.Fields(ev.Detail))
		if err != nil || f.Kind == fault.Heal || x.policy != fence.Automatic {
			return
		}
		o := Predict(f, x.tl.Timeout)
		x.watch = append(x.watch, deathWatch{node: i, name: ev.Node, since: ev.At, f: f, cond: o.Condition, took: o.Took})
		x.arm()
	case fence.AlarmRaised:
		if x.rules[ev.Condition] == nil {
			e := ev
			x.rules[ev.Condition] = &e
			x.arm()
		}
	case fence.Failover, fence.NoCandidate, fence.NodeFailed:
		for k := range x.watch {
			if x.watch[k].name == ev.Node {
				x.watch[k].void = true
			}
		}
	case fence.PolicyChanged:
		x.policy = ev.Policy
		if ev.Policy != fence.Automatic {
			x.voidAll()
		}
	case fence.ManagerDown:
		for k := range x.watch {
			if x.watch[k].name == ev.Node {
				x.watch[k].void = true
			}
		}
	case fence.CoordinatorChanged:
		if ev.Other == "" {
			x.voidAll()
		}
	}
	x.watch = slices.DeleteFunc(x.watch, func(w deathWatch) bool { return w.void })
}

func (x *detectsDeath) voidAll() {
	for k := range x.watch {
		x.watch[k].void = true
	}
}

// arm sets the deadline of every watched fault whose rule is known and fatal, and drops the
// ones whose rule is known and never fences.
func (x *detectsDeath) arm() {
	for k := range x.watch {
		w := &x.watch[k]
		r := x.rules[w.cond]
		if w.armed || r == nil {
			continue
		}
		if r.Action != statemap.Fail || r.Threshold < 0 {
			w.void = true
			continue
		}
		w.armed = true
		if x.fixed {
			w.deadline = w.since + x.within
		} else {
			w.deadline = w.since + x.promise(w.took, r.Threshold)
		}
	}
}

// promise is how long after a fault starts the statemap promises to fence it: the first bad
// probe starts within max(interval, timeout) and takes took; its alarm expires at the
// threshold-th tick after it is raised.
func (x *detectsDeath) promise(took time.Duration, threshold int) time.Duration {
	return max(x.tl.Interval, x.tl.Timeout) + took + time.Duration(threshold)*statemap.TickInterval
}

func (x *detectsDeath) Instant(at time.Duration, e *fence.Engine) {
	if len(x.watch) == 0 || x.violated {
		return
	}
	for k := range x.watch {
		w := &x.watch[k]
		if w.void {
			continue
		}
		if v := e.Node(w.node); v.Role != fence.Master || v.Failed || !v.ManagerUp || e.Coordinator() < 0 {
			// not the master in service, or not watched by its manager, or no coordinator to
			// fence it: not judged
			w.void = true
			continue
		}
		if w.armed && at >= w.deadline {
			x.fail(at, "master %s has had fault %s (%s) since %s and was not fenced by %s, %s after it", w.name, w.f, w.cond, Clock(x.tl.Start, w.since), Clock(x.tl.Start, w.deadline), w.deadline-w.since)
			return
		}
	}
	x.watch = slices.DeleteFunc(x.watch, func(w deathWatch) bool { return w.void })
}

// Checkpoints implements Expect: none needed, every probe and tick is an instant.
func (x *detectsDeath) Checkpoints() []time.Duration { return nil }
