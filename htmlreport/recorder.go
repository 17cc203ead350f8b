package htmlreport

import (
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/faultmodel"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/narrate"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// Recorder is a drive.Observer that keeps what the picture of a run shows: each node's state,
// faults, service and alarms over time, the master, the coordinator and the policy, and the
// marks of the engine's fencing decisions. Give it to the replay beside the other observers;
// once the run is over, write the picture with WriteHTML or WriteSVG. Its zero value is not
// usable: call New.
type Recorder struct {
	tl    *timeline.Timeline
	m     *statemap.Map
	names []string
	nodes []nodeTrack
	// The cluster's rows: change points, the first at t=0.
	master, coord []change[int]
	policy        []change[fence.Policy]
	marks         []mark
	last          time.Duration // the last instant observed
	// counted holds the probe outcomes of a run that reported them (Counted), per node;
	// nil: the probes are worked out from the timeline and the fault model.
	counted [][]probeRun
	seen    bool // an instant was observed
	client  clientTrack
	group   groupTrack
	rp      replTrack
	// coordWhy says why there is no coordinator, as the last coordinator change said it: ""
	// for no manager up, the words of no primary partition during one.
	coordWhy string
	// managers are the managers' lanes drawn above the nodes' (Managers); nil for none.
	managers []*ManagerLane
}

// change is a row's value from At on, until the next change.
type change[T comparable] struct {
	At  time.Duration
	V   T
	Why string // what the event log says of the change; "" when nothing says it
}

// service is what a node is to the cluster at an instant.
type service uint8

const (
	replicaInService service = iota
	masterInService          // the master in service: the one that takes writes
	failed                   // out of service
	shunned                  // a failed master: never back by itself
)

// nodeTrack is one node's rows.
type nodeTrack struct {
	state   []change[statemap.State] // Why: the probe's condition
	faults  []change[fault.Fault]
	service []change[service]
	manager []change[bool] // up
	alarms  []alarmTrack
	why     string // the last fencing or recovery decision of the open instant, for the service row's title
}

// alarmTrack is one alarm from its raise to its end.
type alarmTrack struct {
	cond      statemap.Condition
	threshold int
	action    statemap.Action
	raised    time.Duration
	ended     time.Duration // statemap.Never while active
	count     int           // the ticks it reached when it ended
	end       string        // how it ended, in the event log's words; "" while active
	expired   bool
	waiting   time.Duration // when it expired with no manager up to fence it; statemap.Never if not
}

// mark is one decision drawn as a mark: a failover, a node failed, recovered.
type mark struct {
	At    time.Duration
	Node  int
	Kind  fence.Kind
	Title string
}

// New returns a recorder of a replay of tl under m.
func New(tl *timeline.Timeline, m *statemap.Map) *Recorder {
	names := tl.Names()
	for i, n := range names {
		names[i] = shortName(n) // the chart's words name a node this way, the log in full
	}
	r := &Recorder{tl: tl, m: m, names: names, nodes: make([]nodeTrack, len(tl.Nodes))}
	master := -1
	for i, n := range tl.Nodes {
		if n.Role == fence.Master && master < 0 {
			master = i
		}
		s := replicaInService
		if n.Role == fence.Master {
			s = masterInService
		}
		r.nodes[i] = nodeTrack{
			state:   []change[statemap.State]{{V: statemap.Unknown, Why: "not probed yet"}},
			faults:  []change[fault.Fault]{{}},
			service: []change[service]{{V: s}},
			manager: []change[bool]{{V: true}},
		}
	}
	r.master = []change[int]{{V: master}}
	r.coord = []change[int]{{V: 0}}
	r.policy = []change[fence.Policy]{{V: tl.Policy}}
	r.client = newClientTrack(r)
	r.group = newGroupTrack(r)
	r.rp = newReplTrack(r)
	return r
}

// Counted records the outcome of node's probe counted at instant at: give it as
// drive.Config.Counted in a run that runs every probe (a live run), and the picture shows those
// probes rather than the ones the fault model foresees.
func (r *Recorder) Counted(at time.Duration, node int, c statemap.Condition) {
	if r.counted == nil {
		r.counted = make([][]probeRun, len(r.nodes))
	}
	runs := r.counted[node]
	gap := 2 * max(r.tl.Interval, r.tl.Timeout) // more between two counts: the manager was down
	if k := len(runs) - 1; k >= 0 && runs[k].cond == c && at-runs[k].last() <= gap {
		// A live run's probes are not evenly spaced: a run is its first and last count.
		runs[k].n++
		runs[k].step = (at - runs[k].first) / time.Duration(runs[k].n-1)
		return
	}
	r.counted[node] = append(runs, probeRun{first: at, n: 1, cond: c, step: r.tl.Interval})
}

// Event implements drive.Observer.
func (r *Recorder) Event(ev act.Event) {
	desc := func() string { return timeline.Clock(r.tl.Start, ev.When()) + " " + narrate.Describe(r.names, ev) }
	r.clientEvent(ev, desc)
	r.groupEvent(ev, desc)
	r.replEvent(ev, desc)
	switch ev := ev.(type) {
	case *fence.CoordinatorChanged:
		r.coordWhy = ""
		if ev.Coordinator < 0 && ev.NoPrimary {
			r.coordWhy = "none, no primary partition: no manager up is in a primary view"
		}
	case *act.FaultSet:
		n := &r.nodes[ev.Node]
		n.faults = set(n.faults, ev.At, ev.Fault, "")
	case *fence.StateChanged:
		n := &r.nodes[ev.Node]
		n.state = set(n.state, ev.At, ev.To, ev.Condition.String())
	case *fence.AlarmRaised:
		n := &r.nodes[ev.Node]
		n.alarms = append(n.alarms, alarmTrack{cond: ev.Condition, threshold: ev.Threshold, action: ev.Action, raised: ev.At, ended: statemap.Never, waiting: statemap.Never})
	case *fence.AlarmExpired:
		r.endAlarm(ev.Node, ev.Condition, ev.At, ev.Count, desc(), true)
	case *fence.AlarmHealed:
		r.endAlarm(ev.Node, ev.Condition, ev.At, ev.Count, desc(), false)
	case *fence.AlarmCleared:
		r.endAlarm(ev.Node, ev.Condition, ev.At, ev.Count, desc(), false)
	case *fence.ExpiryWaiting:
		if a := r.alarm(ev.Node, ev.Condition); a != nil && a.waiting == statemap.Never {
			a.waiting = ev.At
		}
	case *fence.Failover:
		r.mark(ev.At, ev.Node, fence.KindFailover, desc())
	case *fence.NoCandidate:
		r.mark(ev.At, ev.Node, fence.KindNoCandidate, desc())
	case *fence.NodeFailed:
		r.mark(ev.At, ev.Node, fence.KindNodeFailed, desc())
	case *fence.NodeRecovered:
		r.mark(ev.At, ev.Node, fence.KindNodeRecovered, desc())
	case *fence.ManagerDown:
		r.nodes[ev.Node].why = desc()
	case *fence.ManagerUp:
		r.nodes[ev.Node].why = desc()
	case *fence.FailsafeShunned:
		r.nodes[ev.Node].why = desc()
	case *cluster.HostChanged:
		if ev.Member < len(r.nodes) { // a witness has no lane
			r.nodes[ev.Member].why = desc()
		}
	}
}

// mark keeps a decision's mark, and its words for the service row's change.
func (r *Recorder) mark(at time.Duration, node int, k fence.Kind, title string) {
	r.marks = append(r.marks, mark{At: at, Node: node, Kind: k, Title: title})
	r.nodes[node].why = title
}

// alarm returns node's active alarm for condition c, or nil.
func (r *Recorder) alarm(node int, c statemap.Condition) *alarmTrack {
	as := r.nodes[node].alarms
	for k := len(as) - 1; k >= 0; k-- {
		if as[k].cond == c && as[k].ended == statemap.Never {
			return &as[k]
		}
	}
	return nil
}

func (r *Recorder) endAlarm(node int, c statemap.Condition, at time.Duration, count int, how string, expired bool) {
	if a := r.alarm(node, c); a != nil {
		a.ended, a.count, a.end, a.expired = at, count, how, expired
	}
}

// Instant implements drive.Observer: it reads each node's service and manager, the master, the
// coordinator and the policy as they stand once the instant is decided.
func (r *Recorder) Instant(at time.Duration, e fence.View) {
	r.last, r.seen = at, true
	for i := range r.nodes {
		n := &r.nodes[i]
		v := e.Node(i)
		s := replicaInService
		switch {
		case v.Shunned:
			s = shunned
		case v.Failed:
			s = failed
		case v.Role == fence.Master:
			s = masterInService
		}
		n.service = set(n.service, at, s, n.why)
		n.manager = set(n.manager, at, v.ManagerUp, n.why)
		n.why = ""
	}
	r.master = set(r.master, at, e.Master(), "")
	r.coord = set(r.coord, at, e.Coordinator(), r.coordWhy)
	r.policy = set(r.policy, at, e.Policy(), "")
	r.groupInstant(at, e)
}

// set records that a row's value is v from at on: nothing when it already is; the change at the
// same instant replaced.
func set[T comparable](cs []change[T], at time.Duration, v T, why string) []change[T] {
	k := len(cs) - 1
	if cs[k].V == v {
		return cs
	}
	if cs[k].At == at {
		if k > 0 && cs[k-1].V == v {
			return cs[:k]
		}
		cs[k] = change[T]{At: at, V: v, Why: why}
		return cs
	}
	return append(cs, change[T]{At: at, V: v, Why: why})
}

// probes returns the probe runs the picture shows, per node.
func (r *Recorder) probes() [][]probeRun {
	if r.counted != nil {
		return r.counted
	}
	timeout := r.tl.Timeout
	return probeSchedule(len(r.nodes), r.tl.Interval, r.tl.Events, r.end(), func(f fault.Fault) act.Outcome { return faultmodel.Predict(f, timeout) })
}

// end returns the end of the picture's axis: the run's end, or the last instant observed when
// it stopped early.
func (r *Recorder) end() time.Duration {
	if r.seen && r.last < r.tl.End {
		return r.last
	}
	return r.tl.End
}
