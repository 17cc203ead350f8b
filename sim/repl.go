package sim

import (
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/core"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/timeline"
)

// replRun runs package repl's model beside the engine, for a timeline that says something of
// replication (timeline.Replication). It is the one observer the driver tells: it feeds the
// model what the run decides and tells the replay's observers each event, the model's
// decisions and notes among them, in time order.
//
//   - Before each instant the driver runs (begin), the timeline's replication events due by
//     then are applied. The engine's candidate rule is the model's ranking
//     (repl.Model.Candidate), brought to the instant first (candidate), so that it reads the
//     positions of that instant; it ranks the replicas the engine finds eligible, in the
//     acting coordinator's view when the managers run as a group.
//   - A fault on a node's link (*act.FaultSet) is how that node takes writes (repl.LinkOf),
//     and a host that is down (*cluster.HostChanged) takes none, whatever its link's fault,
//     told to the model when it is the master's, or when the node may become the master;
//     a failover promotes in the model too (every other replica is repointed to the new
//     master, failed or not: the model has no later repoint); a master failed with no
//     promotion (no candidate, or manual policy) takes no more writes; an operator's recover of
//     a failed master makes it a replica of the master in service (or the master again, as the
//     engine says).
//   - At the end of an instant at which the model decides something, the model closes it; at
//     the run's last, its summary and ledger are told as a repl.Final. The model settles the
//     rest in bulk when it is next told something: a steady spell costs one settling,
//     however many instants the engine has in it.
//
// The driver stops at the time of each replication event and of each decision the model makes
// of its own accord (a promoted master becoming writable, semisync falling back or returning):
// wake names them (drive.Config.Wake), so the observers are told of those instants too.
type replRun struct {
	m        *repl.Model
	cfg      repl.Config
	obs      []drive.Observer
	inst     []drive.InstantObserver // those of obs told of each instant
	evs      []timeline.ReplEvent
	next     int // the next of evs to apply
	end      time.Duration
	workload bool
	role     core.Topology // what each node is to the model, as the engine's decisions made it
	master   int           // the engine's master in service; -1 for none
	now      time.Duration // the instant the driver runs
	stepped  bool          // the model was told something at this instant
	// The links of nodes other than the master, not yet told: a node's link matters to the
	// model only while the application writes to it, so it is told when the node may become
	// the master (promoted, recovered), and a fault on a replica costs nothing.
	link     []repl.Link
	pending  []bool
	hostDown []bool // per node: its host is down (the managers' group), which takes no write
	// The model's next decision of its own (repl.Model.Next), kept until the model changes.
	own     time.Duration
	ownOK   bool
	ownSure bool
	unread  bool // the model may have decisions not told yet: it was touched since the last flush
	// What the model is told of partitions (repl_sides.go): nothing before the first.
	sides sides
}

// newReplRun returns the model's run beside tl's replay; old, if not nil, is a run done with,
// whose space (and model) it reuses.
func newReplRun(tl *timeline.Timeline, obs []drive.Observer, old *replRun) *replRun {
	r := old
	if r == nil {
		r = new(replRun)
	}
	m, role, link, pending, hostDown, oldSides := r.m, r.role, r.link, r.pending, r.hostDown, r.sides
	*r = replRun{cfg: tl.Repl.Config, obs: obs, inst: drive.Instants(obs), evs: tl.Repl.Events, end: tl.End, workload: tl.Repl.Workload}
	if m == nil {
		m = repl.New(r.cfg)
	} else {
		m.Reset(r.cfg)
	}
	r.m = m
	r.role = core.NewTopology(len(tl.Nodes), r.cfg.Master, role)
	r.link, r.pending, r.hostDown = zeroed(link, len(tl.Nodes)), zeroed(pending, len(tl.Nodes)), zeroed(hostDown, len(tl.Nodes))
	r.master = r.cfg.Master
	r.sides = newSides(len(tl.Nodes), r.master, tl.Repl.Near, &oldSides)
	return r
}

// wake returns the next instant the driver must stop at for the model: its next replication
// event or its next decision of its own, whichever is first.
func (r *replRun) wake() (time.Duration, bool) {
	at, ok := r.ownNext()
	if r.next < len(r.evs) && (!ok || r.evs[r.next].At < at) {
		at, ok = r.evs[r.next].At, true
	}
	return at, ok
}

