package drive

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/fence"
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
		return fence.NextTick(d.ticked)
	}
	n, ok := d.e.TicksToExpiry()
	if !ok {
		return Never
	}
	return fence.NthTick(d.ticked, n)
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
func (d *Driver) apply(t time.Duration, a *Action) {
	switch a.Kind {
	case SetFault:
		if d.foresee {
			d.nodes[a.Node].foreseen = d.cfg.Foresee(a.Fault)
		}
		d.faults = append(d.faults, FaultChange{Node: a.Node, Fault: a.Fault})
		d.noteFault(t, a.Node, a.Fault)
	case ManagerDown:
		p := &d.nodes[a.Node]
		p.set(down, 0)
		p.seq++ // the probe under way is lost
		d.e.SetManager(t, a.Node, false)
	case ManagerUp:
		if p := &d.nodes[a.Node]; p.phase == down {
			p.set(idle, t)
		}
		d.e.SetManager(t, a.Node, true)
	case SetPolicy:
		d.e.SetPolicy(t, a.Policy)
	case Recover:
		d.e.Recover(t, a.Node)
	case End:
	default:
		panic(fmt.Sprintf("drive: action of %v", a.Kind))
	}
}

// catchUp tells the engine of the ticks before t it has not been told of: none of them decides
// anything, but they count, and the events at t say how far each alarm counted.
func (d *Driver) catchUp(t time.Duration) {
	if last := tickBefore(t); last > d.ticked {
		d.e.Ticks(last, int64((last-d.ticked)/statemap.TickInterval))
		d.ticked = last
	}
}

// tickAt makes the tick at t, a tick instant, with the ticks skipped since the last one made.
func (d *Driver) tickAt(t time.Duration) {
	d.e.Ticks(t, int64((t-d.ticked)/statemap.TickInterval))
	d.ticked = t
}

// flush tells the observers of the engine's events; it reports whether there were any.
func (d *Driver) flush() bool {
	evs := d.e.Ready()
	for _, ev := range evs {
		for _, o := range d.obs {
			o.Event(ev)
		}
	}
	return len(evs) > 0
}

func (d *Driver) observe(t time.Duration) {
	for _, o := range d.obs {
		o.Instant(t, d.e)
	}
}
