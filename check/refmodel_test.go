package check

import (
	"math/bits"
	"slices"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/faultmodel"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// refEngine is a small, deliberately plain model of the decision rules in docs/engine.md,
// written apart from package fence to test it differentially: nothing is cached, every alarm
// is counted one tick at a time, and a due alarm expires as soon as its node has a
// coordinator. It must emit exactly the events fence.Engine emits.
//
// It takes the engine's inputs, the group's included (setCoordinators, fork, mergeCopies,
// setCopies, hostFailed, failsafeShun): until the first setCoordinators the coordinator is
// the first node whose manager is up and there is one copy of the cluster's state; from then
// on the caller says who coordinates for whom (refGroup, in a replay) and which copy each
// manager holds, and a coordinator decides in its own copy.
type refEngine struct {
	m      *statemap.Map
	policy fence.Policy
	now    time.Duration
	nodes  []refNode
	copies [][]fence.Member // the copies of the cluster's state, by number
	copyOf []int            // per node: the copy its manager holds
	coords []int            // per node: its view's coordinator, -1 for none; nil until setCoordinators
	coord  int              // the cluster's coordinator: the first manager up, or the least of coords
	out    []act.Event      // decisions, and in refReplay the fault notes
}

type refNode struct {
	up, probed, lastOK bool
	state              statemap.State
	alarms             []refAlarm // in the order raised
}

type refAlarm struct {
	cond      statemap.Condition
	count     int
	threshold int
	action    statemap.Action
	waiting   bool
}

func newRefEngine(cfg fence.Config) *refEngine {
	r := &refEngine{m: cfg.Map, policy: cfg.Policy, copies: [][]fence.Member{nil}}
	for _, n := range cfg.Nodes {
		r.nodes = append(r.nodes, refNode{up: true})
		r.copies[0] = append(r.copies[0], fence.Member{Role: n.Role})
		r.copyOf = append(r.copyOf, 0)
	}
	r.coord = r.firstUp()
	return r
}

// emit records a decision; the caller stamps it with r.now.
func (r *refEngine) emit(ev fence.Decision) {
	r.out = append(r.out, ev)
}

// take returns and forgets the events emitted so far.
func (r *refEngine) take() []act.Event {
	out := r.out
	r.out = nil
	return out
}

// member is node i's entry in the copy its own manager holds.
func (r *refEngine) member(i int) *fence.Member { return &r.copies[r.copyOf[i]][i] }

func (r *refEngine) firstUp() int {
	for i, n := range r.nodes {
		if n.up {
			return i
		}
	}
	return -1
}

// coordinatorOf is who fences node i's alarms: the cluster's coordinator until the group says
// otherwise; then the coordinator of i's view, or the cluster's when i's manager is down.
func (r *refEngine) coordinatorOf(i int) int {
	if r.coords == nil || !r.nodes[i].up {
		return r.coord
	}
	return r.coords[i]
}

// writable: master and, in its own side's copy, neither failed nor shunned.
func (r *refEngine) writable(i int) bool {
	m := r.member(i)
	return m.Role == fence.Master && !m.Failed && !m.Shunned
}

func (r *refEngine) probe(at time.Duration, i int, c statemap.Condition) {
	r.now = at
	n := &r.nodes[i]
	if !n.up {
		return // no manager, no probe
	}
	ok := c == statemap.OK
	rule := r.m.Rule(c)
	to := rule.State
	if ok {
		to = statemap.Online
	}
	if !n.probed || n.state != to {
		r.emit(&fence.StateChanged{At: r.now, Node: i, Condition: c, From: n.state, To: to})
		n.state = to
	}
	n.probed, n.lastOK = true, ok
	me := r.member(i)
	if ok {
		// Self-heal: every alarm of the node goes.
		for _, a := range n.alarms {
			r.emit(&fence.AlarmHealed{At: r.now, Node: i, Condition: a.cond, Count: a.count, Threshold: a.threshold})
		}
		n.alarms = nil
		if me.Failed && !me.Shunned && r.policy == fence.Automatic {
			me.Failed = false
			r.emit(&fence.NodeRecovered{At: r.now, Node: i, Role: me.Role, By: fence.RecoveredByProbe})
		}
		return
	}
	if r.policy == fence.Maintenance || me.Failed {
		return
	}
	for _, a := range n.alarms {
		if a.cond == c {
			return // one alarm per condition
		}
	}
	n.alarms = append(n.alarms, refAlarm{cond: c, threshold: rule.Threshold, action: rule.Action})
	r.emit(&fence.AlarmRaised{At: r.now, Node: i, Condition: c, Threshold: rule.Threshold, Action: rule.Action})
	r.expire(i)
}

func (r *refEngine) tick(at time.Duration) {
	r.now = at
	if r.policy == fence.Maintenance {
		return
	}
	for i := range r.nodes {
		for j := range r.nodes[i].alarms {
			r.nodes[i].alarms[j].count++
		}
		r.expire(i)
	}
}

// ticksToExpiry is how many ticks from now the first alarm expires, counting every alarm that
// is not waiting and has a threshold; none in maintenance, where nothing ticks.
func (r *refEngine) ticksToExpiry() (int64, bool) {
	best := -1
	if r.policy == fence.Maintenance {
		return 0, false
	}
	for _, n := range r.nodes {
		for _, a := range n.alarms {
			if a.waiting || a.threshold < 0 {
				continue
			}
			if left := max(a.threshold-a.count, 1); best < 0 || left < best {
				best = left
			}
		}
	}
	if best < 0 {
		return 0, false
	}
	return int64(best), true
}

// expire acts on node i's alarms that reached their threshold, oldest first; with no
// coordinator for the node they wait.
func (r *refEngine) expire(i int) {
	n := &r.nodes[i]
	var keep []refAlarm
	due := func(a refAlarm) bool { return a.threshold >= 0 && a.count >= a.threshold }
	for len(n.alarms) > 0 {
		a := n.alarms[0]
		n.alarms = n.alarms[1:]
		if !due(a) {
			keep = append(keep, a)
			continue
		}
		c := r.coordinatorOf(i)
		if c < 0 {
			if !a.waiting {
				a.waiting = true
				r.emit(&fence.ExpiryWaiting{At: r.now, Node: i, Condition: a.cond, Count: a.count, Threshold: a.threshold, Action: a.action})
			}
			keep = append(keep, a)
			continue
		}
		r.emit(&fence.AlarmExpired{At: r.now, Node: i, Condition: a.cond, Count: a.count, Threshold: a.threshold, Action: a.action, Coordinator: c})
		switch a.action {
		case statemap.None:
			r.emit(&fence.Logged{At: r.now, Node: i, Condition: a.cond})
		case statemap.Alert:
			r.emit(&fence.AlertNotImplemented{At: r.now, Node: i, Condition: a.cond})
		default:
			r.fail(i, a.cond, c, false)
		}
	}
	n.alarms = keep
}

// expireWaiting expires the due alarms of every node that has a coordinator now.
func (r *refEngine) expireWaiting() {
	if r.policy == fence.Maintenance {
		return
	}
	for j := range r.nodes {
		if r.coordinatorOf(j) >= 0 {
			r.expire(j)
		}
	}
}

// fail takes node i out of service in coordinator c's copy: a replica is failed, a master
// failed over to the first replica in service of c's view whose manager is up and whose last
// probe was ok (or failed, under manual policy).
func (r *refEngine) fail(i int, cond statemap.Condition, c int, host bool) {
	cl := r.copies[r.copyOf[c]]
	m := &cl[i]
	switch {
	case m.Failed:
		r.emit(&fence.AlreadyFailed{At: r.now, Node: i, Condition: cond, Host: host})
		return
	case m.Role == fence.Replica:
		m.Failed = true
		r.emit(&fence.NodeFailed{At: r.now, Node: i, Condition: cond, Role: fence.Replica, Host: host})
		return
	case r.policy == fence.Manual:
		// The master stays failed until the operator's recover, whatever the policy becomes.
		m.Failed, m.Shunned = true, true
		r.emit(&fence.NodeFailed{At: r.now, Node: i, Condition: cond, Role: fence.Master, Host: host})
		return
	}
	m.Failed, m.Shunned, m.Role = true, true, fence.Replica
	inView := func(j int) bool { return r.coords == nil || r.coords[j] == c }
	var why []fence.Ineligible
	for j := range r.nodes {
		x, n := &cl[j], &r.nodes[j]
		if j == i {
			continue
		}
		switch {
		case x.Role == fence.Replica && !x.Failed && n.up && n.lastOK && inView(j):
			x.Role = fence.Master
			r.emit(&fence.Failover{At: r.now, Node: i, Condition: cond, To: j, Host: host})
			return
		case x.Failed:
			why = append(why, fence.Ineligible{Node: j, Why: fence.IsFailed})
		case !n.up:
			why = append(why, fence.Ineligible{Node: j, Why: fence.ManagerIsDown})
		case !inView(j):
			why = append(why, fence.Ineligible{Node: j, Why: fence.NotInView})
		case !n.probed:
			why = append(why, fence.Ineligible{Node: j, Why: fence.NeverProbed})
		default:
			why = append(why, fence.Ineligible{Node: j, Why: fence.LastProbeNotOK})
		}
	}
	r.emit(&fence.NoCandidate{At: r.now, Node: i, Condition: cond, Ineligible: why, Host: host})
}

func (r *refEngine) setPolicy(at time.Duration, p fence.Policy) {
	r.now = at
	if p == r.policy {
		return
	}
	r.policy = p
	r.emit(&fence.PolicyChanged{At: r.now, Policy: p})
	if p == fence.Maintenance {
		for i := range r.nodes {
			n := &r.nodes[i]
			for _, a := range n.alarms {
				r.emit(&fence.AlarmCleared{At: r.now, Node: i, Condition: a.cond, Count: a.count, Threshold: a.threshold, By: fence.ClearedByMaintenance})
			}
			n.alarms = nil
		}
	}
}

func (r *refEngine) setManager(at time.Duration, i int, up bool) {
	r.now = at
	if r.nodes[i].up == up {
		return
	}
	r.nodes[i].up = up
	if up {
		r.emit(&fence.ManagerUp{At: r.now, Node: i})
	} else {
		r.emit(&fence.ManagerDown{At: r.now, Node: i})
	}
	if r.coords != nil {
		// A node whose manager went down is fenced by the cluster's coordinator.
		if c := r.coord; !up && c >= 0 && r.nodes[c].up && r.policy != fence.Maintenance {
			r.expire(i)
		}
		return
	}
	if c := r.firstUp(); c != r.coord {
		r.coord = c
		r.emit(&fence.CoordinatorChanged{At: r.now, Coordinator: c})
		r.expireWaiting()
	}
}

func (r *refEngine) recover(at time.Duration, i int) {
	r.now = at
	if r.coords != nil && r.coordinatorOf(i) < 0 {
		r.emit(&fence.RecoverRefused{At: r.now, Node: i})
		return
	}
	cl := r.copies[r.copyOf[i]]
	if r.coords != nil && !r.nodes[i].up {
		if cl[i].Failsafe {
			// A FAILSAFE-SHUN comes back only once its own manager is in a primary view.
			r.emit(&fence.RecoverRefused{At: r.now, Node: i, ManagerDown: true})
			return
		}
		cl = r.copies[r.copyOf[r.coordinatorOf(i)]] // the coordinator recovers, as it fences
	}
	m := &cl[i]
	if !m.Failed {
		r.emit(&fence.RecoverIgnored{At: r.now, Node: i})
		return
	}
	// Alarms raised before the node was failed go with the recover.
	n := &r.nodes[i]
	for _, a := range n.alarms {
		r.emit(&fence.AlarmCleared{At: r.now, Node: i, Condition: a.cond, Count: a.count, Threshold: a.threshold, By: fence.ClearedByRecover})
	}
	n.alarms = nil
	m.Failed, m.Shunned, m.Failsafe = false, false, false
	for j := range cl {
		if j != i && m.Role == fence.Master && cl[j].Role == fence.Master {
			m.Role = fence.Replica
		}
	}
	r.emit(&fence.NodeRecovered{At: r.now, Node: i, Role: m.Role, By: fence.RecoveredByOperator})
}

// setCoordinators: per node, the coordinator of its view (-1 for none). The cluster's is the
// least of them; nodes that have a coordinator now have their due alarms expire.
func (r *refEngine) setCoordinators(at time.Duration, coords []int) {
	r.now = at
	r.coords = append(r.coords[:0], coords...)
	first, anyUp := -1, false
	for i, k := range coords {
		if k >= 0 && (first < 0 || k < first) {
			first = k
		}
		anyUp = anyUp || r.nodes[i].up
	}
	if first != r.coord {
		r.coord = first
		r.emit(&fence.CoordinatorChanged{At: r.now, Coordinator: first, NoPrimary: first < 0 && anyUp})
	}
	r.expireWaiting()
}

// fork makes copy c a clone of copy from.
func (r *refEngine) fork(at time.Duration, c, from int) {
	r.now = at
	r.setCopy(c, r.copies[from])
}

// setCopy makes copy c (an existing one or the next number) hold a clone of cl.
func (r *refEngine) setCopy(c int, cl []fence.Member) {
	clone := append([]fence.Member(nil), cl...)
	if c == len(r.copies) {
		r.copies = append(r.copies, clone)
		return
	}
	r.copies[c] = clone
}

// mergeCopies makes copy c the copy of sources[adopted], telling every node on which another
// source differed.
func (r *refEngine) mergeCopies(at time.Duration, c int, sources []int, adopted int) {
	r.now = at
	win := r.copies[sources[adopted]]
	// A node whose own copy (the one its manager holds) is among the sources and has it
	// shunned by its failsafe keeps that entry, unless the adopted copy has it shunned already:
	// only the operator's recover undoes a failsafe shun.
	merged := append(fence.Cluster(nil), win...)
	var kept []int
	for i := range merged {
		own := r.copyOf[i]
		if own == sources[adopted] || win[i].Shunned || !r.copies[own][i].Failsafe {
			continue
		}
		for _, s := range sources {
			if s == own {
				merged[i] = r.copies[own][i]
				kept = append(kept, i)
			}
		}
	}
	var conflicts []fence.Conflict
	for k, s := range sources {
		if k == adopted {
			continue
		}
		for i := range merged {
			if r.copies[s][i] != merged[i] {
				conflicts = append(conflicts, fence.Conflict{Node: i, Side: s, Kept: merged[i], Lost: r.copies[s][i]})
			}
		}
	}
	r.setCopy(c, merged)
	r.emit(&fence.CopiesMerged{At: r.now, Copy: c, Adopted: sources[adopted], Conflicts: conflicts, KeptShuns: kept})
}

func (r *refEngine) setCopies(at time.Duration, copyOf []int) {
	r.now = at
	copy(r.copyOf, copyOf)
}

// hostFailed: coordinator c's ping of node i's host went unanswered.
func (r *refEngine) hostFailed(at time.Duration, c, i int) {
	r.now = at
	if r.policy == fence.Maintenance {
		return
	}
	r.fail(i, statemap.HostIsDown, c, true)
}

// failsafeShun: node i's manager shuns its own datasource in its own copy.
func (r *refEngine) failsafeShun(at time.Duration, i, ticks int) {
	r.now = at
	m := r.member(i)
	if m.Failsafe {
		return
	}
	m.Failed, m.Shunned, m.Failsafe = true, true, true
	r.emit(&fence.FailsafeShunned{At: r.now, Node: i, Role: m.Role, Ticks: ticks})
}

// refGroup is a plain model of the managers as a group (docs/engine.md, "The managers as a
// group"), written apart from packages group and cluster: it holds per member its host (down,
// segment), whether its manager was stopped, its view with a heartbeat-gap count for each
// silent member, its last quorum conclusion, its non-primary ticks in a row, the coordinator's
// pings and the copy of the cluster's state it holds; everything else (who hears whom, which
// members are validated, who coordinates) is worked out anew whenever it is needed. It tells
// its refEngine the group's inputs in the order a tick makes them.
type refGroup struct {
	e             *refEngine
	n             int // database members: the engine's nodes; witnesses follow
	gapT, safeT   int
	down, stopped []bool
	seg           []int
	view          []uint64 // per manager: its view, a bit per member; 0 while it is down
	gap           [][]int  // per manager and member: the member's silent ticks in its view
	checked       []bool   // per manager: it has a quorum conclusion (it ran at the last check)
	primary       []bool   // per manager: its last quorum conclusion
	streak        []int    // per manager: its non-primary ticks in a row
	pinged        []uint64 // per coordinator: the members missing from its view that it pinged
	answered      []uint64 // per coordinator: those of them whose host answered
	copyOf        []int    // per member: the copy of the cluster's state it holds
	next          int      // the next new copy's number

	missed   uint64 // members whose unanswered ping fenced nothing: the cluster was in maintenance
	left     uint64 // the members that left a view after silence at this tick
	frozen   []bool // per node: writable when its manager went down
	writable []int  // the nodes writable, as last told
	inWindow []int  // every node writable in the open split-brain window
	openedAt time.Duration
}

// refPing and refSplit are the group's own events the reference tells beside the engine's
// decisions: a host ping that went unanswered (cluster.HostPingFailed) and a split-brain
// window that opened or closed (cluster.SplitBrain), in the form keep gives the replay's.
type refPing struct {
	At                  time.Duration
	Coordinator, Member int
	Count               int // the silent ticks after which Member left a view at this tick; 0 if it did not
}

type refSplit struct {
	At       time.Duration
	Open     bool
	Widened  bool  // open still, with a node more
	Writable []int // opened: the nodes writable at once; widened and closed: every node writable in it
	From     time.Duration
}

func (e *refPing) When() time.Duration  { return e.At }
func (e *refSplit) When() time.Duration { return e.At }

func newRefGroup(e *refEngine, witnesses, gapT, safeT int) *refGroup {
	n := len(e.nodes)
	size := n + witnesses
	g := &refGroup{e: e, n: n, gapT: cmpOr(gapT, 3), safeT: cmpOr(safeT, 3),
		down: make([]bool, size), stopped: make([]bool, size), seg: make([]int, size),
		view: make([]uint64, size), gap: make([][]int, size), checked: make([]bool, size), primary: make([]bool, size),
		streak: make([]int, size), pinged: make([]uint64, size), answered: make([]uint64, size), copyOf: make([]int, size), next: 1,
		frozen: make([]bool, n)}
	for m := range size {
		g.gap[m] = make([]int, size)
		g.view[m] = 1<<size - 1
	}
	g.check()
	g.e.setCoordinators(0, g.coordinators())
	g.writable = g.writableNow()
	return g
}

// writableNow is the nodes writable now: host up, master and in its own side's copy neither
// failed nor shunned; a node whose manager was stopped is so only if, besides, the copy of the
// first manager of a primary view on its segment has it so, and whose host no such manager
// reaches stays as writable as it was when last one did, or when the manager stopped. A host
// down forgets it: back up with its manager stopped, it is not writable until one reaches it.
func (g *refGroup) writableNow() []int {
	var w []int
	for i := range g.n {
		switch {
		case g.down[i]:
			g.frozen[i] = false
		case g.stopped[i]:
			if k := g.reacher(i); k >= 0 {
				c := g.e.copies[g.copyOf[k]][i]
				g.frozen[i] = g.e.writable(i) && c.Role == fence.Master && !c.Failed && !c.Shunned
			}
			if g.frozen[i] {
				w = append(w, i)
			}
		case g.e.writable(i):
			w = append(w, i)
		}
	}
	return w
}

// reacher: the first running manager of a primary view on node i's segment, -1 for none.
func (g *refGroup) reacher(i int) int {
	for m := range g.size() {
		if g.running(m) && g.primary[m] && g.seg[m] == g.seg[i] {
			return m
		}
	}
	return -1
}

// checkWritable tells a split-brain window that opens (two or more nodes writable at once)
// or closes.
func (g *refGroup) checkWritable(at time.Duration) {
	w := g.writableNow()
	if slices.Equal(w, g.writable) {
		return
	}
	was := g.writable
	g.writable = w
	grew := false
	for _, i := range w {
		grew = grew || !slices.Contains(g.inWindow, i)
	}
	switch {
	case len(w) >= 2 && len(was) < 2:
		g.openedAt, g.inWindow = at, slices.Clone(w)
		g.e.out = append(g.e.out, &refSplit{At: at, Open: true, Writable: w})
	case len(w) >= 2 && grew:
		for _, i := range w {
			if !slices.Contains(g.inWindow, i) {
				g.inWindow = append(g.inWindow, i)
			}
		}
		slices.Sort(g.inWindow)
		g.e.out = append(g.e.out, &refSplit{At: at, Open: true, Widened: true, Writable: slices.Clone(g.inWindow), From: g.openedAt})
	case len(w) < 2 && len(was) >= 2:
		g.e.out = append(g.e.out, &refSplit{At: at, Writable: g.inWindow, From: g.openedAt})
	}
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

func has(s uint64, x int) bool { return s&(1<<x) != 0 }
func first(s uint64) int {
	if s == 0 {
		return -1
	}
	return bits.TrailingZeros64(s)
}

func (g *refGroup) size() int          { return len(g.view) }
func (g *refGroup) running(m int) bool { return !g.down[m] && !g.stopped[m] }
func (g *refGroup) db() uint64         { return 1<<g.n - 1 }
func (g *refGroup) witnesses() uint64  { return (1<<g.size() - 1) &^ g.db() }
func (g *refGroup) of(s uint64) (o []int) {
	for x := range g.size() {
		if has(s, x) {
			o = append(o, x)
		}
	}
	return o
}

// reach is the members whose hosts m's host reaches: up, on its segment.
func (g *refGroup) reach(m int) uint64 {
	var s uint64
	for x := range g.size() {
		if !g.down[x] && g.seg[x] == g.seg[m] {
			s |= 1 << x
		}
	}
	return s
}

// hears is the managers m hears: running, on its segment.
func (g *refGroup) hears(m int) uint64 {
	s := g.reach(m)
	for x := range g.size() {
		if !g.running(x) {
			s &^= 1 << x
		}
	}
	return s
}

// validated is the members of m's view that answer its group-communication ping: those it
// hears that hold the same view.
func (g *refGroup) validated(m int) uint64 {
	var s uint64
	for _, x := range g.of(g.view[m] & g.hears(m)) {
		if g.view[x] == g.view[m] {
			s |= 1 << x
		}
	}
	return s
}

// isPrimary is the quorum rule as docs/engine.md states it, the first check that applies
// concluding: no database member in the view, not primary; a member of the view that does not
// answer, not primary; a quorum set of one validated member, primary; validated database
// members reaching database members/2+1, primary; one short, primary when validated witnesses
// make up the difference.
func (g *refGroup) isPrimary(m int) bool {
	v, val := g.view[m], g.validated(m)
	vdb := bits.OnesCount64(val & g.db())
	vw := bits.OnesCount64(val & g.witnesses())
	majority := g.n/2 + 1
	switch {
	case v&g.db() == 0:
		return false
	case val != v:
		return false
	case g.size() == 1:
		return vdb == 1
	case vdb >= majority:
		return true
	case vdb == majority-1:
		return vdb+vw >= majority
	}
	return false
}

// check is every running manager's quorum check.
func (g *refGroup) check() {
	for m := range g.size() {
		if !g.running(m) {
			continue
		}
		g.primary[m], g.checked[m] = g.isPrimary(m), true
		if g.primary[m] {
			g.streak[m] = 0
		}
		if !g.primary[m] || first(g.view[m]) != m {
			g.pinged[m], g.answered[m] = 0, 0 // a coordinator again pings anew
		}
	}
}

// coordinators is, per node, the coordinator the engine is told: the first member of its
// view when that is primary, -1 when it is not, or the node's or the coordinator's manager
// does not run.
func (g *refGroup) coordinators() []int {
	out := make([]int, g.n)
	for i := range out {
		out[i] = -1
		if !g.running(i) || !g.primary[i] {
			continue
		}
		if k := first(g.view[i]); g.running(k) {
			out[i] = k
		}
	}
	return out
}

// agree gives the running managers heard, who hear each other, one view: the members they
// hear, and each member one of them holds but none hears, at the lowest silent count any of
// them has for it (one more at a tick); one whose count reaches the gap threshold leaves.
func (g *refGroup) agree(heard uint64, tick bool) {
	var union uint64
	for _, m := range g.of(heard) {
		union |= g.view[m]
	}
	view := heard
	count := make([]int, g.size())
	for _, x := range g.of(union &^ heard) {
		low := -1
		for _, m := range g.of(heard) {
			if has(g.view[m], x) && (low < 0 || g.gap[m][x] < low) {
				low = g.gap[m][x]
			}
		}
		count[x] = low
		if tick {
			count[x]++
		}
		if count[x] < g.gapT {
			view |= 1 << x
		} else if tick {
			g.left |= 1 << x
		}
	}
	for _, m := range g.of(heard) {
		g.view[m] = view
		for x := range g.size() {
			g.gap[m][x] = 0
			if has(view, x) && !has(heard, x) {
				g.gap[m][x] = count[x]
			}
		}
	}
}

// segments is the running managers grouped by who hears whom, those of started first when
// given.
func (g *refGroup) segments(only uint64) []uint64 {
	var out []uint64
	var done uint64
	for m := range g.size() {
		if !g.running(m) || has(done, m) || (only != 0 && !has(only, m)) {
			continue
		}
		h := g.hears(m)
		done |= h
		out = append(out, h)
	}
	return out
}

// regroup gives each side (the running managers sharing a view) the copy of the cluster's
// state it holds: the copy its members held, or when they held several (views merged) the
// copy of the side that was primary, or of several or none the one whose first holder comes
// first. A copy two sides take stays with the side holding its first holder that ran before,
// and the other forks a clone of it under a new number.
func (g *refGroup) regroup(at time.Duration) {
	type source struct {
		copy    int
		first   int
		primary bool
	}
	type side struct {
		members []int
		sources []source
		adopted int
		rank    int
	}
	var sides []side
	var done uint64
	for m := range g.size() {
		if !g.running(m) || has(done, m) {
			continue
		}
		var sd side
		for x := range g.size() {
			if g.running(x) && g.view[x] == g.view[m] {
				done |= 1 << x
				sd.members = append(sd.members, x)
			}
		}
		for _, x := range sd.members {
			k := -1
			for i, s := range sd.sources {
				if s.copy == g.copyOf[x] {
					k = i
				}
			}
			if k < 0 {
				sd.sources = append(sd.sources, source{copy: g.copyOf[x], first: x})
				k = len(sd.sources) - 1
			}
			sd.sources[k].primary = sd.sources[k].primary || g.primary[x]
		}
		for i, s := range sd.sources {
			if s.primary && !sd.sources[sd.adopted].primary {
				sd.adopted = i
			}
		}
		sd.rank = 1 << 30
		for _, x := range sd.members {
			if g.copyOf[x] == sd.sources[sd.adopted].copy {
				r := x
				if !g.checked[x] {
					r += 1000 // it has just started: it brings the copy back, takes none
				}
				sd.rank = min(sd.rank, r)
			}
		}
		sides = append(sides, sd)
	}
	for i, sd := range sides {
		base := sd.sources[sd.adopted].copy
		c := base
		for k, o := range sides {
			if k != i && o.sources[o.adopted].copy == base && o.rank < sd.rank {
				c = g.next
				g.next++
				break
			}
		}
		switch {
		case len(sd.sources) > 1:
			var srcs []int
			for _, s := range sd.sources {
				srcs = append(srcs, s.copy)
			}
			g.e.mergeCopies(at, c, srcs, sd.adopted)
		case c != base:
			g.e.fork(at, c, base)
		}
		for _, x := range sd.members {
			g.copyOf[x] = c
		}
	}
}

// tell tells the engine which copy each node holds and who coordinates for it.
func (g *refGroup) tell(at time.Duration) {
	g.e.setCopies(at, g.copyOf[:g.n])
	g.e.setCoordinators(at, g.coordinators())
}

// setNet applies a change of the network: hosts down or up, managers stopped or started, a
// partition. A manager that stopped cleanly leaves every view at once; one that starts joins
// the managers it hears at once; the rest waits for the next tick.
func (g *refGroup) setNet(at time.Duration, down, stopped []bool, seg []int) {
	was := make([]bool, g.size())
	for m := range was {
		was[m] = g.running(m)
	}
	copy(g.down, down)
	copy(g.stopped, stopped)
	copy(g.seg, seg)
	for i := range g.n {
		if up := g.running(i); up != g.e.nodes[i].up {
			// Nobody tells the database of a manager that goes down to stop taking writes.
			g.frozen[i] = !up && g.e.writable(i)
			g.e.setManager(at, i, up)
		}
	}
	var left, started uint64
	for m := range g.size() {
		switch {
		case was[m] && !g.running(m):
			g.view[m], g.checked[m], g.primary[m], g.streak[m], g.pinged[m], g.answered[m] = 0, false, false, 0, 0, 0
			clear(g.gap[m])
			if !g.down[m] {
				left |= 1 << m
			}
		case !was[m] && g.running(m):
			g.view[m] = 0
			clear(g.gap[m])
			started |= 1 << m
		}
	}
	if left != 0 || started != 0 {
		for m := range g.size() {
			if g.running(m) {
				g.view[m] &^= left
				for _, x := range g.of(left) {
					g.gap[m][x] = 0
				}
			}
		}
		if started != 0 {
			for _, h := range g.segments(started) {
				g.agree(h, false)
			}
		}
		for m := range g.size() {
			// A member back in m's view is no longer missing: gone again, it is pinged anew.
			g.pinged[m] &^= g.view[m]
			g.answered[m] &^= g.view[m]
		}
		g.regroup(at)
		g.check()
	}
	g.tell(at)
	g.checkWritable(at)
}

// tick is the group's tick at time at: views, copies, quorum and coordinators, host pings,
// failsafe.
func (g *refGroup) tick(at time.Duration) {
	g.left = 0
	for _, h := range g.segments(0) {
		g.agree(h, true)
	}
	g.regroup(at)
	g.check()
	g.tell(at)
	for m := range g.size() {
		if !g.running(m) || !g.primary[m] || first(g.view[m]) != m {
			g.pinged[m], g.answered[m] = 0, 0
			continue
		}
		missing := g.db() &^ g.view[m]
		answers := missing & g.reach(m)
		for _, x := range g.of(missing) {
			if (!has(g.pinged[m], x) || has(g.answered[m], x) != has(answers, x)) && !has(answers, x) {
				count := 0
				if has(g.left, x) {
					count = g.gapT
				}
				g.e.out = append(g.e.out, &refPing{At: at, Coordinator: m, Member: x, Count: count})
				if g.e.policy == fence.Maintenance {
					g.missed |= 1 << x
				}
				g.e.hostFailed(at, m, x)
				g.checkWritable(at)
			}
		}
		g.pinged[m], g.answered[m] = missing, answers
	}
	for m := range g.size() {
		if !g.running(m) {
			continue
		}
		if g.primary[m] {
			g.streak[m] = 0
			continue
		}
		if g.streak[m] < g.safeT {
			g.streak[m]++
			if g.streak[m] == g.safeT && m < g.n {
				g.e.failsafeShun(at, m, g.safeT)
				g.checkWritable(at)
			}
		}
	}
	g.checkWritable(at)
}

// refReplay replays tl against the reference engine one second at a time, with no shortcut:
// every second it applies the timeline's events, finishes the probes due, starts the probes
// due, and ticks on every tenth second (the group's tick first). Every time in tl must be a
// whole second. group says whether the managers run as a group (sim.Replay; the live runtime
// does not).
func refReplay(tl *timeline.Timeline, m *statemap.Map, group bool) []act.Event {
	r := newRefEngine(fence.Config{Nodes: tl.Nodes, Map: m, Policy: tl.Policy})
	var g *refGroup
	size := len(tl.Nodes) + len(tl.Witnesses)
	down, stopped, seg := make([]bool, size), make([]bool, size), make([]int, size)
	if group {
		g = newRefGroup(r, len(tl.Witnesses), tl.GapThreshold, tl.FailsafeThreshold)
		r.take()
	}
	type probe struct {
		fault    fault.Fault
		down     bool
		busy     bool
		finishAt time.Duration
		cond     statemap.Condition
		next     time.Duration
	}
	ps := make([]probe, len(tl.Nodes))
	follow := func(t time.Duration) {
		for i := range ps {
			up := !down[i] && !stopped[i]
			switch p := &ps[i]; {
			case !up && !p.down:
				p.down, p.busy = true, false
			case up && p.down:
				p.down, p.next = false, t
			}
		}
	}
	writable := func(t time.Duration) {
		if g != nil {
			g.checkWritable(t)
		}
	}
	var log []act.Event
	ev := 0
	for t := time.Duration(0); t <= tl.End; t += time.Second {
		for ; ev < len(tl.Events) && tl.Events[ev].At == t; ev++ {
			e := tl.Events[ev]
			switch e.Kind {
			case timeline.SetFault:
				ps[e.Node].fault = e.Fault
				r.out = append(r.out, &act.FaultSet{At: t, Node: e.Node, Fault: e.Fault})
			case timeline.ManagerDown, timeline.ManagerUp, timeline.HostDown, timeline.HostUp, timeline.Partition:
				switch e.Kind {
				case timeline.ManagerDown, timeline.ManagerUp:
					stopped[e.Node] = e.Kind == timeline.ManagerDown
				case timeline.HostDown, timeline.HostUp:
					down[e.Node] = e.Kind == timeline.HostDown
				case timeline.Partition:
					clear(seg)
					copy(seg, e.Segments)
				}
				if g == nil {
					r.setManager(t, e.Node, !stopped[e.Node])
				} else {
					g.setNet(t, down, stopped, seg)
				}
				follow(t)
			case timeline.SetPolicy:
				r.setPolicy(t, e.Policy)
				if g != nil && r.policy != fence.Maintenance {
					// Out of maintenance, what a ping found and nothing fenced is pinged anew.
					for m := range g.pinged {
						g.pinged[m] &^= g.missed
						g.answered[m] &^= g.missed
					}
					g.missed = 0
				}
			case timeline.Recover:
				r.recover(t, e.Node)
			}
			writable(t)
		}
		for i := range ps {
			if p := &ps[i]; p.busy && p.finishAt == t {
				p.busy = false
				r.probe(t, i, p.cond)
			}
		}
		writable(t)
		for i := range ps {
			p := &ps[i]
			if p.down || p.busy || p.next > t {
				continue
			}
			o := faultmodel.Predict(p.fault, tl.Timeout)
			p.next = max(t+tl.Interval, t+o.Took)
			if o.Took == 0 {
				r.probe(t, i, o.Condition)
				continue
			}
			p.busy, p.finishAt, p.cond = true, t+o.Took, o.Condition
		}
		writable(t)
		if t > 0 && t%statemap.TickInterval == 0 {
			if g != nil {
				g.tick(t)
			}
			r.tick(t)
			writable(t)
		}
		log = append(log, r.take()...)
	}
	return log
}
