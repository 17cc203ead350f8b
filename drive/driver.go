package drive

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
)

// Never is a time no run reaches: Next's answer once the run is over, and Config.End's for a
// run with no end.
const Never = statemap.Never

// Config sets up a Driver.
type Config struct {
	// Interval is the time between a node's probe starts, or from a probe's finish if that is
	// later (fence.NextProbeStart); > 0.
	Interval time.Duration
	// Script is the timed actions, in time order (script order among equal times). The driver
	// reads it as the run goes: do not change it during the run.
	Script []act.Action
	// Checkpoints are further instants the observers must be told of (an expectation's "at T"),
	// sorted.
	Checkpoints []time.Duration
	// End is the last instant: it is run in full, like any other, and then the run is over. A
	// probe still under way at the end never finishes. Never for a run with no end; the zero
	// value ends the run after its first instant, t=0.
	End time.Duration
	// Foresee, when not nil, is the fault model: the outcome of any probe started while the
	// node's link has fault f (a node starts with the zero Fault, healed). With it the driver
	// knows every probe's outcome when it starts and runs the probes itself, in virtual time:
	// each ends as foreseen, Took after its start, exactly as if the adapter had reported it,
	// and none is handed out. And it does not run a probe that would change nothing
	// (fence.Engine.Steady) and finish before the next action: the schedule jumps to the first
	// probe it does run, exactly where that would have started. Nil in a live run: real probes
	// cannot be foreseen, and must all run.
	Foresee func(f fault.Fault) act.Outcome
	// Sparse tells the observers of no instant at which nothing is decided but checkpoints, the
	// end and those Wake names, and, with Foresee, lets the driver skip a node's probes that
	// would change nothing past the script's fault changes on other nodes too, which cannot
	// change what the node's probes do: only a fault change on the node itself and any other
	// action bound the skip; and, at the end of each instant, it does what each node's next
	// probe start would do where nothing changes the node's view by then (skip its probes, or
	// start one that ends later), sparing the instant at that start. What is decided, when, and
	// the engine at every instant the observers are told of are exactly as without it; the
	// instants at which nothing is decided are left out. Set it only when the observers judge what is decided and the engine as it
	// stands at the instants at which something is, not which other instants they are told of
	// (property.Set.Sparse).
	Sparse bool
	// EveryTick makes every timekeeper tick one by one and tells the observers of each, even one
	// that decides nothing (the live runtime: its metrics and report follow the alarms' counts
	// tick by tick). Without it a tick at which no alarm can expire is not made but accounted for
	// with the next one the driver makes (fence.Engine.Ticks), and such a tick, alone at its
	// instant, is no instant of the observers'.
	EveryTick bool
	// Counted, when not nil, is told of each probe outcome at the instant it counts, just
	// before the engine is (an outcome of NoOutcome, a probe that ended without one, is
	// told here and not to the engine).
	Counted func(at time.Duration, node int, c statemap.Condition)
	// Wake, when not nil, names a further instant the observers must be told of, like a
	// checkpoint known only as the run goes: the next time a model run beside the engine
	// changes of its own accord or is told something (the simulator's replication model). The
	// driver asks it each time it plans its next instant; ok is false for none. An instant
	// before the last one run counts as the last.
	Wake func() (at time.Duration, ok bool)
}

// Work is what an instant asks of the adapter, in this order: make each fault real, then start
// each probe (none with Config.Foresee). Its slices are the driver's, reused by the next Begin.
type Work struct {
	At     time.Duration
	Faults []FaultChange // in script order
	Repls  []act.Action  // the script's Replicate actions at the instant, in script order: the engine is not told of them
	Starts []Start       // in node order
}

