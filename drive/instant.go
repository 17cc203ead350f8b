package drive

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/group"
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
	t := Never
	if n, ok := d.e.TicksToExpiry(); ok {
		t = fence.NthTick(d.ticked, n)
	}
	if d.c != nil && !d.c.Quiet() {
		// The group ticks at every tick from the last instant on while it is not quiet.
		t = min(t, fence.NextTick(max(d.last, d.ticked)))
	}
	return t
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
		d.faults = append(d.faults, FaultChange{Node: a.Node, Fault: a.Fault})
		d.noteFault(t, a.Node, a.Fault)
	case act.ManagerDown, act.ManagerUp, act.HostDown, act.HostUp, act.Partition:
		if d.cfg.Group == nil {
			d.managerAlone(t, a)
			return
		}
		if d.c == nil && d.alone(a) {
			d.managerAlone(t, a)
			d.flush()
			d.noteGroup(t)
			return
		}
		if d.c == nil {
			d.c = cluster.New(d.e, *d.cfg.Group, t, d.tell)
		}
		switch a.Kind {
		case act.ManagerDown:
			d.c.ManagerStop(t, a.Node)
		case act.ManagerUp:
			d.c.ManagerStart(t, a.Node)
		case act.HostDown:
			d.c.HostDown(t, a.Node)
		case act.HostUp:
			d.c.HostUp(t, a.Node)
		case act.Partition:
			d.c.Partition(t, a.Segments)
		}
		for i := range d.nodes {
			d.follow(t, i, d.c.Running(i))
		}
	case act.SetPolicy:
		d.e.SetPolicy(t, a.Policy)
		if d.c != nil {
			d.c.PolicyChanged(t)
		}
	case act.Recover:
		d.e.Recover(t, a.Node)
	case act.Replicate:
		d.repls = append(d.repls, *a)
	case act.End:
	default:
		panic(fmt.Sprintf("drive: action of %v", a.Kind))
	}
}

// alone reports whether action a, with no group made yet, can be told to the engine alone: a
// manager that starts, or one that stops leaving a majority of the managers up, in a cluster
// with no witness. Until the group is made every host is up on one network, and the group
// would only confirm the engine's own coordinator, the first manager up: so a run in which
// managers only stop and start, a majority always up, never makes one.
func (d *Driver) alone(a *act.Action) bool {
	if d.cfg.Group.Witnesses > 0 {
		return false
	}
	switch a.Kind {
	case act.ManagerUp:
		return true
	case act.ManagerDown:
		up := 0
		for i := range d.nodes {
			if i != a.Node && d.e.Node(i).ManagerUp {
				up++
			}
		}
		return up >= group.Majority(len(d.nodes))
	}
	return false
}

// noteGroup tells the observers how the group stands while none is made: one primary view of
// the managers up (cluster.GroupState, as a made group tells it).
func (d *Driver) noteGroup(t time.Duration) {
	var up group.Set
	for i := range d.nodes {
		if d.e.Node(i).ManagerUp {
			up = up.With(i)
		}
	}
	d.views = append(d.views[:0], up)
	d.state = cluster.GroupState{At: t, Primary: d.views, Sides: d.views, Majority: group.Majority(len(d.nodes))}
	d.tell(&d.state)
}

// managerAlone is a manager action without a group: the engine alone is told.
func (d *Driver) managerAlone(t time.Duration, a *act.Action) {
	switch a.Kind {
	case act.ManagerDown:
		d.follow(t, a.Node, false)
		d.e.SetManager(t, a.Node, false)
	case act.ManagerUp:
		d.follow(t, a.Node, true)
		d.e.SetManager(t, a.Node, true)
	default:
		panic(fmt.Sprintf("drive: a %v action needs Config.Group", a.Kind))
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

// tickAt makes the tick at t, a tick instant, with the ticks skipped since the last one made:
// the group's first, while it is not quiet, then the engine's.
func (d *Driver) tickAt(t time.Duration) {
	if d.c != nil && !d.c.Quiet() {
		d.c.Tick(t)
	}
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
	if d.c != nil && len(evs) > 0 {
		d.c.Engined(d.last)
	}
	return len(evs) > 0
}

// tell tells the observers of one event of the cluster's.
func (d *Driver) tell(ev fence.Event) {
	d.noted = true
	for _, o := range d.obs {
		o.Event(ev)
	}
}

func (d *Driver) observe(t time.Duration) {
	for _, o := range d.inst {
		o.Instant(t, d.e)
	}
}
