package sim

import (
	"context"
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
// its probe under way is lost. Observers are told of every instant at which something was
// decided, every checkpoint and the end; a tick that decides nothing, alone at its instant, is
// not one. At every instant they are told of, the engine has been ticked up to that instant.
//
// The cost of a replay follows what changes, not the span it covers: a probe that would change
// nothing is not run (fence.Engine.Steady), and a tick at which no alarm can expire is not made
// but accounted for with the next one (fence.Engine.Ticks, TicksToExpiry).
func Replay(tl *Timeline, m *statemap.Map, obs ...Observer) *fence.Engine {
	e, _ := ReplayContext(context.Background(), tl, m, obs...)
	return e
}

// ReplayContext is Replay that stops early, at an instant's boundary, once ctx is done: it then
// returns the engine as it stands and ctx's error. The observers have seen every instant up to
// the stop.
func ReplayContext(ctx context.Context, tl *Timeline, m *statemap.Map, obs ...Observer) (*fence.Engine, error) {
	r := newRunner(ctx, tl, m, obs)
	return r.e, r.run()
}

func newRunner(ctx context.Context, tl *Timeline, m *statemap.Map, obs []Observer) *runner {
	e := fence.New(fence.Config{Nodes: tl.Nodes, Map: m, Policy: tl.Policy})
	r := &runner{ctx: ctx, tl: tl, e: e, obs: obs, nodes: make([]probeState, len(tl.Nodes))}
	for _, o := range obs {
		if x, ok := o.(Expect); ok {
			r.checkpoints = append(r.checkpoints, x.Checkpoints()...)
		}
	}
	slices.Sort(r.checkpoints)
	return r
}

type probeState struct {
	outcome Outcome       // what a probe started now would end in
	result  Outcome       // what the probe under way ends in
	busy    bool          // a probe is under way; it finishes at at
	down    bool          // the node's manager is down: no probes
	next    time.Duration // earliest start of the next probe
	at      time.Duration // when the node next needs the runner: its probe's finish, its next start, or never
}

type runner struct {
	ctx         context.Context
	steps       uint // loop turns, to look at ctx now and then
	tl          *Timeline
	e           *fence.Engine
	obs         []Observer
	nodes       []probeState
	ev          int // next timeline event
	checkpoints []time.Duration
	cp          int
	ticked      time.Duration // the last tick the engine has been told of, made or skipped; 0 before any
	fault       FaultSet      // the note told of last, reused
}

const never = fence.Never

// nextTick returns the next tick at which something can expire: the only one that must be made.
func (r *runner) nextTick() time.Duration {
	n, ok := r.e.TicksToExpiry()
	if !ok {
		return never
	}
	return fence.NthTick(r.ticked, n)
}

// catchUp tells the engine of the ticks before t it has not been told of: none of them decides
// anything, but they count, and the events at t say how far each alarm counted.
func (r *runner) catchUp(t time.Duration) {
	if last := (t - 1) / statemap.TickInterval * statemap.TickInterval; last > r.ticked {
		r.e.Ticks(last, int64((last-r.ticked)/statemap.TickInterval))
		r.ticked = last
	}
}

// tickAt makes the tick at t, a tick instant, with the ticks skipped since the last one made.
func (r *runner) tickAt(t time.Duration) {
	r.e.Ticks(t, int64((t-r.ticked)/statemap.TickInterval))
	r.ticked = t
}

func (r *runner) run() error {
	for i := range r.nodes {
		r.nodes[i].outcome = Outcome{Condition: statemap.OK}
	}
	done := r.ctx.Done()
	for {
		if r.steps++; done != nil && r.steps%1024 == 0 {
			select {
			case <-done:
				return r.ctx.Err()
			default:
			}
		}
		tick := r.nextTick()
		t := tick
		if r.ev < len(r.tl.Events) {
			t = min(t, r.tl.Events[r.ev].At)
		}
		if r.cp < len(r.checkpoints) {
			t = min(t, r.checkpoints[r.cp])
		}
		due := never // the first probe to finish or start
		for i := range r.nodes {
			due = min(due, r.nodes[i].at)
		}
		t = min(t, due, r.tl.End)
		if t == tick && t < due && (r.ev >= len(r.tl.Events) || r.tl.Events[r.ev].At > t) &&
			(r.cp >= len(r.checkpoints) || r.checkpoints[r.cp] > t) && t != r.tl.End {
			// Nothing but the tick at this instant: if it decides nothing, the observers
			// have nothing to look at.
			r.tickAt(t)
			if r.flush() {
				for _, o := range r.obs {
					o.Instant(t, r.e)
				}
			}
			continue
		}
		r.instant(t, due == t)
		if t == r.tl.End {
			return nil
		}
		for r.cp < len(r.checkpoints) && r.checkpoints[r.cp] <= t {
			r.cp++
		}
	}
}

// instant runs virtual time t; probes is false when no probe finishes or starts at t, unless a
// timeline event at t starts one (a manager coming up).
func (r *runner) instant(t time.Duration, probes bool) {
	r.catchUp(t)
	for ; r.ev < len(r.tl.Events) && r.tl.Events[r.ev].At == t; r.ev++ {
		r.apply(t, &r.tl.Events[r.ev])
		r.flush()
		probes = true
	}
	if probes {
		r.probes(t)
	}
	if t > 0 && t%statemap.TickInterval == 0 {
		r.tickAt(t)
		r.flush()
	}
	for _, o := range r.obs {
		o.Instant(t, r.e)
	}
}

// probes finishes the probes due at t, then starts those due.
func (r *runner) probes(t time.Duration) {
	for i := range r.nodes {
		n := &r.nodes[i]
		if n.busy && n.at == t {
			n.busy, n.at = false, n.next
			r.e.Probe(t, i, n.result.Condition)
		}
	}
	r.flush()
	for i := range r.nodes {
		n := &r.nodes[i]
		if n.at > t {
			continue // down, busy, or not yet
		}
		n.result = n.outcome
		n.next = fence.NextProbeStart(t, t+n.outcome.Took, r.tl.Interval)
		n.at = n.next
		if r.skipSteady(t, i, n) {
			continue
		}
		if n.outcome.Took == 0 {
			r.e.Probe(t, i, n.outcome.Condition)
			continue
		}
		n.busy, n.at = true, t+n.outcome.Took
	}
	r.flush()
}

// skipSteady skips the probes of node i, starting with the one starting now at t, that would
// change nothing (fence.Engine.Steady) and finish before the next timeline event: only an event
// or a tick can change the engine's view of the node, and Steady bounds the ticks. The schedule
// jumps to the first probe it does not skip, exactly where it would have started; the result is
// the same as running the skipped probes, without their instants.
func (r *runner) skipSteady(t time.Duration, i int, n *probeState) bool {
	steady, until := r.e.Steady(i, n.outcome.Condition)
	if !steady {
		return false
	}
	limit := r.tl.End // a probe finishing after the end does not matter
	if r.ev < len(r.tl.Events) {
		limit = r.tl.Events[r.ev].At - 1 // a probe finishing at the event's instant counts after it
	}
	limit = min(limit, until)
	took := n.outcome.Took
	if limit < t+took {
		return false
	}
	step := max(r.tl.Interval, took)
	n.next = t + ((limit-t-took)/step+1)*step
	n.at = n.next
	return true
}

func (r *runner) apply(t time.Duration, ev *Event) {
	switch ev.Kind {
	case SetFault:
		r.nodes[ev.Node].outcome = Predict(ev.Fault, r.tl.Timeout)
		r.fault = FaultSet{At: t, Node: ev.Node, Fault: ev.Fault}
		r.note(&r.fault)
	case ManagerDown:
		n := &r.nodes[ev.Node]
		n.down, n.busy, n.at = true, false, never
		r.e.SetManager(t, ev.Node, false)
	case ManagerUp:
		n := &r.nodes[ev.Node]
		if n.down {
			n.down, n.next, n.at = false, t, t
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

// flush tells the observers of the engine's events; it reports whether there were any.
func (r *runner) flush() bool {
	evs := r.e.Ready()
	for _, ev := range evs {
		for _, o := range r.obs {
			o.Event(ev)
		}
	}
	return len(evs) > 0
}