// ownNext is the model's Next, worked out again only once the model changed (touched).
func (r *replRun) ownNext() (time.Duration, bool) {
	if !r.ownSure {
		r.workOwn() // apart, so that this, asked at every instant, is inlined
	}
	return r.own, r.ownOK
}

func (r *replRun) workOwn() {
	r.own, r.ownOK = r.m.Next()
	r.ownSure = true
}

// mark notes that the model is told something at this instant.
func (r *replRun) mark() {
	r.stepped = true
	r.touched()
}

// touched notes that the model may have changed: its next decision is to be worked out again,
// and it may have decisions to tell (flush). Call it before any call into the model that may
// change it.
func (r *replRun) touched() { r.ownSure, r.unread = false, true }

// begin brings the model to instant t, which the driver is about to run: the replication
// events due by t first, each at its time.
func (r *replRun) begin(t time.Duration) {
	for r.next < len(r.evs) && r.evs[r.next].At <= t {
		e := r.evs[r.next]
		r.next++
		r.touched()
		r.m.Begin(e.At)
		r.flush()
		in := e.Input
		if f, ok := in.(repl.SetStream); ok {
			// A stream cut by a partition stays cut whatever the timeline says of its link.
			r.sides.frozen[f.Node] = f.Frozen
			in = r.stream(f.Node)
		}
		r.touched()
		r.m.Step(e.At, in)
		r.tell(&act.Replicated{At: e.At, Input: e.Input})
		r.flush()
	}
	r.now, r.stepped = t, r.next > 0 && r.evs[r.next-1].At == t
}

// candidate returns the engine's candidate rule: the model's ranking at the instant the driver
// runs, among the replicas the engine finds eligible, which in group mode are those in the
// acting coordinator's view. *e is the engine the rule is given to, set once it is made: the
// ranking asks it which replicas are out of the view, so that its words say "not-in-view" of a
// replica that is eligible but for that (the engine's eligible alone would call it
// "not-eligible", and narrate leaves those out).
func (r *replRun) candidate(e **fence.Engine) fence.CandidateRule {
	inView := func(j int) bool { return (*e).InView(j) }
	rank := r.m.Candidate(inView)
	return func(c fence.Cluster, eligible func(int) bool) int {
		r.touched()
		r.m.Begin(r.now)
		// Eligible but for the view: a replica in service in the acting copy, its manager up and
		// its last probe ok. A node in the view is judged by the engine's eligible alone, so the
		// ranking's candidates are exactly the engine's eligible replicas it ranks.
		butView := func(j int) bool {
			if eligible(j) {
				return true
			}
			if inView(j) {
				return false
			}
			n := (*e).Node(j)
			return c[j].Role == fence.Replica && !c[j].Failed && n.ManagerUp && n.LastOK
		}
		return rank(c, butView)
	}
}

// Event implements drive.Observer.
func (r *replRun) Event(ev act.Event) {
	r.flush()
	r.tell(ev)
	r.sides.decided(ev)
	switch ev := ev.(type) {
	case *act.FaultSet:
		r.link[ev.Node], r.pending[ev.Node] = repl.LinkOf(ev.Fault), true
		if ev.Node == r.master || r.sides.on {
			r.tellLink(ev.At, ev.Node)
		}
	case *cluster.HostChanged:
		if ev.Member < len(r.hostDown) {
			r.hostDown[ev.Member], r.pending[ev.Member] = ev.Down, true
			if ev.Member == r.master || r.sides.on {
				r.tellLink(ev.At, ev.Member)
			}
		}
	case *fence.Failover:
		r.mark()
		r.promote(ev.At, ev.Node, ev.To)
	case *fence.NoCandidate:
		r.mark()
		r.unranked(ev)
		if !r.goesOn(ev.Node) { // failed in another side's copy only: it goes on on its own
			r.fail(ev.At, ev.Node)
		}
	case *fence.NodeFailed:
		if ev.Role == fence.Master && !r.goesOn(ev.Node) {
			r.mark()
			r.fail(ev.At, ev.Node)
		}
	case *fence.FailsafeShunned:
		// Its own manager shunned it: a shunned master takes no more writes.
		if ev.Role == fence.Master && r.role[ev.Node] == core.Writer {
			r.mark()
			r.fail(ev.At, ev.Node)
		}
	case *fence.NodeRecovered:
		r.mark()
		r.recovered(ev.At, ev.Node, ev.Role)
	case *cluster.Partitioned:
		// A partition of the managers' network alone cuts no stream and no write: the
		// databases stay one network (rule 86).
		r.sides.net(ev)
	case *fence.CopiesMerged:
		if r.sides.on {
			r.sides.merged = append(r.sides.merged, ev.Copy)
		}
	}
	if r.sides.on && !r.sides.dirty {
		r.sides.dirty = movesWrites(ev)
	}
	r.sides.stands = false
	r.flush()
}

