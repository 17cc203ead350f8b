package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/group"

	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/narrate"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// Report observes a run and explains its outcome: did the cluster fail over, when and why, and
// if not, why not for every node that was ever not online.
type Report struct {
	tl        *timeline.Timeline
	m         *statemap.Map
	names     []string
	nodes     []nodeStory      // per node, in cluster order
	fences    []fenceStory     // failovers and masters failed with no candidate, in order
	failovers []fence.Failover // promotions alone
	why       map[int]string   // index in fences -> the expiry that caused it
	active    int              // alarms raised and not yet healed, cleared or expired
	buf       []fence.AlarmView
	repl      replStory // the replication model's run, if the timeline has one

	hostWhy   map[int]string       // node -> why it was host-failed, from the last failed host ping
	primary   []group.Set          // the primary views, as the group last said
	noPrimary []cluster.GroupState // each time no view became primary
	windows   expect.Windows       // the split-brain windows
	shuns     []fence.FailsafeShunned
	policy    fence.Policy // the policy now
}

// nodeStory is what the report keeps of one node: the conditions it showed, how far their
// alarms got, and what reset or fenced it.
type nodeStory struct {
	conds      []statemap.Condition
	seen       [statemap.NumConditions]bool
	maxCount   [statemap.NumConditions]int
	raised     [statemap.NumConditions]bool
	expired    [statemap.NumConditions]bool
	expiry     fence.AlarmExpired // the last expiry, if expiredAny
	expiredAny bool
	heals      []time.Duration
	shunAt     time.Duration                    // when its own manager's FAILSAFE-SHUN took it, if shunned
	shunned    bool                             // it is FAILSAFE-SHUN now: failed in its own copy, it raises no alarm
	quiet      [statemap.NumConditions]quietWhy // why no alarm could be raised when c was first seen
	cleared    int                              // alarms cleared by entering maintenance
	recovers   []time.Duration                  // operator recovers that cleared alarms
	fenced     []fenceStory                     // NodeFailed, AlreadyFailed, ExpiryWaiting
	downEver   []time.Duration
}

// quietWhy is what kept a node from raising an alarm when it first showed a condition.
type quietWhy uint8

const (
	quietNone        quietWhy = iota // nothing known: an alarm could be raised
	quietMaintenance                 // the cluster was in maintenance
	quietShunned                     // its own manager had shunned it (FAILSAFE-SHUN)
)

// fenceStory is a fencing decision as the report keeps it: a Failover, a NoCandidate, a
// NodeFailed, an AlreadyFailed or an ExpiryWaiting, by Kind, with the fields it has.
type fenceStory struct {
	kind       fence.Kind
	at         time.Duration
	node, to   int
	cond       statemap.Condition
	role       fence.Role
	ineligible []fence.Ineligible
}

// New returns a report observer for a run of tl under m.
func New(tl *timeline.Timeline, m *statemap.Map) *Report {
	var all group.Set // the primary view at the start: everyone
	for m := range len(tl.Nodes) + len(tl.Witnesses) {
		all = all.With(m)
	}
	return &Report{tl: tl, m: m, names: tl.Names(), nodes: make([]nodeStory, len(tl.Nodes)), why: map[int]string{}, hostWhy: map[int]string{},
		primary: []group.Set{all}, policy: tl.Policy}
}

// Instant implements drive.Observer: at ticks and at the end it reads the counts of the alarms
// still active, so that those the run ends on are reported with the count they reached.
func (r *Report) Instant(at time.Duration, e fence.View) {
	if r.active == 0 || (at != r.tl.End && at%statemap.TickInterval != 0) {
		return
	}
	for i := range e.Len() {
		r.buf = e.Alarms(r.buf[:0], i)
		n := &r.nodes[i]
		for _, a := range r.buf {
			n.maxCount[a.Condition] = max(n.maxCount[a.Condition], a.Count)
		}
	}
}

// saw notes that node n showed condition c under policy p.
func (n *nodeStory) saw(c statemap.Condition, p fence.Policy) {
	if c != statemap.OK && !n.seen[c] {
		n.seen[c] = true
		n.conds = append(n.conds, c)
		switch {
		case n.shunned:
			n.quiet[c] = quietShunned
		case p == fence.Maintenance:
			n.quiet[c] = quietMaintenance
		}
	}
}

