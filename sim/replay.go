package sim

import (
	"context"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/core"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/faultmodel"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// Replay runs the timeline through a fresh engine under statemap m, in virtual time, and tells
// each observer what happens. It returns the engine as it stands at the end.
//
// The schedule is package drive's: at one instant, timeline events, then finished probes,
// then new probe starts (a probe that finishes when it starts counts at once), then the
// timekeeper tick; each node's probes start at t=0 and then at fence.NextProbeStart; a node
// whose manager is down starts none and its probe under way is lost. Observers are told of
// every instant at which something was decided, every checkpoint of tl's expectations
// (Timeline.Checkpoints) and the end; a tick that
// decides nothing, alone at its instant, is not one. At every instant they are told of, the
// engine has been ticked up to that instant.
//
// The replay knows every probe's outcome when it starts (faultmodel.Predict of the fault in
// force), and
// jumps its virtual clock from one instant to the next. Its cost follows what changes, not the
// span it covers: a probe that would change nothing is not run (drive.Config.Foresee), and a
// tick at which no alarm can expire is not made but accounted for with the next one.
func Replay(tl *timeline.Timeline, m *statemap.Map, obs ...drive.Observer) *fence.Engine {
	e, _ := ReplayContext(context.Background(), tl, m, obs...)
	return e
}

// ReplayContext is Replay that stops early, at an instant's boundary, once ctx is done: it then
// returns the engine as it stands and ctx's error. The observers have seen every instant up to
// the stop.
func ReplayContext(ctx context.Context, tl *timeline.Timeline, m *statemap.Map, obs ...drive.Observer) (*fence.Engine, error) {
	r := newRunner(ctx, tl, m, obs, nil)
	return r.e, r.run()
}

// runner is the simulator's adapter around the driver: a virtual clock that jumps to the
// driver's next instant, and the fault model that says what each probe ends in.
type runner struct {
	ctx   context.Context
	steps uint // instants run, to look at ctx now and then
	e     *fence.Engine
	d     *drive.Driver
	repl  *replRun // the replication model beside the engine; nil when the timeline has none
	k     *core.Core
	// foresee is the driver's Config.Foresee, the fault model under a probe budget of timeout:
	// kept with the runner for the next replay a Replayer makes with the same budget.
	foresee func(f fault.Fault) act.Outcome
	timeout time.Duration
}

func newRunner(ctx context.Context, tl *timeline.Timeline, m *statemap.Map, obs []drive.Observer, wrap func(*core.Core) drive.Machine) *runner {
	return newRunnerReusing(ctx, tl, m, obs, nil, wrap)
}

// spare is the space of a replay done with, for the next to reuse (a Replayer's): the
// replication model's run, the engine, the core, the driver and the runner. Any of them may be
// nil, and nothing of the replay done with is read again.
type spare struct {
	repl *replRun
	e    *fence.Engine
	core *core.Core
	d    *drive.Driver
	r    *runner
}

// newRunnerReusing is newRunner that reuses old's space, if not nil (a Replayer's); wrap, if not
// nil, puts a machine around the core for the driver (the shadows beside it, sim/shadow.go).
func newRunnerReusing(ctx context.Context, tl *timeline.Timeline, m *statemap.Map, obs []drive.Observer, old *spare, wrap func(*core.Core) drive.Machine) *runner {
	return newRunnerSparse(ctx, tl, m, obs, old, wrap, false)
}

// newRunnerSparse is newRunnerReusing whose driver, with sparse and no replication model, is
// drive.Config.Sparse (Replayer.Sparse).
func newRunnerSparse(ctx context.Context, tl *timeline.Timeline, m *statemap.Map, obs []drive.Observer, old *spare, wrap func(*core.Core) drive.Machine, sparse bool) *runner {
	if old == nil {
		old = &spare{}
	}
	var rr *replRun
	var e *fence.Engine
	var candidate fence.CandidateRule // nil: fence.FirstEligible
	var wake func() (time.Duration, bool)
	if tl.Repl != nil {
		rr = newReplRun(tl, obs, old.repl)
		obs, candidate, wake = []drive.Observer{rr}, rr.candidate(&e), rr.wake
	}
	e = fence.NewReusing(fence.Config{Nodes: tl.Nodes, Map: m, Policy: tl.Policy, Candidate: candidate}, old.e)
	k := core.NewReusing(e, &cluster.Config{Witnesses: len(tl.Witnesses), GapThreshold: tl.GapThreshold, FailsafeThreshold: tl.FailsafeThreshold}, old.core)
	var mach drive.Machine = k
	if wrap != nil {
		mach = wrap(k) // shadows beside the core (sim/shadow.go)
	}
	r := old.r
	if r == nil {
		r = &runner{}
	}
	foresee := r.foresee
	if foresee == nil || r.timeout != tl.Timeout {
		timeout := tl.Timeout
		foresee = func(f fault.Fault) act.Outcome { return faultmodel.Predict(f, timeout) }
	}
	d := drive.NewReusing(old.d, mach, drive.Config{
		Interval:    tl.Interval,
		Script:      tl.Events,
		Checkpoints: tl.Checkpoints(),
		End:         tl.End,
		Foresee:     foresee,
		Sparse:      sparse && rr == nil, // the replication model is told of every instant
		Wake:        wake,
	}, obs...)
	if rr != nil {
		rr.sides.k, rr.sides.e = k, e
	}
	*r = runner{ctx: ctx, e: e, d: d, repl: rr, k: k, timeout: tl.Timeout, foresee: foresee}
	return r
}

func (r *runner) run() error {
	done := r.ctx.Done()
	for !r.d.Ended() {
		if r.steps++; done != nil && r.steps%1024 == 0 {
			select {
			case <-done:
				return r.ctx.Err()
			default:
			}
		}
		t := r.d.Next()
		if r.repl != nil {
			r.repl.begin(t)
		}
		r.d.Step(t) // the driver foresees every probe: there is none to start or report
	}
	return nil
}