// Driver schedules the instants of one run of an engine. Its zero value is not usable: call
// New. It is not safe for concurrent use: one goroutine drives it.
type Driver struct {
	m       Machine
	view    fence.View // m's, the same all run
	quiet   bool       // m.Quiet(), asked after each Apply and Tick, the only calls that change it
	nodes   []prober
	foresee bool // cfg.Foresee != nil
	cfg     Config
	obs     []Observer
	inst    []InstantObserver // the observers of obs told of each instant

	act    int           // the next action of the script
	acted  time.Duration // its time; Never when the script is done
	cp     int           // the next checkpoint
	last   time.Duration // the last instant begun; 0 before any
	ticked time.Duration // the last tick the engine has been told of, made or accounted for; 0 before any
	open   bool          // an instant is begun and not yet closed
	lone   bool          // the open instant is a tick alone, already made
	told   bool          // the lone tick decided something: the observers are told of it
	ended  bool
	// decided: the observers were told of an event at the open instant (Config.Sparse tells
	// them of no other instant but checkpoints and the end)
	decided bool
	// faulted, under Config.Sparse: per action of the script, the node whose fault it changes,
	// -1 for any other action
	faulted []int32
	passive bool  // the machine is a Passive one
	called  bool  // passive: a call that may decide was made into the machine since the last Ready
	expiry  int64 // passive, with expOK: what TicksToExpiry said, since no call that changes it
	expHas  bool
	expOK   bool
	rose    bool    // a manager came up at the open instant: its first probe is due now
	handout bool    // the open instant was begun by Begin: gather its Work (not by Step)
	aheads  bool    // Config.Sparse with Config.Foresee: Begin runs ahead
	moved   []int32 // with aheads: the nodes whose schedule changed since ahead last looked at them, in the order touched
	spare   []int32 // the other buffer of moved: ahead's look touches into it
	late    int     // outcomes due at the open instant, of probes started before it, for Close to count
	once    int     // outcomes due at the open instant, of probes started at it, for Close to count

	fresh  bool          // next, tick and due hold: nothing changed since they were worked out
	next   time.Duration // the next instant
	tick   time.Duration // the next tick that must be made
	due    time.Duration // the first time a node needs the driver: a probe to start, or an outcome to count
	counts time.Duration // the first time an outcome counts
	woke   time.Duration // the instant Config.Wake named when the next instant was planned

	fault  act.FaultSet  // the note told of last, reused
	faults []FaultChange // the open instant's Work
	repls  []act.Action
	starts []Start
}

// New returns a driver for machine m under cfg, with observers obs. The machine must be fresh
// (no call made into it yet) and driven by this driver alone; every node starts with its
// manager up and its first probe due at t=0.
func New(m Machine, cfg Config, obs ...Observer) *Driver {
	return NewReusing(nil, m, cfg, obs...)
}

// NewReusing is New that reuses the space of old, a driver done with (nothing it handed out,
// nor old itself, is used again), for a caller that drives run after run on one goroutine
// (sim.Replayer): the driver it returns is old itself, made fresh, exactly as New makes one. A
// nil old is New.
func NewReusing(old *Driver, m Machine, cfg Config, obs ...Observer) *Driver {
	if cfg.Interval <= 0 {
		panic(fmt.Sprintf("drive: probe interval %v", cfg.Interval))
	}
	d := old
	if d == nil {
		d = &Driver{}
	}
	nodes, inst, faults, repls, starts, faulted := d.nodes, d.inst[:0], d.faults[:0], d.repls[:0], d.starts[:0], d.faulted[:0]
	moved, spare := d.moved[:0], d.spare[:0]
	clear(d.inst[:cap(d.inst)])
	clear(d.repls[:cap(d.repls)])
	for _, o := range obs {
		if i, ok := o.(InstantObserver); ok {
			inst = append(inst, i) // Instants(obs), into the old space
		}
	}
	*d = Driver{m: m, cfg: cfg, obs: obs, inst: inst, view: m.View(), quiet: m.Quiet(), nodes: zeroed(nodes, m.Len()), foresee: cfg.Foresee != nil,
		faults: faults, repls: repls, starts: starts, moved: moved, spare: spare, aheads: cfg.Sparse && cfg.Foresee != nil}
	_, d.passive = m.(Passive)
	d.called = true
	if cfg.Sparse {
		for k := range cfg.Script {
			node := int32(-1)
			if a := &cfg.Script[k]; a.Kind == act.SetFault {
				node = int32(a.Node)
			}
			faulted = append(faulted, node)
		}
		d.faulted = faulted
	}
	for i := range d.nodes {
		p := &d.nodes[i]
		p.set(idle, 0)
		p.aheadAt = -1
		d.touch(i, p)
	}
	d.act = -1
	d.advance()
	if cfg.Foresee != nil {
		healed := cfg.Foresee(fault.Fault{})
		for i := range d.nodes {
			d.nodes[i].foreseen = healed
		}
	}
	return d
}

