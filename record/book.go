package record

import (
	"slices"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// Header is what every file of a recording states before its events.
type Header struct {
	Nodes    []fence.NodeConfig // in the cluster line's order
	Interval time.Duration      // between a node's probe starts
	Timeout  time.Duration      // each probe's budget
	Start    time.Time          // the clock time of the watch's t=0
	Policy   fence.Policy       // the policy the watch runs under
}

// Segment is one file's worth of a recording, as data.
type Segment struct {
	// From is the virtual time the segment starts at: 0 for the first, the cut for the others.
	From time.Duration
	// Statemap is the file name, in the recording's directory, of the statemap in force during
	// the segment; "" for the shipped defaults.
	Statemap string
	// Events are the outcome changes, in time order (node order among equal times).
	Events []timeline.Event
	// Expects are the decisions as expectations, in the order decided, and, once cut, each
	// node's state and role at the cut.
	Expects []timeline.Expect
}

// Book decides what a recording holds: which outcomes are changes and which expect lines the
// decisions imply. It does no I/O and reads no clock; call it from one goroutine.
//
// A timeline's probes yield ok until an event says otherwise, so each node starts at ok and
// only a change is an event: a quiet day is a few lines.
type Book struct {
	h     Header
	live  []statemap.Condition // per node: its last outcome live; none before the first
	yield []yield              // per node: what the replay's probes now yield
	seg   Segment
}

// yield is what a node's probes yield in the replay: a condition, and for ok the time a probe
// takes (a "slow" event), 0 at once.
type yield struct {
	c    statemap.Condition
	took time.Duration
}

// none is no outcome yet.
const none = statemap.NumConditions

// NewBook returns a book whose first segment starts at t=0 under the statemap named sm ("" for
// the shipped defaults).
func NewBook(h Header, sm string) *Book {
	b := &Book{h: h, live: make([]statemap.Condition, len(h.Nodes)), yield: make([]yield, len(h.Nodes)), seg: Segment{Statemap: sm}}
	for i := range b.live {
		b.live[i], b.yield[i] = none, yield{c: statemap.OK}
	}
	return b
}

// Header returns the header every segment is written with.
func (b *Book) Header() Header { return b.h }

// Outcome records that node's probe started at start and finished at end (virtual times) ended
// in c. It reports whether that is a change, and so an event: the replay's probe started at the
// same instant must end as this one did, as its later ones until the next change.
//
// A change is a new condition, "probe CONDITION", which in the replay ends at once, or after
// the checker's timeout for a timeout condition (as a live one does: the runtime counts a
// timed-out probe at its budget). An ok probe that took time (20 ms or more live; under that
// it counts at its start) is "slow TOOK" when its time shows: it changed the node's state (the
// first probe, the first ok after a bad one), or it outlasted the interval and so moved the
// node's next start. An ok probe after an ok one, in less than the interval, changes nothing
// whenever it ends, and is no event. Outcomes come in the order they count, which is not the
// order of their starts (a timeout counts after a later start's refusal): an event is placed
// in time order.
func (b *Book) Outcome(start, end time.Duration, node int, c statemap.Condition) bool {
	prev, y := b.live[node], b.yield[node]
	b.live[node] = c
	took := end - start
	next := yield{c: c}
	switch {
	case c != statemap.OK:
	case prev == statemap.OK && took < b.h.Interval && y.c == statemap.OK && y.took < b.h.Interval:
		return false
	case took < b.h.Timeout:
		next.took = took
	}
	if next == y {
		return false
	}
	b.yield[node] = next
	f := fault.Fault{Kind: fault.Probe, Condition: c.String()}
	if next.took > 0 {
		f = fault.Fault{Kind: fault.Slow, Delay: next.took}
	}
	b.event(timeline.Event{At: start, Kind: act.SetFault, Node: node, Fault: f})
	return true
}

// event places ev in time order, after the events of its time told before it.
func (b *Book) event(ev timeline.Event) {
	i := len(b.seg.Events)
	for i > 0 && b.seg.Events[i-1].At > ev.At {
		i--
	}
	b.seg.Events = slices.Insert(b.seg.Events, i, ev)
}

// Decide records what decision ev implies: as expectations whose window is its instant, a
// failover of its master to the replica promoted, a master failed with no candidate (no master,
// and the node failed), a node failed; as events, what the engine was told to do, which its
// echo says: a policy change, a manager stopped or started, an operator's recover. (A watch
// makes none of these today; a runtime that plays a script does.) Other events imply nothing
// of their own: each node's state and role at the cut (Cut) hold what they changed.
func (b *Book) Decide(ev act.Event) {
	at := func(t time.Duration) timeline.Window {
		return timeline.Window{After: t, By: t, HasAfter: true, HasBy: true}
	}
	switch d := ev.(type) {
	case *fence.Failover:
		b.expect(timeline.Expect{Kind: timeline.ExpectFailover, Node: d.Node, To: d.To, Window: at(d.At)})
	case *fence.NoCandidate:
		b.expect(timeline.Expect{Kind: timeline.ExpectNoMaster, Node: -1, To: -1, Window: at(d.At)})
		b.expect(timeline.Expect{Kind: timeline.ExpectFailed, Node: d.Node, To: -1, Window: at(d.At)})
	case *fence.NodeFailed:
		b.expect(timeline.Expect{Kind: timeline.ExpectFailed, Node: d.Node, To: -1, Window: at(d.At)})
	case *fence.PolicyChanged:
		b.event(timeline.Event{At: d.At, Kind: act.SetPolicy, Policy: d.Policy})
	case *fence.ManagerDown:
		b.event(timeline.Event{At: d.At, Kind: act.ManagerDown, Node: d.Node})
	case *fence.ManagerUp:
		b.event(timeline.Event{At: d.At, Kind: act.ManagerUp, Node: d.Node})
	case *fence.NodeRecovered:
		if d.By == fence.RecoveredByOperator {
			b.event(timeline.Event{At: d.At, Kind: act.Recover, Node: d.Node})
		}
	case *fence.RecoverIgnored:
		b.event(timeline.Event{At: d.At, Kind: act.Recover, Node: d.Node})
	case *fence.RecoverRefused:
		b.event(timeline.Event{At: d.At, Kind: act.Recover, Node: d.Node})
	}
}

// Recorded reports whether Decide records anything of ev: the recorder's filter.
func Recorded(ev act.Event) bool {
	switch d := ev.(type) {
	case *fence.Failover, *fence.NoCandidate, *fence.NodeFailed, *fence.PolicyChanged, *fence.ManagerDown,
		*fence.ManagerUp, *fence.RecoverIgnored, *fence.RecoverRefused:
		return true
	case *fence.NodeRecovered:
		return d.By == fence.RecoveredByOperator
	}
	return false
}

func (b *Book) expect(x timeline.Expect) { b.seg.Expects = append(b.seg.Expects, x) }

// Last is the time of the open segment's last event, 0 for none.
func (b *Book) Last() time.Duration {
	if n := len(b.seg.Events); n > 0 {
		return b.seg.Events[n-1].At
	}
	return 0
}

// Open returns a copy of the open segment, which the book goes on filling.
func (b *Book) Open() Segment {
	s := b.seg
	s.Events = slices.Clone(s.Events)
	s.Expects = slices.Clone(s.Expects)
	return s
}

// Cut ends the open segment at virtual time at, the instant whose engine nodes shows, and
// returns it with each node's state and role at that instant as expectations; the next segment
// starts at at under the statemap named sm. A probe under way at the cut whose outcome is a
// change lands in the next segment, at its start (before the cut): ReadDir puts it in order.
func (b *Book) Cut(at time.Duration, nodes []fence.NodeView, sm string) Segment {
	s := b.seg
	s.Expects = append(s.Expects, Final(at, nodes)...)
	b.seg = Segment{From: at, Statemap: sm}
	return s
}

// Final is the expectations that pin down the engine at instant at: each node's datasource
// state, then its role (master, replica or failed), in cluster order.
func Final(at time.Duration, nodes []fence.NodeView) []timeline.Expect {
	var out []timeline.Expect
	for i, n := range nodes {
		out = append(out,
			timeline.Expect{Kind: timeline.ExpectAt, Node: i, To: -1, At: at, Want: n.State.String()},
			timeline.Expect{Kind: timeline.ExpectAt, Node: i, To: -1, At: at, Want: n.RoleName()})
	}
	return out
}

// Timeline is segment s as a timeline of file name in directory dir, ending at end: what
// timeline.Format writes and the parser reads back.
func (h Header) Timeline(dir, name string, s Segment, end time.Duration) *timeline.Timeline {
	tl := &timeline.Timeline{
		File: dir + "/" + name, Nodes: h.Nodes, Interval: h.Interval, Timeout: h.Timeout, Start: h.Start,
		Policy: h.Policy, Events: s.Events, End: end, Expects: s.Expects,
	}
	if s.Statemap != "" {
		tl.Statemap = dir + "/" + s.Statemap
	}
	return tl
}

// Text is segment s written as file name's timeline, ending at end.
func (h Header) Text(name string, s Segment, end time.Duration) []byte {
	return timeline.Format(h.Timeline(".", name, s, end))
}