// Event implements drive.Observer.
func (r *Report) Event(ev act.Event) {
	r.windows.Event(ev)
	switch ev := ev.(type) {
	case *cluster.GroupState:
		r.primary = slices.Clone(ev.Primary)
		if len(ev.Primary) == 0 && len(ev.Sides) > 0 {
			c := *ev
			c.Sides = slices.Clone(ev.Sides)
			r.noPrimary = append(r.noPrimary, c)
		}
	case *cluster.HostPingFailed:
		left := ""
		if ev.Count > 0 {
			left = fmt.Sprintf(" after %s", plural(ev.Count, "silent tick"))
		}
		r.hostWhy[ev.Member] = fmt.Sprintf("%s left %s's view%s and its host did not answer %s's ping", r.names[ev.Member], r.names[ev.Coordinator], left, r.names[ev.Coordinator])
	case *fence.FailsafeShunned:
		r.shuns = append(r.shuns, *ev)
		r.nodes[ev.Node].shunned, r.nodes[ev.Node].shunAt = true, ev.At
	case *fence.NodeRecovered:
		r.nodes[ev.Node].shunned = false
	case *fence.PolicyChanged:
		r.policy = ev.Policy
	case *fence.StateChanged:
		r.nodes[ev.Node].saw(ev.Condition, r.policy)
	case *fence.AlarmRaised:
		n := &r.nodes[ev.Node]
		n.raised[ev.Condition] = true
		r.active++
		n.saw(ev.Condition, r.policy)
	case *fence.AlarmHealed:
		n := &r.nodes[ev.Node]
		r.active--
		if len(n.heals) == 0 || n.heals[len(n.heals)-1] != ev.At {
			n.heals = append(n.heals, ev.At)
		}
		n.maxCount[ev.Condition] = max(n.maxCount[ev.Condition], ev.Count)
	case *fence.AlarmCleared:
		n := &r.nodes[ev.Node]
		r.active--
		if ev.By == fence.ClearedByRecover {
			if len(n.recovers) == 0 || n.recovers[len(n.recovers)-1] != ev.At {
				n.recovers = append(n.recovers, ev.At)
			}
		} else {
			n.cleared++
		}
		n.maxCount[ev.Condition] = max(n.maxCount[ev.Condition], ev.Count)
	case *fence.AlarmExpired:
		n := &r.nodes[ev.Node]
		r.active--
		n.maxCount[ev.Condition] = max(n.maxCount[ev.Condition], ev.Count)
		n.expired[ev.Condition] = true
		n.expiry, n.expiredAny = *ev, true
	case *fence.NodeFailed:
		n := &r.nodes[ev.Node]
		n.fenced = append(n.fenced, fenceStory{kind: fence.KindNodeFailed, at: ev.At, node: ev.Node, cond: ev.Condition, role: ev.Role})
	case *fence.AlreadyFailed:
		n := &r.nodes[ev.Node]
		n.fenced = append(n.fenced, fenceStory{kind: fence.KindAlreadyFailed, at: ev.At, node: ev.Node, cond: ev.Condition})
	case *fence.ExpiryWaiting:
		n := &r.nodes[ev.Node]
		n.fenced = append(n.fenced, fenceStory{kind: fence.KindExpiryWaiting, at: ev.At, node: ev.Node, cond: ev.Condition})
	case *fence.Failover:
		r.fenced(ev.Node, ev.Host)
		r.fences = append(r.fences, fenceStory{kind: fence.KindFailover, at: ev.At, node: ev.Node, to: ev.To, cond: ev.Condition})
		r.failovers = append(r.failovers, *ev)
	case *fence.NoCandidate:
		r.fenced(ev.Node, ev.Host)
		r.fences = append(r.fences, fenceStory{kind: fence.KindNoCandidate, at: ev.At, node: ev.Node, cond: ev.Condition, ineligible: ev.Ineligible})
	case *fence.ManagerDown:
		r.nodes[ev.Node].downEver = append(r.nodes[ev.Node].downEver, ev.At)
	default:
		r.replEvent(ev)
	}
}