// zeroed returns s with n zero elements, reusing its space when it has room.
func zeroed[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// Next returns the instant the driver must run next: the earliest of the next action, the next
// checkpoint, a probe to start or to count, the next tick that must be made, and the end. It
// is never before the last instant begun: an outcome reported after its finish instant was run
// counts at a further instant at the time of the last (live, where a probe's result can come
// late). Once the end has been run, Next returns Never; while an instant is open, its time.
func (d *Driver) Next() time.Duration {
	switch {
	case d.ended:
		return Never
	case d.open:
		return d.last
	case !d.fresh:
		d.plan()
	}
	return d.next
}

// Ended reports whether the end instant has been run: the run is over.
func (d *Driver) Ended() bool { return d.ended }

// Begin opens instant t, which must be Next(): it applies the script's actions at t, counts the
// probes that finished by t, and returns the faults to make real and the probes to start, in
// that order. Report each started probe's outcome as soon as it is known; one that ends at once
// counts before the tick if it is reported before Close.
func (d *Driver) Begin(t time.Duration) Work {
	d.handout = true
	d.begin(t)
	if d.lone {
		return Work{At: t}
	}
	return Work{At: t, Faults: d.faults, Repls: d.repls, Starts: d.starts}
}

// Step runs instant t, which must be Next(), in full, as Begin and Close do, for an adapter
// that needs no Work: one whose driver foresees every probe (Config.Foresee), so there is none
// to start or report, and that makes the faults and replication actions real in a model of
// its own (the simulator: the fault model is Foresee itself, and the replication model reads
// the timeline). The observers are told exactly what Begin and Close tell them.
func (d *Driver) Step(t time.Duration) {
	if !d.foresee {
		panic("drive: Step without Config.Foresee: the probes must be handed out")
	}
	d.handout = false
	d.begin(t)
	d.Close()
}

// begin opens instant t: Begin's work, and with d.handout the Work gathered.
func (d *Driver) begin(t time.Duration) {
	if d.open || d.ended {
		panic("drive: Begin or Step with an instant open or the run over")
	}
	if next := d.Next(); t != next {
		panic(fmt.Sprintf("drive: Begin or Step(%v), but the next instant is %v", t, next))
	}
	d.open, d.fresh, d.last = true, false, t
	if t == d.tick && t < d.due && t != d.cfg.End && !d.actionAt(t) && !d.checkpointAt(t) && t != d.woke {
		// Nothing but the tick at this instant: if it decides nothing, the observers have
		// nothing to look at.
		d.lone = true
		d.tickAt(t)
		d.told = d.flush() || d.cfg.EveryTick
		return
	}
	d.lone, d.decided = false, false
	d.late, d.once = 0, 0
	d.faults, d.repls, d.starts = d.faults[:0], d.repls[:0], d.starts[:0]
	d.catchUp(t)
	starts := d.due <= t // an outcome that counts now may start the node's next probe now
	d.rose = false
	for d.acted <= t {
		d.apply(t, &d.cfg.Script[d.act])
		d.flush()
		d.advance()
	}
	starts = starts || d.rose // a manager that comes up starts a probe; no other action makes one due
	if d.counts <= t {
		d.count(t, false)
		d.flush()
	}
	if starts {
		d.start(t)
	}
	if d.cfg.Sparse && d.foresee && d.quiet {
		d.ahead(t)
	}
}

// Report gives the outcome of probe s, which finished at time at (at once: at == s.At). It
// counts at instant at, or at the next instant if that has been run (a late outcome), in node
// order among the outcomes that count at one instant; the node's next probe starts at
// fence.NextProbeStart(s.At, at, Interval). Report returns false, and the outcome is dropped,
// when the probe is no longer under way: its node's manager stopped meanwhile, or it was
// reported already. An outcome of NoOutcome is a probe that ended without one: its
// schedule goes on, and the engine is not told.
func (d *Driver) Report(s Start, at time.Duration, c statemap.Condition) bool {
	p := &d.nodes[s.Node]
	if p.phase != running || p.seq != s.seq {
		return false
	}
	if at < s.At {
		panic(fmt.Sprintf("drive: a probe started at %v finished at %v", s.At, at))
	}
	d.finished(p, at, c)
	return true
}

// Close ends the open instant: it counts the outcomes reported since Begin that are due by now
// (those of probes started before it, then those that ended at once), makes the tick if the
// instant is one, and tells the observers. Probes started at the instant and not reported yet
// are under way.
func (d *Driver) Close() {
	if !d.open {
		panic("drive: Close with no instant open")
	}
	t := d.last
	d.open, d.fresh = false, false
	if d.lone {
		if d.told {
			d.observe(t)
		}
		return
	}
	if d.late > 0 {
		d.count(t, false)
	}
	if d.once > 0 {
		d.count(t, true)
	}
	d.flush()
	if isTick(t) && t > d.ticked {
		d.tickAt(t)
		d.flush()
	}
	if !d.cfg.Sparse || d.decided || t >= d.cfg.End || d.checkpointAt(t) || t == d.woke {
		d.observe(t)
	}
	for d.cp < len(d.cfg.Checkpoints) && d.cfg.Checkpoints[d.cp] <= t {
		d.cp++
	}
	if t >= d.cfg.End {
		d.ended = true
	}
}
