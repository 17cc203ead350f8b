package drive

import (
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
)

// NoOutcome is the outcome of a probe that ended without one (the live checker's probe cut
// short by its context): its schedule goes on and the engine is not told. It is no condition
// of the statemap's; statemap.Undefined, a condition like any other (a probe forced to
// "undefined"), is told to the engine and mapped by the statemap.
const NoOutcome = statemap.NumConditions

// phase is where a node's probing stands.
type phase uint8

const (
	idle    phase = iota // no probe under way: the next starts at next
	running              // a probe is under way; its outcome is not known yet
	done                 // its outcome is known: it counts at finish
	down                 // the manager is down: no probes
)

// prober is one node's probe schedule. Change its phase with set, which keeps startAt and
// countAt.
type prober struct {
	startAt  time.Duration // idle: when the next probe starts; Never in any other phase
	countAt  time.Duration // done: when the outcome counts; Never in any other phase
	seq      uint64        // the number of the probe under way: bumped by each start and when the manager stops, so a late outcome is known for stale
	started  time.Duration // the last probe's start
	next     time.Duration // done: when the next probe starts once the outcome has counted
	foreseen act.Outcome   // what a probe started now would end in (Config.Foresee)
	phase    phase
	cond     statemap.Condition // done: its outcome
	run      bool               // with aheadAt == startAt: Driver.ahead found that start is not skipped (a mark left from an earlier start at the same time only runs a probe skip might have skipped: the same)
	boundOK  bool               // bound is the next action that bounds, not one before it
	bound    int                // Config.Sparse: the script's next action that bounds a skip of the node's probes, or one before it
	aheadAt  time.Duration      // the last start Driver.ahead looked at; -1 for none
	boundAt  time.Duration      // with boundOK, the time of the action bound is, Never for none
	moved    bool               // the node is on Driver.moved
}

// set puts the probe schedule in phase ph, with the time that phase waits for: the next start
// when idle, the outcome's count when done; ignored otherwise.
func (p *prober) set(ph phase, at time.Duration) {
	p.phase = ph
	p.startAt, p.countAt = Never, Never
	switch ph {
	case idle:
		p.startAt = at
	case done:
		p.countAt = at
	}
}

// Start is a probe the adapter must start: node Node's, at instant At. Hand it back to Report
// with the probe's outcome. The zero value is no probe.
type Start struct {
	Node int
	At   time.Duration
	seq  uint64
}

// FaultChange is a fault the adapter must make real before it starts the instant's probes: node
// Node's link gets Fault (the live runtime sets its proxy; the simulator changes what the
// node's probes will end in).
type FaultChange struct {
	Node  int
	Fault fault.Fault
}

// count gives the engine, in node order, the outcomes due by t of the probes that started at t
// (atOnce) or before it. Those it leaves to a later pass of the instant, it counts in d.once.
func (d *Driver) count(t time.Duration, atOnce bool) {
	nodes := d.nodes // held here: the calls below cannot change it
	for i := range nodes {
		p := &nodes[i]
		if p.countAt > t {
			continue
		}
		if (p.started == t) != atOnce {
			if !atOnce {
				d.once++ // an outcome of a probe started at an earlier instant at this same time (live)
			}
			continue
		}
		p.set(idle, p.next)
		d.touch(i, p)
		d.counted(t, i, p.cond)
	}
}

// counted gives node i's probe outcome c to the engine at instant t.
func (d *Driver) counted(t time.Duration, i int, c statemap.Condition) {
	if d.cfg.Counted != nil {
		d.cfg.Counted(t, i, c)
	}
	if c != NoOutcome {
		d.m.Probe(t, i, c)
		d.mutated()
	}
}

// start hands out the probes due at t, skipping those foreseen to change nothing.
func (d *Driver) start(t time.Duration) {
	nodes := d.nodes // held here: the calls below cannot change it
	for i := range nodes {
		p := &nodes[i]
		if p.startAt > t {
			continue
		}
		if d.foresee {
			if !(p.run && p.aheadAt == p.startAt) && d.skip(t, i, p) {
				continue
			}
			// The driver runs the probe itself, in virtual time: it ends as foreseen.
			p.started = t
			p.seq++
			if o := p.foreseen; o.Took > 0 {
				d.finished(p, t+o.Took, o.Condition)
			} else {
				p.set(idle, t+d.cfg.Interval) // fence.NextProbeStart(t, t, Interval)
				d.touch(i, p)
				d.counted(t, i, o.Condition)
			}
			continue
		}
		p.started = t
		p.set(running, 0)
		p.seq++
		d.starts = append(d.starts, Start{Node: i, At: t, seq: p.seq})
	}
}

