package monitor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/rs/zerolog"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/core"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/shadow"
	"github.com/failsim/failsim/statemap"
)

// Prober runs one probe of one node. *Checker is the real one.
type Prober interface {
	// Probe returns the probe's outcome; its Took is how long it ran, in real time. It must
	// return soon after ctx is cancelled.
	Probe(ctx context.Context) Result
}

// Node is one node the runtime watches.
type Node struct {
	Name   string
	Role   fence.Role
	Prober Prober
}

// Config is the runtime's settings: the cluster, its checkers and the engine's rules, the clock
// and the speed of time, and who is told what it decides.
type Config struct {
	// Nodes in the cluster line's order: it decides the coordinator and the failover candidate.
	// Exactly one is the master.
	Nodes []Node
	// Statemap is the override file ("" for the shipped defaults alone). It is re-read when its
	// modification time or size changes; a bad edit keeps the last good map and logs why.
	Statemap string
	// Map, when not nil, is the map to start with instead of loading Statemap (a replay's
	// effective map). With Statemap "" it never changes.
	Map *statemap.Map
	// Policy is the cluster's policy at the start; the zero value is automatic.
	Policy fence.Policy
	// Interval is the virtual time between probe starts; zero means act.DefaultInterval.
	Interval time.Duration
	// Speed compresses time: virtual time is real time times Speed, so the probe interval and the
	// 10 s tick are both divided by Speed in real time. Zero means 1. The checkers' budgets are
	// the caller's business: divide them by Speed too.
	Speed float64
	// Clock is the real clock (clock.New()) or a mock in tests; nil means clock.New().
	Clock clock.Clock
	// Log receives probe results (debug), statemap reloads (info) and bad edits (warn).
	Log zerolog.Logger
	// Observers are told every engine event and, after each instant (every tick among them), the
	// engine, from the runtime's loop.
	Observers []drive.Observer
	// OnProbe, when not nil, is told every finished probe when it counts, from the runtime's loop.
	OnProbe func(at time.Duration, node int, r Result)
	// OnOutcome, when not nil, is told every outcome the engine is given, from the runtime's
	// loop, with the virtual times its probe started and finished at (end, at which it counts
	// unless it came late): what a recording keeps (record.Book). A probe that ended without an
	// outcome is not told.
	OnOutcome func(start, end time.Duration, node int, c statemap.Condition)
	// OnReload, when not nil, is told each statemap reload, from the runtime's loop, at the
	// virtual time the new map applies from.
	OnReload func(at time.Duration, m *statemap.Map)
	// Budget, when > 0, is the checkers' budget in virtual time: a probe that ran out of time
	// (a timeout condition) after more than Budget counts as ending at its start plus Budget, as
	// a simulated one does; the checker's slack past its budget (at most 100 ms, closing the
	// socket) is not the server's. Zero counts every probe at its start plus the time it took.
	Budget time.Duration
	// Candidate chooses whom a failover promotes (fence.Config.Candidate); nil means the
	// first eligible replica in cluster order. LiveCandidate ranks real replicas by their
	// stored positions.
	Candidate fence.CandidateRule
	// ReloadEvery is how often, in real time, the statemap file's modification time is looked
	// at; zero means one second.
	ReloadEvery time.Duration
	// Group, when not nil, runs the managers as a group beside the engine, as the simulator
	// does (core.New): a live replay's managers stop and start as its script says.
	// Nil (watch): no group, the first node whose manager is up coordinates.
	Group *cluster.Config
	// Shadows, when not nil, are candidate statemaps judged beside the engine on the same
	// probes, with no effect on it (monitor/shadow.go).
	Shadows *Shadows
}