// fenced notes why the master, node i, is about to be fenced: the expiry that did it, or with
// host, the host ping it did not answer.
func (r *Report) fenced(i int, host bool) {
	if w, ok := r.hostWhy[i]; host && ok {
		r.why[len(r.fences)] = w
		return
	}
	if x := &r.nodes[i].expiry; r.nodes[i].expiredAny {
		lasted := "expired at once"
		if x.Threshold > 0 {
			lasted = "lasted " + plural(x.Count, "tick")
		}
		r.why[len(r.fences)] = fmt.Sprintf("%s on %s %s (threshold %d, action %s)", x.Condition, r.names[i], lasted, x.Threshold, x.Action)
	}
}

// FailedOver reports whether the cluster failed over: a replica was promoted. A master failed
// with no replica eligible is no failover.
func (r *Report) FailedOver() bool { return len(r.failovers) > 0 }

// Failovers returns the failovers, in order: each a promotion.
func (r *Report) Failovers() []fence.Failover { return r.failovers }

// NoCandidates returns the failures of a master with no replica eligible, in order: no
// failover, and the cluster left without a master.
func (r *Report) NoCandidates() []fence.NoCandidate {
	var out []fence.NoCandidate
	for _, f := range r.fences {
		if f.kind == fence.KindNoCandidate {
			out = append(out, fence.NoCandidate{At: f.at, Node: f.node, Condition: f.cond, Ineligible: f.ineligible})
		}
	}
	return out
}

// Verdict returns the verdict's lines: the first says whether the cluster failed over, the rest
// why, or why not. A master failed with no replica eligible is reported as no failover.
func (r *Report) Verdict() []string {
	out := r.verdict()
	return append(out, r.groupVerdict()...)
}

// groupVerdict says what the managers as a group did that no fencing line says: the
// split-brain windows, the failsafe shuns, and the times no view was primary.
func (r *Report) groupVerdict() []string {
	clock := func(d time.Duration) string { return timeline.Clock(r.tl.Start, d) }
	var out []string
	for _, ns := range r.noPrimary {
		var sides []string
		for _, v := range ns.Sides {
			sides = append(sides, v.Names(r.names, " "))
		}
		out = append(out, fmt.Sprintf("  no primary partition at %s: %s, majority %d: nobody fenced", clock(ns.At), strings.Join(sides, " | "), ns.Majority))
	}
	for _, s := range r.shuns {
		out = append(out, fmt.Sprintf("  %s: FAILSAFE-SHUN at %s: its manager's view was not primary for %s", r.names[s.Node], clock(s.At), plural(s.Ticks, "tick")))
	}
	ws := r.SplitBrain()
	for _, w := range ws {
		zero := ""
		if w.To == w.From {
			zero = " (a zero-length window)"
		}
		out = append(out, fmt.Sprintf("  split brain: %s writable at once from %s to %s, %s%s", w.Nodes.Names(r.names, " "), clock(w.From), clock(w.To), w.To-w.From, zero))
	}
	if len(ws) > 0 {
		out = append(out, fmt.Sprintf("  split brain in all: %s in %s", expect.Total(ws), plural(len(ws), "window")))
	}
	return out
}

// SplitBrain returns the split-brain windows, one still open at the end closed there.
func (r *Report) SplitBrain() []expect.Window { return r.windows.Closed(r.tl.End) }

// Primary returns the primary views at the end, in the order of their first members.
func (r *Report) Primary() []group.Set { return r.primary }

