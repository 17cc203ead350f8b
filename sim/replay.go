package sim

import (
	"slices"
	"time"

	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
)

// Replay runs the timeline through a fresh engine under statemap m, in virtual time, and tells
// each observer what happens. It returns the engine as it stands at the end.
//
// At one instant the order is: timeline events, then finished probes, then new probe starts
// (a probe that finishes when it starts counts at once), then the timekeeper tick. Each node's
// probes start at t=0 and then at NextProbeStart; a node whose manager is down starts none and
// its probe under way is lost.
func Replay(tl *Timeline, m *statemap.Map, obs ...Observer) *fence.Engine {
	e := fence.New(fence.Config{Nodes: tl.Nodes, Map: m, Policy: tl.Policy})
	r := runner{tl: tl, e: e, obs: obs, nodes: make([]probeState, len(tl.Nodes))}
	for _, o := range obs {
		if x, ok := o.(Expect); ok {
			r.checkpoints = append(r.checkpoints, x.Checkpoints()...)
		}
	}
	slices.Sort(r.checkpoints)
	r.run()
	return e
}

type probeState struct {
	outcome  Outcome // what a probe started now would end in
	busy     bool
	started  time.Duration
	finishAt time.Duration
	result   Outcome
	next     time.Duration // earliest start of the next probe
	down     bool          // the node's manager is down: no probes
}

type runner struct {
	tl          *Timeline
	e           *fence.Engine
	obs         []Observer
	nodes       []probeState
	ev          int // next timeline event
	checkpoints []time.Duration
	cp          int
}

const never = time.Duration(1<<63 - 1)

func (r *runner) run() {
	tick := fence.NextTick(0)
	for i := range r.nodes {
		r.nodes[i].outcome = Outcome{Condition: statemap.OK}
	}
	for {
		t := tick
		if r.ev < len(r.tl.Events) {
			t = min(t, r.tl.Events[r.ev].At)
		}
		if r.cp < len(r.checkpoints) {
			t = min(t, r.checkpoints[r.cp])
		}
		for i := range r.nodes {
			n := &r.nodes[i]
			switch {
			case n.down:
			case n.busy:
				t = min(t, n.finishAt)
			default:
				t = min(t, n.next)
			}
		}
		if t > r.tl.End {
			return
		}
		r.instant(t)
		if t == tick {
			tick = fence.NextTick(t)
		}
		for r.cp < len(r.checkpoints) && r.checkpoints[r.cp] <= t {
			r.cp++
		}
	}
}

func (r *runner) instant(t time.Duration) {
	for ; r.ev < len(r.tl.Events) && r.tl.Events[r.ev].At == t; r.ev++ {
		r.apply(t, &r.tl.Events[r.ev])
		r.flush()
	}
	for i := range r.nodes {
		n := &r.nodes[i]
		if n.busy && n.finishAt == t {
			n.busy = false
			r.e.Probe(t, i, n.result.Condition)
		}
	}
	r.flush()
	for i := range r.nodes {
		n := &r.nodes[i]
		if n.down || n.busy || n.next > t {
			continue
		}
		n.started, n.result = t, n.outcome
		n.next = t + r.tl.Interval
		if n.outcome.Took == 0 {
			r.e.Probe(t, i, n.outcome.Condition)
			continue
		}
		n.busy, n.finishAt = true, t+n.outcome.Took
		n.next = fence.NextProbeStart(t, n.finishAt, r.tl.Interval)
	}
	r.flush()
	if t > 0 && t%statemap.TickInterval == 0 {
		r.e.Tick(t)
		r.flush()
	}
	for _, o := range r.obs {
		o.Instant(t, r.e)
	}
}

func (r *runner) apply(t time.Duration, ev *Event) {
	switch ev.Kind {
	case SetFault:
		r.nodes[ev.Node].outcome = Predict(ev.Fault, r.tl.Timeout)
		r.note(fence.Event{At: t, Kind: fence.FaultInjected, Node: r.tl.Nodes[ev.Node].Name, Detail: ev.Fault.String()})
	case ManagerDown:
		n := &r.nodes[ev.Node]
		n.down, n.busy = true, false
		r.e.SetManager(t, ev.Node, false)
	case ManagerUp:
		n := &r.nodes[ev.Node]
		if n.down {
			n.down, n.next = false, t
		}
		r.e.SetManager(t, ev.Node, true)
	case SetPolicy:
		r.e.SetPolicy(t, ev.Policy)
	case Recover:
		r.e.Recover(t, ev.Node)
	case End:
	}
}

// note tells the observers of a driver-side event the engine does not make.
func (r *runner) note(ev fence.Event) {
	for _, o := range r.obs {
		o.Event(ev)
	}
}

func (r *runner) flush() {
	evs := r.e.Ready()
	if len(r.obs) == 0 {
		return
	}
	for _, ev := range evs {
		for _, o := range r.obs {
			o.Event(ev)
		}
	}
}
