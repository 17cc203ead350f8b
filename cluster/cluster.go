package cluster

import (
	"fmt"
	"slices"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/group"
)

// Config is what a Cluster starts from, besides its engine.
type Config struct {
	// Witnesses is the number of active witnesses: members after the engine's nodes.
	Witnesses int
	// GapThreshold and FailsafeThreshold are group.Config's: ticks; 0 means the default (3).
	GapThreshold, FailsafeThreshold int
}

// Cluster is one engine and its managers as a group. Its zero value is not usable: call New.
type Cluster struct {
	e    *fence.Engine
	g    *group.Group
	n    int // the engine's nodes
	net  group.Net
	emit func(act.Event)

	rule      []group.Rule // per manager: the rule of its last told conclusion; NoView while down
	copyOf    []int        // per node: the copy the engine was last told it holds
	coords    []int        // per node: the coordinator the engine was last told
	quiet     bool         // c.g.Quiet() after the last step: the group changes only when stepped
	multi     bool         // the managers hold more than one copy: two masters can be writable
	frozen    group.Set    // nodes whose manager is down and that were writable when it went down
	missed    group.Set    // members whose unanswered host ping fenced nothing: the engine was in maintenance
	writable  group.Set    // the nodes writable now
	inWindow  group.Set    // every node writable in the open split-brain window
	openedAt  time.Duration
	primaries []group.Set
	stated    bool // a GroupState has been told

	// The events told since the last Release, kept so that each stays valid until then.
	views     []ViewChanged
	viewsFrom int // where the last step's views start in views
	quorums   []QuorumChanged
	notes     []SplitBrain
	widened   []SplitBrainWidened
	setCoord  fence.SetCoordinators
	setCopy   fence.SetCopies
}

// New returns the cluster of engine e and cfg at time at: every host up on one network, every
// manager running that runs in the engine (the others stopped cleanly before: they are out of
// every view), one copy of the cluster's state. The engine must never have been told of a
// group, and its managers up must be a majority, or all of them (the single-view engine's
// coordinator is then the group's). New puts the engine in group mode at once
// (fence.SetCoordinators), which decides nothing then. emit is told every event, in order.
func New(e *fence.Engine, cfg Config, at time.Duration, emit func(act.Event)) *Cluster {
	n := e.Len()
	members := make([]group.Member, n+cfg.Witnesses)
	for i := range members {
		members[i].Witness = i >= n
	}
	c := &Cluster{
		e: e, n: n, emit: emit, net: make(group.Net, len(members)),
		g:    group.New(group.Config{Members: members, GapThreshold: cfg.GapThreshold, FailsafeThreshold: cfg.FailsafeThreshold}),
		rule: make([]group.Rule, len(members)), copyOf: make([]int, n), coords: make([]int, n),
	}
	stopped := false
	for i := range n {
		if !e.Node(i).ManagerUp {
			c.net[i].Stopped, stopped = true, true
			if e.Writable(i) {
				c.frozen = c.frozen.With(i)
			}
		}
	}
	if stopped {
		// The stops are past and told: the group catches up with them, deciding nothing new.
		c.g.Step(at, group.SetNet{Net: c.net})
		c.g.Ready()
	}
	for m := range members {
		c.rule[m] = c.g.Digest(m).Rule
	}
	c.setCoord.Coordinators = make([]int, n)
	c.setCopy.CopyOf = make([]int, n)
	for i := range n {
		c.coords[i] = c.coordinator(i)
	}
	copy(c.setCoord.Coordinators, c.coords)
	e.Step(at, c.setCoord)
	c.flush()
	c.state(at)
	c.writable = c.writableNow()
	c.quiet = c.g.Quiet()
	return c
}

// Members is the number of members: the engine's nodes and the witnesses.
func (c *Cluster) Members() int { return len(c.net) }

// Running reports whether member m's manager runs: its host is up and it was not stopped.
func (c *Cluster) Running(m int) bool { return c.g.Up(m) }

// Group is the group, to read between steps; do not step it.
func (c *Cluster) Group() *group.Group { return c.g }

// Quiet reports whether a group tick now would decide nothing the engine is told of
// (group.Group.Quiet): a driver may leave such ticks out until the network changes.
func (c *Cluster) Quiet() bool { return c.quiet }

// ManagerStop stops member m's manager cleanly at time at: it leaves every view at once.
func (c *Cluster) ManagerStop(at time.Duration, m int) { c.net[m].Stopped = true; c.setNet(at) }

// ManagerStart starts member m's manager at time at (if its host is up): it joins at once.
func (c *Cluster) ManagerStart(at time.Duration, m int) { c.net[m].Stopped = false; c.setNet(at) }