// Script is what a run plays beside its live probes, in virtual time: a live replay's timeline
// (TimelineScript), or only an end. The zero Script runs until the context is done.
type Script struct {
	// Actions are timed actions (faults, managers, policy, recovers) in time order, applied at
	// their instants before that instant's probes start.
	Actions []act.Action
	// Inject, when not nil, makes a fault action real before the probes of its instant start: a
	// live replay sets the node's proxy. Without it a fault action is only noted.
	Inject func(node int, f fault.Fault)
	// Replicate, when not nil, makes a replication action of Actions (act.Replicate) real at its
	// instant, after the instant's faults and before its probes start: a live replay's replica
	// or link change. It must not block: hand the work to a goroutine of its own. Without it a
	// replication action is only noted.
	Replicate func(a act.Action)
	// Checkpoints are further instants the observers must be told of (expectations "at T"),
	// sorted.
	Checkpoints []time.Duration
	// End, when > 0, stops the run after the instant End (virtual time); 0 runs until the
	// context is done.
	End time.Duration
}

// Runtime is the live manager: the fence engine driven by real probes and a clock. It is the
// live adapter around package drive's scheduler: a clock's timers wake it at the driver's next
// instant, and each probe runs on a goroutine of its own.
type Runtime struct {
	cfg     Config
	inject  func(node int, f fault.Fault)
	repl    func(a act.Action) // Script.Replicate
	clk     clock.Clock
	log     zerolog.Logger
	speed   float64
	sm      *statemap.Map // the engine's map; reloads overwrite it in place, on the loop only
	smStamp stamp
	e       *fence.Engine
	d       *drive.Driver
	tee     *shadow.Tee // the shadows beside the engine; nil without

	t0       time.Time
	open     bool            // an instant is begun: its probes run, and it waits for those that end at once
	openAt   time.Duration   // the open instant
	awaited  []bool          // per node: its probe started at the open instant has not reported
	waiting  int             // how many are awaited
	got      []Result        // per node: the result the driver holds, for OnProbe when it counts
	gotStart []time.Duration // per node: the start of the probe whose result the driver holds
	gotEnd   []time.Duration // per node: and its finish
	running  []time.Duration // per node: the start of its probe under way, -1 for none
	lastLook time.Time
	gaps     gapDetector

	results  chan probeDone
	cmds     chan func() // runs a function on the loop after the due work: the tests synchronise with it
	inflight atomic.Int64
	wg       sync.WaitGroup
}

type probeDone struct {
	start drive.Start
	res   Result
}

// New loads the statemap and builds the engine and its driver; Run starts it.
func New(cfg Config, sc Script) (*Runtime, error) {
	if len(cfg.Nodes) == 0 {
		return nil, errors.New("no nodes to watch")
	}
	masters := 0
	for _, n := range cfg.Nodes {
		if n.Role == fence.Master {
			masters++
		}
	}
	if masters != 1 {
		return nil, fmt.Errorf("%d masters: want exactly one", masters)
	}
	loaded := cfg.Map
	if loaded == nil {
		var err error
		if loaded, err = statemap.Load(cfg.Statemap); err != nil {
			return nil, err
		}
	}
	r := &Runtime{cfg: cfg, inject: sc.Inject, repl: sc.Replicate, clk: cfg.Clock, log: cfg.Log, speed: cfg.Speed, sm: loaded,
		awaited: make([]bool, len(cfg.Nodes)), got: make([]Result, len(cfg.Nodes)),
		gotStart: make([]time.Duration, len(cfg.Nodes)), gotEnd: make([]time.Duration, len(cfg.Nodes)), running: make([]time.Duration, len(cfg.Nodes)),
		results: make(chan probeDone, len(cfg.Nodes)), cmds: make(chan func())}
	if cfg.Statemap != "" {
		r.smStamp, _ = statOf(cfg.Statemap)
	}
	for i := range r.running {
		r.running[i] = -1
	}
	if r.clk == nil {
		r.clk = clock.New()
	}
	if r.speed <= 0 {
		r.speed = 1
	}
	if r.cfg.Interval <= 0 {
		r.cfg.Interval = act.DefaultInterval
	}
	if r.cfg.ReloadEvery <= 0 {
		r.cfg.ReloadEvery = time.Second
	}
	nodes := make([]fence.NodeConfig, len(cfg.Nodes))
	for i, n := range cfg.Nodes {
		nodes[i] = fence.NodeConfig{Name: n.Name, Role: n.Role}
	}
	r.e = fence.New(fence.Config{Nodes: nodes, Map: r.sm, Policy: cfg.Policy, Candidate: cfg.Candidate})
	end := sc.End
	if end <= 0 {
		end = drive.Never
	}
	// A live run foresees nothing (every real probe runs), and makes every tick, so that the
	// metrics and the report follow each alarm's count tick by tick.
	r.d = drive.New(r.withShadows(core.New(r.e, cfg.Group)), drive.Config{
		Interval:    r.cfg.Interval,
		Script:      sc.Actions,
		Checkpoints: sc.Checkpoints,
		End:         end,
		EveryTick:   true,
		Counted:     r.counted,
	}, cfg.Observers...)
	return r, nil
}

