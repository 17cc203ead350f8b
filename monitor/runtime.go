package monitor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/rs/zerolog"

	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/sim"
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

// Action is a timed step of a scripted run (replay --live): at virtual time At the runtime's
// loop calls Do, before the probes and the tick of that instant.
type Action struct {
	At time.Duration
	Do func(c Control)
}

// Config sets up a Runtime.
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
	// Interval is the virtual time between probe starts; zero means sim.DefaultInterval.
	Interval time.Duration
	// Speed compresses time: virtual time is real time times Speed, so the probe interval and the
	// 10 s tick are both divided by Speed in real time. Zero means 1. The checkers' budgets are
	// the caller's business: divide them by Speed too.
	Speed float64
	// Clock is the real clock (clock.New()) or a mock in tests; nil means clock.New().
	Clock clock.Clock
	// Log receives probe results (debug), statemap reloads (info) and bad edits (warn).
	Log zerolog.Logger
	// Observers are told every engine event and, after each instant, the engine.
	Observers []sim.Observer
	// OnProbe, when not nil, is told every finished probe, from the runtime's loop.
	OnProbe func(at time.Duration, node int, r Result)
	// Actions run at their virtual times, in order; they must be sorted by At.
	Actions []Action
	// Checkpoints are extra instants the observers' Instant must see (expectations "at T").
	Checkpoints []time.Duration
	// End, when > 0, stops the run after the instant End (virtual time).
	End time.Duration
	// ReloadEvery is how often, in real time, the statemap file's modification time is looked
	// at; zero means one second.
	ReloadEvery time.Duration
}

// Runtime is the live manager: the fence engine driven by real probes and a clock.
type Runtime struct {
	cfg     Config
	clk     clock.Clock
	log     zerolog.Logger
	speed   float64
	sm      *statemap.Map // the engine's map; reloads overwrite it in place, on the loop only
	smStamp stamp
	e       *fence.Engine

	t0       time.Time
	lastAt   time.Duration
	waiting  time.Duration // the instant waiting for its probes, -1 if none
	nodes    []nodeLoop
	nextTick time.Duration
	action   int
	cps      []time.Duration
	cp       int
	lastLook time.Time

	results  chan probeDone
	cmds     chan func() // runs a function on the loop after the due work: the tests synchronise with it
	inflight atomic.Int64
	wg       sync.WaitGroup
}

type nodeLoop struct {
	busy    bool
	down    bool          // the node's manager is down: no probes
	gen     uint64        // bumped when the manager goes down: a result of an older probe is lost
	started time.Duration // the running probe's start
	next    time.Duration // the next probe's start
	held    []probeDone   // results waiting for their finish time
}

type probeDone struct {
	node    int
	gen     uint64
	started time.Duration
	finish  time.Duration
	res     Result
}

type stamp struct {
	mod  time.Time
	size int64
}

// New loads the statemap and builds the engine; Run starts it.
func New(cfg Config) (*Runtime, error) {
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
	r := &Runtime{cfg: cfg, clk: cfg.Clock, log: cfg.Log, speed: cfg.Speed, sm: loaded,
		results: make(chan probeDone, len(cfg.Nodes)), cmds: make(chan func())}
	if cfg.Statemap != "" {
		r.smStamp, _ = statOf(cfg.Statemap)
	}
	if r.clk == nil {
		r.clk = clock.New()
	}
	if r.speed <= 0 {
		r.speed = 1
	}
	if r.cfg.Interval <= 0 {
		r.cfg.Interval = sim.DefaultInterval
	}
	if r.cfg.ReloadEvery <= 0 {
		r.cfg.ReloadEvery = time.Second
	}
	nodes := make([]fence.NodeConfig, len(cfg.Nodes))
	for i, n := range cfg.Nodes {
		nodes[i] = fence.NodeConfig{Name: n.Name, Role: n.Role}
	}
	r.e = fence.New(fence.Config{Nodes: nodes, Map: r.sm, Policy: cfg.Policy})
	r.nodes = make([]nodeLoop, len(cfg.Nodes))
	r.cps = append([]time.Duration(nil), cfg.Checkpoints...)
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
	}()
	r.t0 = r.clk.Now()
	r.lastLook = r.t0
	r.nextTick = fence.NextTick(0)
	r.waiting = -1
	for {
		if r.step(pctx) {
			return nil
		}
		wake := r.nextDue()
		timer := r.clk.Timer(r.realUntil(wake))
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
	}
}