// HostDown takes member m's host down at time at: its database, its manager and its pings.
func (c *Cluster) HostDown(at time.Duration, m int) {
	c.emit(&HostChanged{At: at, Member: m, Down: true})
	c.net[m].Down = true
	c.setNet(at)
}

// HostUp brings member m's host back at time at: its manager starts (unless it was stopped).
func (c *Cluster) HostUp(at time.Duration, m int) {
	c.emit(&HostChanged{At: at, Member: m})
	c.net[m].Down = false
	c.setNet(at)
}

// Partition splits the network at time at: segments gives each member's segment (members on
// one segment reach each other, on two do not); nil heals it into one.
func (c *Cluster) Partition(at time.Duration, segments []int) { c.partition(at, segments, false) }

// PartitionManagers is Partition of the managers' network alone (act.Action.ManagersOnly): to
// the managers it is the same split; the event it tells says so, for the replication model,
// whose streams it does not cut.
func (c *Cluster) PartitionManagers(at time.Duration, segments []int) {
	c.partition(at, segments, true)
}

func (c *Cluster) partition(at time.Duration, segments []int, managersOnly bool) {
	if segments != nil && len(segments) != len(c.net) {
		panic(fmt.Sprintf("cluster: %d segments for %d members", len(segments), len(c.net)))
	}
	c.emit(&Partitioned{At: at, Segments: segments, ManagersOnly: managersOnly && segments != nil})
	for m := range c.net {
		c.net[m].Segment = 0
		if segments != nil {
			c.net[m].Segment = segments[m]
		}
	}
	c.setNet(at)
}

// Tick is the group's timekeeper tick at time at, made just before the engine's tick.
func (c *Cluster) Tick(at time.Duration) {
	c.g.Step(at, group.Tick{})
	c.apply(at)
}

// Engined is told that the engine decided something at time at outside the group (an alarm
// expired, a probe, the operator): while the managers hold more than one copy, a failover may
// open a split-brain window.
func (c *Cluster) Engined(at time.Duration) {
	if c.multi || c.frozen != 0 {
		c.checkWritable(at)
	}
}

// PolicyChanged is told that the engine's policy changed at time at. Leaving maintenance, the
// coordinators ping anew, at the next tick, the members whose unanswered pings fenced nothing
// while it lasted (group.Reping): a host that died during maintenance is fenced after it.
func (c *Cluster) PolicyChanged(at time.Duration) {
	if c.missed == 0 || c.e.Policy() == fence.Maintenance {
		return
	}
	c.g.Step(at, group.Reping{Members: c.missed})
	c.missed = 0
	c.quiet = c.g.Quiet()
}

// setNet tells the engine of the managers that stopped or started, then the group of the new
// network, and applies what it decided.
func (c *Cluster) setNet(at time.Duration) {
	for i := range c.n {
		up := !c.net[i].Down && !c.net[i].Stopped
		if c.e.Node(i).ManagerUp == up {
			continue
		}
		c.frozen = c.frozen.Without(i)
		if !up && c.e.Writable(i) {
			c.frozen = c.frozen.With(i) // nobody tells its database otherwise while its manager is down
		}
		c.e.SetManager(at, i, up)
	}
	c.flush()
	c.g.Step(at, group.SetNet{Net: c.net})
	c.apply(at)
}

// apply hands the engine what the group decided, in the order a tick decides it: views,
// copies, quorum and coordinators, host pings, failsafe.
func (c *Cluster) apply(at time.Duration) {
	ds := c.g.Ready()
	c.tellViews(at, ds)
	for _, d := range ds {
		switch d := d.(type) {
		case group.Forked:
			c.e.Step(at, fence.Fork{Copy: d.Copy, From: d.From})
		case group.Merged:
			sources := make([]int, len(d.Sources))
			for k, s := range d.Sources {
				sources[k] = s.Copy
			}
			c.e.Step(at, fence.MergeCopies{Copy: d.Copy, Sources: sources, Adopted: d.Adopted})
		}
	}
	c.flush()
	c.syncCopies(at)
	c.tellQuorums(at, ds)
	c.syncCoordinators(at)
	c.state(at) // before the host pings: their fences are the new primary views' coordinators'
	for _, d := range ds {
		switch d := d.(type) {
		case group.HostPing:
			if d.Answered {
				continue
			}
			c.emit(&HostPingFailed{At: at, Coordinator: d.Coordinator, Member: d.Member, Count: c.leftAfter(d.Member)})
			if d.Member < c.n && c.Running(d.Coordinator) {
				if c.e.Policy() == fence.Maintenance {
					c.missed = c.missed.With(d.Member)
				}
				c.e.Step(at, fence.HostFailed{Coordinator: d.Coordinator, Node: d.Member})
				c.flush()
				c.checkWritable(at)
			}
		case group.FailsafeShun:
			if d.Manager < c.n {
				c.e.Step(at, fence.FailsafeShun{Node: d.Manager, Ticks: d.Ticks})
				c.flush()
				c.checkWritable(at)
			}
		}
	}
	for m := range c.rule {
		if !c.Running(m) {
			c.rule[m] = group.NoView
		}
	}
	c.checkWritable(at)
	c.quiet = c.g.Quiet()
}

