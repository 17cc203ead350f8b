package drive

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/statemap"
)

// plan works out the next instant.
func (d *Driver) plan() {
	d.tick = d.nextTick()
	t := min(d.tick, d.cfg.End)
	t = min(t, d.acted)
	if d.cp < len(d.cfg.Checkpoints) {
		t = min(t, d.cfg.Checkpoints[d.cp])
	}
	d.woke = max(d.wakeAt(), d.last)
	t = min(t, d.woke)
	starts, counts := Never, Never
	for i := range d.nodes {
		p := &d.nodes[i]
		starts, counts = min(starts, p.startAt), min(counts, p.countAt)
	}
	due := min(starts, counts)
	d.due, d.counts = due, counts
	d.next = max(min(t, due), d.last)
	d.fresh = true
}

// nextTick returns the next tick that must be made: every tick with EveryTick, else the next
// at which an alarm can expire.
func (d *Driver) nextTick() time.Duration {
	if d.cfg.EveryTick {
		return statemap.NextTick(d.ticked)
	}
	t := Never
	if n, ok := d.ticksToExpiry(); ok {
		t = statemap.NthTick(d.ticked, n)
	}
	if !d.quiet {
		// The group ticks at every tick from the last instant on while it is not quiet.
		t = min(t, statemap.NextTick(max(d.last, d.ticked)))
	}
	return t
}

// mutated notes a call into the machine that may decide and change TicksToExpiry's answer.
func (d *Driver) mutated() { d.called, d.expOK = true, false }

// ticksToExpiry is the machine's TicksToExpiry, asked again of a passive machine only after a
// call that may change it.
func (d *Driver) ticksToExpiry() (int64, bool) {
	if !d.expOK {
		d.askExpiry()
	}
	return d.expiry, d.expHas
}

// askExpiry asks the machine's TicksToExpiry, and keeps the answer of a passive one.
func (d *Driver) askExpiry() {
	d.expiry, d.expHas = d.m.TicksToExpiry()
	d.expOK = d.passive
}

func (d *Driver) actionAt(t time.Duration) bool {
	return d.acted <= t
}

// advance moves on to the script's next action.
func (d *Driver) advance() {
	d.act++
	d.acted = Never
	if d.act < len(d.cfg.Script) {
		d.acted = d.cfg.Script[d.act].At
	}
}

func (d *Driver) checkpointAt(t time.Duration) bool {
	return d.cp < len(d.cfg.Checkpoints) && d.cfg.Checkpoints[d.cp] <= t
}

// apply applies action a at instant t.
func (d *Driver) apply(t time.Duration, a *act.Action) {
	switch a.Kind {
	case act.SetFault:
		if d.foresee {
			d.nodes[a.Node].foreseen = d.cfg.Foresee(a.Fault)
		}
		if d.handout {
			d.faults = append(d.faults, FaultChange{Node: a.Node, Fault: a.Fault})
		}
		d.noteFault(t, a.Node, a.Fault)
	case act.ManagerDown, act.ManagerUp, act.HostDown, act.HostUp, act.Partition:
		d.m.Apply(t, a)
		d.mutated()
		d.quiet = d.m.Quiet()
		for i := range d.nodes {
			d.follow(t, i, d.m.Running(i))
		}
	case act.SetPolicy, act.Recover:
		d.m.Apply(t, a)
		d.mutated()
		d.quiet = d.m.Quiet()
	case act.Replicate:
		if d.handout {
			d.repls = append(d.repls, *a)
		}
	case act.End:
	default:
		panic(fmt.Sprintf("drive: action of %v", a.Kind))
	}
}

// follow makes node i's probe schedule follow its manager: none while it is down (the probe
// under way is lost), one at once when it comes up.
func (d *Driver) follow(t time.Duration, i int, up bool) {
	p := &d.nodes[i]
	switch {
	case !up && p.phase != down:
		p.set(down, 0)
		p.seq++ // the probe under way is lost
	case up && p.phase == down:
		p.set(idle, t)
		d.touch(i, p)
		d.rose = true
	}
}

// catchUp tells the engine of the ticks before t it has not been told of: none of them decides
// anything, but they count, and the events at t say how far each alarm counted.
func (d *Driver) catchUp(t time.Duration) {
	if last := tickBefore(t); last > d.ticked {
		d.m.CatchUp(last, int64((last-d.ticked)/statemap.TickInterval))
		d.mutated()
		d.ticked = last
	}
}

// tickAt makes the tick at t, a tick instant, with the ticks skipped since the last one made.
func (d *Driver) tickAt(t time.Duration) {
	d.m.Tick(t, int64((t-d.ticked)/statemap.TickInterval))
	d.mutated()
	d.quiet = d.m.Quiet()
	d.ticked = t
}

// flush tells the observers of the machine's events; it reports whether there were any.
func (d *Driver) flush() bool {
	if d.passive && !d.called {
		return false // a passive machine decides only when called: nothing since the last Ready
	}
	d.called = false
	evs := d.m.Ready()
	if len(evs) == 0 {
		return false // an empty batch needs no Advance
	}
	for _, ev := range evs {
		for _, o := range d.obs {
			o.Event(ev)
		}
	}
	d.m.Advance()
	d.decided = true
	return true
}

func (d *Driver) observe(t time.Duration) {
	for _, o := range d.inst {
		o.Instant(t, d.view)
	}
}