// virtual is the virtual time now.
func (r *Runtime) virtual() time.Duration {
	return time.Duration(float64(r.clk.Since(r.t0)) * r.speed)
}

// realUntil is the real time from now until virtual time v (at least 0), rounded up so that
// the wake-up is never early.
func (r *Runtime) realUntil(v time.Duration) time.Duration {
	d := time.Duration(float64(v)/r.speed) - r.clk.Since(r.t0)
	if d < 0 {
		return 0
	}
	return d + time.Microsecond
}

const never = time.Duration(1<<63 - 1)

// nextDue is the virtual time of the loop's next piece of work.
func (r *Runtime) nextDue() time.Duration {
	if r.waiting >= 0 {
		// An instant waits for its probes: their results wake the loop, or atOnce passes.
		return r.waiting + time.Duration(float64(atOnce)*r.speed)
	}
	t := r.nextInstant()
	if r.cfg.Statemap != "" {
		// Look at the file again in ReloadEvery of real time.
		v := time.Duration(float64(r.lastLook.Add(r.cfg.ReloadEvery).Sub(r.t0)) * r.speed)
		t = min(t, v)
	}
	return t
}

// take files a finished probe: it is applied at its finish time.
func (r *Runtime) take(d probeDone) {
	n := &r.nodes[d.node]
	if d.gen != n.gen {
		return // the manager went down while it ran: lost, as in the simulator
	}
	n.busy = false
	n.next = fence.NextProbeStart(d.started, d.finish, r.cfg.Interval)
	n.held = append(n.held, d)
}

// step does all the work due by now, instant by instant in time order. It reports whether the
// End instant has passed.
func (r *Runtime) step(ctx context.Context) bool {
	r.maybeReload()
	now := r.virtual()
	for {
		t := r.nextInstant()
		if t > now || t == never {
			return false
		}
		if r.cfg.End > 0 && t > r.cfg.End {
			return true
		}
		if !r.instant(ctx, t) {
			r.waiting = t // the instant waits for probes that may finish at once
			return false
		}
		r.waiting = -1
		if r.cfg.End > 0 && t == r.cfg.End {
			return true
		}
	}
}

// nextInstant is the earliest time of any due item, the statemap look excluded.
func (r *Runtime) nextInstant() time.Duration {
	if r.waiting >= 0 {
		return r.waiting
	}
	t := r.nextTick
	if r.action < len(r.cfg.Actions) {
		t = min(t, r.cfg.Actions[r.action].At)
	}
	if r.cp < len(r.cps) {
		t = min(t, r.cps[r.cp])
	}
	if r.cfg.End > 0 {
		t = min(t, r.cfg.End)
	}
	for i := range r.nodes {
		n := &r.nodes[i]
		for _, d := range n.held {
			t = min(t, d.finish)
		}
		if !n.down && !n.busy {
			t = min(t, n.next)
		}
	}
	return t
}

// instant runs one instant in the simulator's order: actions, probes that finish now, new
// probe starts with the probes among them that finish at once (in node order), the tick; then
// the observers see the engine. A probe that ends within atOnce of real time counts as ending
// at its start, as in the simulator; so while a probe started at t may still end at once, the
// rest of the instant waits: instant reports false and is called again for the same t.
func (r *Runtime) instant(ctx context.Context, t time.Duration) bool {
	at := max(t, r.lastAt)
	r.lastAt = at
	for ; r.action < len(r.cfg.Actions) && r.cfg.Actions[r.action].At <= t; r.action++ {
		r.cfg.Actions[r.action].Do(Control{r: r, at: at})
		r.flush()
	}
	r.apply(at, t, func(d probeDone) bool { return d.started < t })
	for i := range r.nodes {
		n := &r.nodes[i]
		if n.down || n.busy || n.next > t {
			continue
		}
		r.start(ctx, i, t)
	}
	if !r.startsDone(t) {
		return false
	}
	r.apply(at, t, func(probeDone) bool { return true })
	if t == r.nextTick {
		r.e.Tick(at)
		r.flush()
		r.nextTick = fence.NextTick(t)
	}
	for ; r.cp < len(r.cps) && r.cps[r.cp] <= t; r.cp++ {
	}
	for _, o := range r.cfg.Observers {
		o.Instant(at, r.e)
	}
	return true
}