// Map returns the statemap in force; a reload replaces it. Read it only after Run has
// returned, or from an observer.
func (r *Runtime) Map() *statemap.Map { return r.sm }

// Engine returns the engine. Read it only after Run has returned, or from an observer.
func (r *Runtime) Engine() *fence.Engine { return r.e }

// Run watches until ctx is done or the End instant has passed, then waits for the probes under
// way (each returns within its budget) and returns. Events go to the observers as they happen.
func (r *Runtime) Run(ctx context.Context) error {
	pctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		r.wg.Wait()
		r.finishShadows()
	}()
	r.t0 = r.clk.Now()
	r.lastLook = r.t0
	r.gaps = gapDetector{clk: r.clk, limit: gapLimit(r.cfg.Interval, r.speed), t0: r.t0, speed: r.speed, busy: r.t0}
	for {
		if r.step(pctx) {
			return nil
		}
		wait := r.realUntil(r.nextDue())
		r.gaps.plan(wait)
		timer := r.clk.Timer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case d := <-r.results:
			r.inflight.Add(-1)
			r.take(d)
		case f := <-r.cmds:
			r.step(pctx)
			f()
		case <-timer.C:
		}
		timer.Stop()
		r.gaps.woke()
	}
}

// Gaps are the stretches of real time in which the run did not run (ClockGap), in time order.
// Read them only after Run has returned.
func (r *Runtime) Gaps() []ClockGap { return r.gaps.gaps }

// virtual is the virtual time now.
func (r *Runtime) virtual() time.Duration {
	return time.Duration(float64(r.clk.Since(r.t0)) * r.speed)
}

// realUntil is the real time from now until virtual time v (at least 0), rounded up so that
// the wake-up is never early.
func (r *Runtime) realUntil(v time.Duration) time.Duration {
	if v == drive.Never {
		return time.Duration(1<<62 - 1)
	}
	d := time.Duration(float64(v)/r.speed) - r.clk.Since(r.t0)
	if d < 0 {
		return 0
	}
	return d + time.Microsecond
}

// nextDue is the virtual time of the loop's next piece of work.
func (r *Runtime) nextDue() time.Duration {
	if r.open {
		// The instant waits for its probes: their results wake the loop, or atOnce passes.
		return r.openAt + time.Duration(float64(atOnce)*r.speed)
	}
	t := r.d.Next()
	if r.holding(t) {
		return t + time.Duration(float64(timeoutSlack)*r.speed)
	}
	if r.cfg.Statemap != "" {
		// Look at the file again in ReloadEvery of real time.
		v := time.Duration(float64(r.lastLook.Add(r.cfg.ReloadEvery).Sub(r.t0)) * r.speed)
		t = min(t, v)
	}
	return t
}

// step does all the work due by now, instant by instant in time order. It reports whether the
// End instant has passed.
func (r *Runtime) step(ctx context.Context) bool {
	r.maybeReload()
	now := r.virtual()
	for {
		if r.open {
			if !r.startsDone() {
				return false // the instant waits for probes that may end at once
			}
			r.open = false
			r.waiting = 0
			clear(r.awaited) // a result still to come counts late, at the next instant
			r.d.Close()
		}
		if r.d.Ended() {
			return true
		}
		t := r.d.Next()
		if t > now || r.holding(t) {
			return false
		}
		w := r.d.Begin(t)
		for _, f := range w.Faults {
			if r.inject != nil {
				r.inject(f.Node, f.Fault)
			}
		}
		for _, a := range w.Repls {
			if r.repl != nil {
				r.repl(a)
			}
		}
		r.open, r.openAt = true, t
		for _, s := range w.Starts {
			r.start(ctx, s)
		}
	}
}