// skip skips the probes of node i, starting with the one starting at t, that would change
// nothing (fence.Engine.Steady) and finish before the next action (with Config.Sparse, the next
// that is no fault change on another node), and, while the group is not quiet, by its next
// tick: only an action, a tick of the group or a tick of the engine can change the engine's
// view of the node, and Steady bounds the engine's ticks. (A fault changed on another node
// changes only what that node's probes end in; what those probes decide touches no node's
// view but theirs and a failover's candidate's role, which Steady does not read; and the group,
// while quiet, is stepped by actions alone.) The schedule jumps to the first probe it does not
// skip, exactly where it would have started; the result is the same as running the skipped
// probes, without their instants.
func (d *Driver) skip(t time.Duration, i int, p *prober) bool {
	o := p.foreseen
	limit := d.cfg.End // a probe finishing after the end does not matter
	at := d.acted
	if d.cfg.Sparse {
		at = d.boundAt(i, p)
	}
	if at != Never {
		limit = at - 1 // a probe finishing at the action's instant counts after it
	}
	if !d.quiet {
		// The group's next tick may change the node's copy of the cluster's state (a merge, a
		// host failure, a shun); a probe finishing at that tick's instant counts before it.
		// Probes start before the tick of their instant: at a tick instant, that tick is next.
		limit = min(limit, statemap.NextTick(t-1))
	}
	if limit < t+o.Took {
		return false // the first probe ends past the limit: nothing to skip, whatever Steady says (a third of the calls in check)
	}
	steady, until := d.m.Steady(i, o.Condition)
	if !steady {
		return false
	}
	next, ok := resumeAt(t, o.Took, d.cfg.Interval, min(limit, until))
	if ok {
		p.set(idle, next)
		d.touch(i, p)
	}
	return ok
}

// ahead, under Config.Sparse at instant t, does now what the start of the next probe of each
// node would do, where no action changes the node's view by then: it skips the probes skip
// would at that start, or starts one that ends later, for an instant at which nothing is
// decided the observers are not told of; a probe that ends at once it marks to run at its
// start without asking skip again. What Steady says of the node now it says at that start,
// with the group quiet: the group is stepped by actions alone, and the other nodes' probes and
// the ticks change nothing Steady reads of the node but by an expiry of the node's alarms,
// which can only make a probe that would change something one that would not (the node
// fenced); and running a probe that would change nothing is skipping it, probe by probe. The
// same probes are skipped and run, to the same effect, without the instants at their start.
// Each start is looked at once: only the nodes on d.moved, whose schedule changed since they
// were last looked at (touch), are.
func (d *Driver) ahead(t time.Duration) {
	moved := d.moved
	d.moved = d.spare[:0] // what this look touches, the next looks at
	nodes := d.nodes
	for _, i := range moved {
		p := &nodes[i]
		p.moved = false
		for range 2 { // a skip's resumption is looked at again at once (a skip touches the node: if this look stops there, the next goes on)
			at := p.startAt
			if p.phase != idle || p.aheadAt == at || at <= t || at == Never {
				break
			}
			if d.skip(at, int(i), p) {
				continue
			}
			p.aheadAt, p.run = at, false
			if d.boundAt(int(i), p) <= at {
				break // an action may change the node's view first
			}
			if p.foreseen.Took == 0 {
				p.run = true // it counts at its start, which is an instant at which it decides
				break
			}
			// The probe starting at at, which skip would not skip then, ends later: its start
			// decides nothing.
			p.started = at
			p.seq++
			d.finished(p, at+p.foreseen.Took, p.foreseen.Condition)
			break
		}
	}
	d.spare = moved[:0]
}

// touch puts node i, whose schedule p changed, on d.moved for ahead to look at, once (only
// when ahead runs: Config.Sparse with Config.Foresee).
func (d *Driver) touch(i int, p *prober) {
	if d.aheads && !p.moved {
		p.moved = true
		d.moved = append(d.moved, int32(i))
	}
}

// boundAt returns the time of the script's next action that bounds a skip of node i's probes:
// the next action, or with Config.Sparse the next that is no fault change on another node;
// Never for none.
func (d *Driver) boundAt(i int, p *prober) time.Duration {
	if !d.cfg.Sparse {
		return d.acted
	}
	if p.bound >= d.act && p.boundOK {
		return p.boundAt // not passed yet: still the next
	}
	k := max(p.bound, d.act) // the actions from p.bound to the next bound are no bound of i's
	for k < len(d.faulted) && d.faulted[k] >= 0 && int(d.faulted[k]) != i {
		k++
	}
	p.bound, p.boundAt, p.boundOK = k, Never, true
	if k < len(d.faulted) {
		p.boundAt = d.cfg.Script[k].At
	}
	return p.boundAt
}

// finished records that p's probe, started at p.started, ends at time at in condition c: the
// outcome counts at instant at, or at the next instant if at has been run, and the next probe
// starts at fence.NextProbeStart.
func (d *Driver) finished(p *prober, at time.Duration, c statemap.Condition) {
	p.set(done, at)
	p.cond = c
	p.next = fence.NextProbeStart(p.started, at, d.cfg.Interval)
	d.fresh = false
	if d.open && at <= d.last {
		if p.started == d.last {
			d.once++
		} else {
			d.late++
		}
	}
}