// apply gives the engine, in node order, the held results that finish by t and pass which.
func (r *Runtime) apply(at, t time.Duration, which func(probeDone) bool) {
	for i := range r.nodes {
		n := &r.nodes[i]
		keep := n.held[:0]
		for _, d := range n.held {
			if d.finish > t || !which(d) {
				keep = append(keep, d)
				continue
			}
			r.log.Debug().Str("node", r.cfg.Nodes[i].Name).Stringer("condition", d.res.Condition).
				Stringer("phase", d.res.Phase).Dur("took", d.res.Took).AnErr("cause", d.res.Err).Msg("probe")
			if r.cfg.OnProbe != nil {
				r.cfg.OnProbe(at, i, d.res)
			}
			if d.res.Condition != statemap.Undefined {
				r.e.Probe(at, i, d.res.Condition)
			}
		}
		n.held = keep
	}
	r.flush()
}

// atOnce is the real time under which a probe counts as finished at its start, as the
// simulator's probes that end at once do (refused, reset, an error packet).
const atOnce = 20 * time.Millisecond

// startsDone reports whether the instant t may go on: no probe started at t is still running,
// or atOnce of real time has passed since t.
func (r *Runtime) startsDone(t time.Duration) bool {
	if r.clk.Since(r.t0) >= time.Duration(float64(t)/r.speed)+atOnce {
		return true
	}
	for i := range r.nodes {
		n := &r.nodes[i]
		if n.busy && n.started == t {
			return false
		}
	}
	return true
}

// start launches a probe of node i, started at virtual time t.
func (r *Runtime) start(ctx context.Context, i int, t time.Duration) {
	n := &r.nodes[i]
	n.busy, n.started = true, t
	n.next = t + r.cfg.Interval
	gen, p := n.gen, r.cfg.Nodes[i].Prober
	r.inflight.Add(1)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		res := p.Probe(ctx)
		d := probeDone{node: i, gen: gen, started: t, finish: t, res: res}
		if res.Took >= atOnce {
			d.finish = t + time.Duration(float64(res.Took)*r.speed)
		}
		select {
		case r.results <- d:
		case <-ctx.Done():
			r.inflight.Add(-1)
		}
	}()
}

func (r *Runtime) flush() {
	for _, ev := range r.e.Ready() {
		for _, o := range r.cfg.Observers {
			o.Event(ev)
		}
	}
}

// note tells the observers of an event the engine does not make.
func (r *Runtime) note(ev fence.Event) {
	for _, o := range r.cfg.Observers {
		o.Event(ev)
	}
}

// maybeReload looks at the statemap file once every ReloadEvery and re-reads it when it
// changed. A file that does not load keeps the last good map.
func (r *Runtime) maybeReload() {
	if r.cfg.Statemap == "" || r.clk.Since(r.lastLook) < r.cfg.ReloadEvery {
		return
	}
	r.lastLook = r.clk.Now()
	st, err := statOf(r.cfg.Statemap)
	if err != nil {
		if r.smStamp != (stamp{}) {
			r.log.Warn().Err(err).Msg("statemap unreadable: keeping the last good map")
			r.smStamp = stamp{}
		}
		return
	}
	if st == r.smStamp {
		return
	}
	r.smStamp = st
	m, err := statemap.Load(r.cfg.Statemap)
	if err != nil {
		r.log.Warn().Err(err).Msg("statemap edit rejected: keeping the last good map")
		return
	}
	r.sm = m
	r.e.SetMap(m)
	r.log.Info().Str("statemap", r.cfg.Statemap).Msg("statemap reloaded: new probes follow it; raised alarms keep their threshold")
}

func statOf(path string) (stamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return stamp{}, err
	}
	return stamp{mod: fi.ModTime(), size: fi.Size()}, nil
}

// Control is what a timed Action may do to the cluster, at the action's instant.
type Control struct {
	r  *Runtime
	at time.Duration
}

// At is the action's virtual time.
func (c Control) At() time.Duration { return c.at }

// SetManager starts or stops node i's manager. A stopped manager's node is not probed and
// its probe under way is lost.
func (c Control) SetManager(i int, up bool) {
	n := &c.r.nodes[i]
	if !up && !n.down {
		n.down, n.busy = true, false
		n.gen++
		n.held = n.held[:0]
	}
	if up && n.down {
		n.down, n.next = false, c.at
	}
	c.r.e.SetManager(c.at, i, up)
}

// SetPolicy changes the cluster's policy.
func (c Control) SetPolicy(p fence.Policy) { c.r.e.SetPolicy(c.at, p) }

// Recover is an operator's recover of node i.
func (c Control) Recover(i int) { c.r.e.Recover(c.at, i) }

// Note tells the observers of a driver-side event, such as a *sim.FaultSet stamped with At.
func (c Control) Note(ev fence.Event) { c.r.note(ev) }