// verdict is the verdict's lines about failing over.
func (r *Report) verdict() []string {
	clock := func(d time.Duration) string { return timeline.Clock(r.tl.Start, d) }
	head := r.Headline()
	var out []string
	if len(r.fences) > 0 {
		for i, ev := range r.fences {
			out = append(out, head.fencedLine(i))
			if w, ok := r.why[i]; ok {
				out = append(out, "  because "+w)
			}
			if ev.kind == fence.KindNoCandidate {
				out = append(out, "  not eligible: "+narrate.Ineligible(r.names, ev.ineligible))
			}
		}
		return append(out, r.replVerdict(head.Replication)...)
	}
	out = append(out, noFailover)
	for i := range r.nodes {
		n, name := &r.nodes[i], r.names[i]
		for _, c := range n.conds {
			if w := r.whyNot(n, c); w != "" {
				out = append(out, fmt.Sprintf("  %s: %s", name, w))
			}
		}
		if len(n.heals) > 0 {
			out = append(out, fmt.Sprintf("  %s: %s reset its alarms (%s)", name, plural(len(n.heals), "self-heal"), clockList(r.tl.Start, n.heals, 8)))
		}
		if n.cleared > 0 {
			out = append(out, fmt.Sprintf("  %s: entering maintenance cleared %s", name, plural(n.cleared, "alarm")))
		}
		if len(n.recovers) > 0 {
			out = append(out, fmt.Sprintf("  %s: the operator's recover cleared its alarms (%s)", name, clockList(r.tl.Start, n.recovers, 8)))
		}
		if len(n.downEver) > 0 {
			out = append(out, fmt.Sprintf("  %s: its manager went down at %s: no probes while down, nothing new known", name, clockList(r.tl.Start, n.downEver, 8)))
		}
		for _, ev := range n.fenced {
			switch {
			case ev.kind == fence.KindExpiryWaiting:
				out = append(out, fmt.Sprintf("  %s: %s expired at %s with no manager up to fence it", name, ev.cond, clock(ev.at)))
			case ev.kind == fence.KindNodeFailed && ev.role == fence.Master:
				out = append(out, fmt.Sprintf("  %s: failed at %s by %s, but %s", name, clock(ev.at), ev.cond, narrate.ManualNoFailover))
			case ev.kind == fence.KindNodeFailed:
				out = append(out, fmt.Sprintf("  %s: failed at %s by %s: a replica is taken out of service, not failed over", name, clock(ev.at), ev.cond))
			}
		}
	}
	if len(out) == 1 && len(r.noPrimary) == 0 && len(r.shuns) == 0 {
		out = append(out, "  every node stayed online")
	}
	return append(out, r.replVerdict(head.Replication)...)
}

// whyNot says why condition c on a node did not fail the cluster over; "" when the node's
// fencing lines say it.
func (r *Report) whyNot(n *nodeStory, c statemap.Condition) string {
	rule := r.m.Rule(c)
	switch {
	case !rule.Fatal():
		return fmt.Sprintf("%s maps to action %s (threshold %d): %s", c, rule.Action, rule.Threshold, flavor(rule))
	case n.expired[c]:
		return ""
	case !n.raised[c] && len(n.fenced) > 0:
		return fmt.Sprintf("%s came while the node was failed: a failed node raises no new alarm", c)
	case !n.raised[c] && n.quiet[c] == quietShunned:
		return fmt.Sprintf("%s would fail the node (threshold %d), but no alarm was raised: its own manager had shunned it (FAILSAFE-SHUN at %s), and a shunned node raises none",
			c, rule.Threshold, timeline.Clock(r.tl.Start, n.shunAt))
	case !n.raised[c] && n.quiet[c] == quietMaintenance:
		return fmt.Sprintf("%s would fail the node (threshold %d), but no alarm was raised: the cluster was in maintenance", c, rule.Threshold)
	case !n.raised[c]:
		return fmt.Sprintf("%s would fail the node (threshold %d), but no alarm was raised", c, rule.Threshold)
	}
	return fmt.Sprintf("%s fails after %s, but its alarm reached at most %d before it was reset or the replay ended", c, plural(rule.Threshold, "tick"), n.maxCount[c])
}

// flavor says in a few words what a rule that never fences means.
func flavor(r statemap.Rule) string {
	if r.Action == statemap.Fail {
		return "never expires, never fenced"
	}
	switch r.State {
	case statemap.Timeout:
		return "slow, not dead"
	case statemap.Suspect:
		return "suspect, not provably dead"
	case statemap.Stopped:
		return "down, but not fenced"
	}
	return "logged, never fenced"
}

func clockList(start time.Time, ts []time.Duration, most int) string {
	var s []string
	for i, t := range ts {
		if i == most {
			s = append(s, fmt.Sprintf("and %d more", len(ts)-most))
			break
		}
		s = append(s, timeline.Clock(start, t))
	}
	return strings.Join(s, ", ")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