// leftAfter is the silent ticks after which member x left a view in this batch, 0 if it did
// not.
func (c *Cluster) leftAfter(x int) int {
	for _, v := range c.views[c.viewsFrom:] {
		if v.Members.Has(x) && v.Left {
			return v.Count
		}
	}
	return 0
}

// tellViews tells the members that left a view after silence or joined one when heard again,
// one event per member and kind for all the managers concerned.
func (c *Cluster) tellViews(at time.Duration, ds []group.Decision) {
	base := len(c.views) // the views told earlier in this batch stay as they were told
	c.viewsFrom = base
	add := func(member, manager int, left bool, count int) {
		for k := base; k < len(c.views); k++ {
			if v := &c.views[k]; v.Members == group.SetOf(member) && v.Left == left && v.Count == count {
				v.Managers = v.Managers.With(manager)
				return
			}
		}
		c.views = append(c.views, ViewChanged{At: at, Members: group.SetOf(member), Managers: group.SetOf(manager), Left: left, Count: count})
	}
	for _, d := range ds {
		switch d := d.(type) {
		case group.Left:
			if d.Why == group.WhySilent {
				add(d.Member, d.Manager, true, d.Count)
			}
		case group.Joined:
			if d.Why == group.WhyHeard {
				add(d.Member, d.Manager, false, 0)
			}
		}
	}
	// Members that left (or joined) the same managers' views at once are told together.
	out := c.views[base:base]
	for _, v := range c.views[base:] {
		k := slices.IndexFunc(out, func(o ViewChanged) bool {
			return o.Managers == v.Managers && o.Left == v.Left && o.Count == v.Count
		})
		if k < 0 {
			out = append(out, v)
			continue
		}
		out[k].Members |= v.Members
	}
	c.views = c.views[:base+len(out)]
	for k := base; k < len(c.views); k++ {
		c.emit(&c.views[k])
	}
}

// tellQuorums tells the quorum checks whose conclusion changed, one event per view and rule.
func (c *Cluster) tellQuorums(at time.Duration, ds []group.Decision) {
	base := len(c.quorums)
	for _, d := range ds {
		q, ok := d.(group.Quorum)
		if !ok {
			continue
		}
		m, old := q.Digest.Manager, c.rule[q.Digest.Manager]
		c.rule[m] = q.Digest.Rule
		if q.Digest.Rule == old || (old == group.NoView && q.Digest.Primary()) {
			continue
		}
		found := false
		for k := base; k < len(c.quorums); k++ {
			if x := &c.quorums[k]; x.Digest.View == q.Digest.View && x.Digest.Validated == q.Digest.Validated && x.Digest.Rule == q.Digest.Rule {
				x.Managers = x.Managers.With(m)
				found = true
			}
		}
		if !found {
			c.quorums = append(c.quorums, QuorumChanged{At: at, Managers: group.SetOf(m), Digest: q.Digest})
		}
	}
	for k := base; k < len(c.quorums); k++ {
		c.emit(&c.quorums[k])
	}
}

// syncCopies tells the engine which copy each node's manager holds, when that changed.
func (c *Cluster) syncCopies(at time.Duration) {
	changed := false
	first := c.g.Copy(0)
	c.multi = false
	for i := range c.n {
		k := c.g.Copy(i)
		changed = changed || k != c.copyOf[i]
		c.multi = c.multi || k != first
		c.copyOf[i] = k
	}
	if changed {
		copy(c.setCopy.CopyOf, c.copyOf)
		c.e.Step(at, c.setCopy)
	}
}

// coordinator is the coordinator of node i's view the engine is told: -1 when the view is not
// primary, i's manager is down, or the coordinator's manager is (its host went down since the
// last check: it fences nothing).
func (c *Cluster) coordinator(i int) int {
	k := c.g.Coordinator(i)
	if k < 0 || !c.Running(k) || !c.Running(i) {
		return -1
	}
	if k >= c.n {
		panic(fmt.Sprintf("cluster: witness %d coordinates a primary view", k))
	}
	return k
}

// syncCoordinators tells the engine the coordinator of each node's view, when one changed.
func (c *Cluster) syncCoordinators(at time.Duration) {
	changed := false
	for i := range c.n {
		k := c.coordinator(i)
		changed = changed || k != c.coords[i]
		c.coords[i] = k
	}
	if changed {
		copy(c.setCoord.Coordinators, c.coords)
		c.e.Step(at, c.setCoord)
		c.flush()
	}
}