// Instant implements drive.InstantObserver.
func (r *replRun) Instant(at time.Duration, e fence.View) {
	if r.sides.dirty {
		r.endSides(at)
	}
	// Closing the instant makes the decisions due at it; with none due, the writes of the
	// instant are settled later with the spell that follows.
	if next, ok := r.ownNext(); at == r.end || (ok && next <= at) {
		r.touched()
		r.m.Close(at)
		r.flush()
	}
	r.stepped = false
	if at == r.end {
		r.tell(&repl.Final{At: at, Config: r.cfg, Summary: r.m.Summary(), Ledger: r.m.Ledger(), Workload: r.workload})
	}
	for _, o := range r.inst {
		o.Instant(at, e)
	}
}

func (r *replRun) tell(ev act.Event) {
	for _, o := range r.obs {
		o.Event(ev)
	}
}

// flush tells the model's decisions so far.
func (r *replRun) flush() {
	if r.unread { // apart, so that this much, asked twice at every event, is inlined
		r.flushAll()
	}
}

func (r *replRun) flushAll() {
	r.unread = false
	for _, d := range r.m.Ready() {
		r.tell(d)
	}
}

// promote: the engine failed master from over to to.
func (r *replRun) promote(at time.Duration, from, to int) {
	if !r.role.Writes(from) {
		from = -1
	}
	r.tellLink(at, to)
	goesOn := r.goesOn(from)
	// During a partition only the replicas on the new master's side (holding its copy of the
	// cluster's state) follow it; the others keep their side's master.
	var follows func(j int) bool
	if r.sides.on {
		follows = func(j int) bool { return r.sides.copyOf(j) == r.sides.copyOf(to) }
	}
	from, others := r.role.Promote(from, to, goesOn, follows, nil)
	r.sides.Promoted(from, to, goesOn, others)
	r.m.Step(at, repl.Promote{Node: to, From: from, Repoint: others, FromGoesOn: goesOn})
	r.master = to
}

// tellLink tells the model node's link, if it changed since it was last told.
func (r *replRun) tellLink(at time.Duration, node int) {
	if r.pending[node] {
		r.pending[node] = false
		r.mark()
		l := r.link[node]
		if r.hostDown[node] {
			l = repl.Link{Dead: true}
		}
		r.m.Step(at, repl.SetLink{Node: node, Link: l})
	}
}

// fail: master node was failed and none promoted.
func (r *replRun) fail(at time.Duration, node int) {
	if r.role.Fail(node) {
		r.m.Step(at, repl.Fail{Node: node})
	}
	if r.master == node {
		r.master = -1
	}
}

// recovered: the engine returned node to service as role.
func (r *replRun) recovered(at time.Duration, node int, role fence.Role) {
	if r.role[node] != core.Out {
		return // a failed replica: it replicated all along
	}
	r.tellLink(at, node)
	of := r.master
	if r.sides.on {
		// The master in service of its own side's copy, if the model holds it as one.
		if of = r.sides.masterOf(node); of >= 0 && of != node && r.role[of] != core.Writer {
			of = -1
		}
	}
	if role == fence.Master {
		of, r.master = node, node
		r.sides.Recovered(node, -1)
	} else {
		r.sides.Recovered(node, of)
	}
	r.role.Recover(node, role)
	r.m.Step(at, repl.Recover{Node: node, Of: of})
}

// unranked tells why the ranking promoted none of the replicas the engine found eligible (the
// engine says "not chosen" of them), if there were any.
func (r *replRun) unranked(ev *fence.NoCandidate) {
	chosen := false
	eligible := make([]bool, len(r.role))
	for _, x := range ev.Ineligible {
		if x.Why == fence.NotChosen {
			eligible[x.Node], chosen = true, true
		}
	}
	if !chosen {
		return
	}
	s := r.m.Standings(func(j int) bool { return eligible[j] }, nil)
	r.tell(&repl.Unranked{At: ev.At, Master: ev.Node, Standings: s})
}