// timeoutSlack is how long past its budget, in real time, a timed-out probe's result may come:
// the checker's grace before it closes the socket, and as much again for the close.
const timeoutSlack = 2 * grace

// holding reports whether instant at must wait, at most timeoutSlack of real time past it,
// before it begins: a probe that may run out of its Budget at it is still to report. Counted at
// its start plus Budget (take), such an outcome then counts at at, in node order with the
// others due, before the instant's tick, as in the simulator; begun without it, the instant
// would count it later, after the tick or after the others.
func (r *Runtime) holding(at time.Duration) bool {
	if r.cfg.Budget <= 0 || at == drive.Never || r.clk.Since(r.t0) >= time.Duration(float64(at)/r.speed)+timeoutSlack {
		return false
	}
	for _, st := range r.running {
		if st >= 0 && st < at && st+r.cfg.Budget == at {
			return true
		}
	}
	return false
}

// atOnce is the real time under which a probe counts as finished at its start, as the
// simulator's probes that end at once do (refused, reset, an error packet).
const atOnce = 20 * time.Millisecond

// startsDone reports whether the open instant may close: none of its probes is still running,
// or atOnce of real time has passed since it.
func (r *Runtime) startsDone() bool {
	return r.waiting == 0 || r.clk.Since(r.t0) >= time.Duration(float64(r.openAt)/r.speed)+atOnce
}

// start launches probe s on a goroutine of its own.
func (r *Runtime) start(ctx context.Context, s drive.Start) {
	r.awaited[s.Node] = true
	r.waiting++
	r.running[s.Node] = s.At
	p := r.cfg.Nodes[s.Node].Prober
	r.inflight.Add(1)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		res := p.Probe(ctx)
		select {
		case r.results <- probeDone{start: s, res: res}:
		case <-ctx.Done():
			r.inflight.Add(-1)
		}
	}()
}

// take reports a finished probe to the driver. One that ran under atOnce of real time finished
// at its start, as in the simulator; any other at its start plus its time, in virtual time.
func (r *Runtime) take(d probeDone) {
	s := d.start
	if r.running[s.Node] == s.At {
		r.running[s.Node] = -1
	}
	if r.open && s.At == r.openAt && r.awaited[s.Node] {
		r.awaited[s.Node] = false
		r.waiting--
	}
	at := s.At
	c := d.res.Condition
	if d.res.Took >= atOnce {
		at += time.Duration(float64(d.res.Took) * r.speed)
		if r.cfg.Budget > 0 && c.IsTimeout() && at > s.At+r.cfg.Budget {
			at = s.At + r.cfg.Budget
		}
	}
	if c == statemap.Undefined {
		c = drive.NoOutcome // the checker's probe was cut short: it ended without an outcome
	}
	if r.d.Report(s, at, c) {
		r.got[s.Node], r.gotStart[s.Node], r.gotEnd[s.Node] = d.res, s.At, at
	}
}

// counted is the driver telling that node i's result counts at instant at: it is logged and
// told to OnProbe.
func (r *Runtime) counted(at time.Duration, i int, c statemap.Condition) {
	res := r.got[i]
	r.log.Debug().Str("node", r.cfg.Nodes[i].Name).Stringer("condition", res.Condition).
		Stringer("phase", res.Phase).Dur("took", res.Took).AnErr("cause", res.Err).Msg("probe")
	if r.cfg.OnProbe != nil {
		r.cfg.OnProbe(at, i, res)
	}
	if r.cfg.OnOutcome != nil && c != drive.NoOutcome {
		r.cfg.OnOutcome(r.gotStart[i], r.gotEnd[i], i, c)
	}
}