// state tells a GroupState when the primary views changed.
func (c *Cluster) state(at time.Duration) {
	p := c.g.PrimaryViews()
	if slices.Equal(p, c.primaries) && c.stated {
		return
	}
	c.primaries, c.stated = p, true
	var sides []group.Set
	for _, s := range c.g.Sides() {
		sides = append(sides, s.View)
	}
	c.emit(&GroupState{At: at, Primary: p, Sides: sides, Majority: group.Majority(c.g.DB().Len())})
}

// writableNow is the set of nodes writable now: master and, in their own side's copy, neither
// failed nor shunned, their host up. A node whose manager is down (its host up) is writable
// while a manager of a primary view reaches it only if that manager's copy has it writable too
// (it fences the node there, and tells its database); whom none reaches stays as it was when
// last one did, or when its manager went down: nobody can tell its database otherwise. A host
// that goes down ends that: back up with its manager stopped, the node is not writable until a
// primary view's manager reaches it. So it keeps c.frozen up to date.
func (c *Cluster) writableNow() group.Set {
	var w group.Set
	for i := range c.n {
		switch {
		case c.net[i].Down:
			c.frozen = c.frozen.Without(i) // its database went down with its host
		case c.net[i].Stopped:
			k := c.reacher(i)
			switch {
			case k < 0:
				if c.frozen.Has(i) {
					w = w.With(i)
				}
			case c.e.Writable(i) && c.e.WritableIn(c.g.Copy(k), i):
				w, c.frozen = w.With(i), c.frozen.With(i)
			default:
				c.frozen = c.frozen.Without(i) // fenced while a primary view reached it
			}
		case c.e.Writable(i):
			w = w.With(i)
		}
	}
	return w
}

// reacher is the first manager of a primary view that reaches node i's host, -1 for none.
func (c *Cluster) reacher(i int) int {
	for m := range c.g.Running().All() {
		if c.g.Primary(m) && c.net[m].Segment == c.net[i].Segment {
			return m
		}
	}
	return -1
}

// checkWritable tells a split-brain window that opens or closes.
func (c *Cluster) checkWritable(at time.Duration) {
	w := c.writableNow()
	if w == c.writable {
		return
	}
	was := c.writable
	c.writable = w
	switch open, wasOpen := w.Len() >= 2, was.Len() >= 2; {
	case open && !wasOpen:
		c.openedAt, c.inWindow = at, w
		c.splitBrain(SplitBrain{At: at, Open: true, Writable: w})
	case open && w&^c.inWindow != 0:
		c.inWindow |= w
		c.widened = append(c.widened, SplitBrainWidened{At: at, Writable: c.inWindow, From: c.openedAt})
		c.emit(&c.widened[len(c.widened)-1])
	case !open && wasOpen:
		c.splitBrain(SplitBrain{At: at, Writable: c.inWindow, From: c.openedAt})
	}
}

// Writable is the set of nodes writable as last checked for split brain: after every step of
// the group, and after the engine's decisions while the managers hold more than one copy.
func (c *Cluster) Writable() group.Set { return c.writable }

// WritableSet is WritableNow's set, worked out without remembering anything for later: what a
// core tells of how the managers stood at a decision.
func (c *Cluster) WritableSet() group.Set {
	frozen := c.frozen
	w := c.writableNow()
	c.frozen = frozen
	return w
}

// WritableNow works out the set of nodes writable now, whatever was last checked: master and,
// in their own side's copy, neither failed nor shunned, their host up (or, their manager down
// and out of every primary view's reach, writable when it went down).
func (c *Cluster) WritableNow() group.Set { return c.writableNow() }

// Segment returns the network segment member m is on: members on one segment reach each other
// (and the application beside them), on two do not. 0 for every member of one network.
func (c *Cluster) Segment(m int) int { return c.net[m].Segment }

// splitBrain tells a split-brain window's note.
func (c *Cluster) splitBrain(n SplitBrain) {
	c.notes = append(c.notes, n)
	c.emit(&c.notes[len(c.notes)-1])
}

// flush tells emit of the engine's decisions, taking them (fence.Engine.Take): they stay valid
// until Release.
func (c *Cluster) flush() {
	for _, ev := range c.e.Take() {
		c.emit(ev)
	}
}

// Release ends a batch of events: every event told since the last Release, the engine's
// decisions among them (fence.Engine.Release), may be reused by the next step. Until it, each
// stays as it was told, so a core can hand the batch out at once (core.Core.Ready).
func (c *Cluster) Release() {
	c.e.Release()
	c.views, c.quorums, c.viewsFrom = c.views[:0], c.quorums[:0], 0
	c.notes, c.widened = c.notes[:0], c.widened[:0]
}
