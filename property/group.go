package property

import (
	"fmt"
	"strings"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/group"
)

// noSplitBrain judges no-split-brain [DUR]: the split-brain windows (two or more nodes
// writable at once, package cluster's SplitBrain) last at most DUR in all, 0 without DUR (a
// zero-length window, within one instant, holds). A window still open is counted at each
// instant it is looked at; its message names every node writable in it so far (a
// cluster.SplitBrainWidened adds a writer).
type noSplitBrain struct {
	judge
	names []string
	most  time.Duration
	total time.Duration // closed windows
	open  bool
	from  time.Duration
	nodes group.Set
}

// Topics implements Subscriber: the split-brain windows.
func (p *noSplitBrain) Topics() Topics {
	return On(TopicSplitBrain)
}

// Event implements Property.
func (p *noSplitBrain) Event(ev act.Event) bool {
	if sw, ok := ev.(*cluster.SplitBrainWidened); ok && p.open {
		p.nodes = sw.Writable
		return true
	}
	sb, ok := ev.(*cluster.SplitBrain)
	if !ok {
		return false
	}
	if sb.Open {
		p.open, p.from, p.nodes = true, sb.At, sb.Writable
		return true
	}
	p.open = false
	p.total += sb.At - sb.From
	p.check(sb.At, sb.Writable, sb.From)
	return false
}

// Look implements Property: while a window is open, it counts up to now.
func (p *noSplitBrain) Look(at time.Duration, _ fence.View) bool {
	if p.open {
		p.check(at, p.nodes, p.from)
	}
	return p.open
}

func (p *noSplitBrain) check(at time.Duration, nodes group.Set, from time.Duration) {
	total := p.total
	if p.open {
		total += at - from
	}
	if total > p.most {
		p.fail(at, "split brain: %s writable at once since %s, %s in all (at most %s)", nodes.Names(p.names, " "), p.clock(from), total, p.most)
	}
}

func (p *noSplitBrain) clock(t time.Duration) string {
	s := p.judge.start.Add(t).Format("15:04:05")
	return s
}

// noFenceWithoutQuorum judges no-fence-without-quorum: every fence (an expired alarm acted on,
// a host failed on an unanswered ping) is made by the coordinator of a primary view: the first
// member of one of the primary views the group last told (cluster.GroupState; everyone's at
// the start).
type noFenceWithoutQuorum struct {
	judge
	names   []string
	primary []group.Set
}

func newNoFenceWithoutQuorum(j judge, tr Trace) *noFenceWithoutQuorum {
	var all group.Set
	for m := range tr.Names {
		all = all.With(m)
	}
	return &noFenceWithoutQuorum{judge: j, names: tr.Names, primary: []group.Set{all}}
}

// Topics implements Subscriber: the primary views and the fences it judges.
func (p *noFenceWithoutQuorum) Topics() Topics {
	return On(TopicGroupState, TopicHostPing) | OnKinds(fence.KindAlarmExpired)
}

// Event implements Property.
func (p *noFenceWithoutQuorum) Event(ev act.Event) bool {
	switch ev := ev.(type) {
	case *cluster.GroupState:
		p.primary = append(p.primary[:0], ev.Primary...)
	case *fence.AlarmExpired:
		p.judgeFence(ev.At, ev.Coordinator, fmt.Sprintf("%s's %s alarm", p.names[ev.Node], ev.Condition))
	case *cluster.HostPingFailed:
		p.judgeFence(ev.At, ev.Coordinator, fmt.Sprintf("%s's host failure", p.names[ev.Member]))
	}
	return false
}

func (p *noFenceWithoutQuorum) judgeFence(at time.Duration, coord int, what string) {
	for _, v := range p.primary {
		if v.First() == coord {
			return
		}
	}
	var views []string
	for _, v := range p.primary {
		views = append(views, v.Names(p.names, " "))
	}
	if len(views) == 0 {
		views = []string{"none"}
	}
	p.fail(at, "%s was acted on by %s, which coordinates no primary view (primary: %s)", what, name(p.names, coord), strings.Join(views, "; "))
}

// Look implements Property.
func (p *noFenceWithoutQuorum) Look(time.Duration, fence.View) bool { return false }

// minorityShuns judges minority-shuns-within [DUR]: a node that is writable while its manager
// runs in no primary view stops being writable (its failsafe shuns it, or a merge adopts a
// copy that fences it) within DUR of its manager's leaving the primary views; without DUR,
// DefaultMinorityShunsWithin. A node whose manager is down is not judged: a manager that is
// down shuns nothing.
type minorityShuns struct {
	judge
	names   []string
	within  time.Duration
	nodes   int
	since   []time.Duration // per node: when its manager left the primary views; -1 while in one or down
	up      []bool
	primary []group.Set
}

// DefaultMinorityShunsWithin is minority-shuns-within's bound without an argument: the default
// failsafe threshold's 3 ticks, and up to one more tick before the first that sees the split.
const DefaultMinorityShunsWithin = 40 * time.Second

func newMinorityShuns(j judge, tr Trace, within time.Duration) *minorityShuns {
	if within == 0 {
		within = DefaultMinorityShunsWithin
	}
	n := tr.nodes()
	p := &minorityShuns{judge: j, names: tr.Names, within: within, nodes: n, since: make([]time.Duration, n), up: make([]bool, n)}
	for i := range n {
		p.since[i], p.up[i] = -1, true
	}
	return p
}

func (p *minorityShuns) inPrimary(i int) bool {
	for _, v := range p.primary {
		if v.Has(i) {
			return true
		}
	}
	return false
}

// Topics implements Subscriber: the primary views and the managers up.
func (p *minorityShuns) Topics() Topics {
	return On(TopicGroupState) | OnKinds(fence.KindManagerDown, fence.KindManagerUp)
}

// Event implements Property.
func (p *minorityShuns) Event(ev act.Event) bool {
	switch ev := ev.(type) {
	case *cluster.GroupState:
		p.primary = append(p.primary[:0], ev.Primary...)
		for i := range p.nodes {
			switch {
			case !p.up[i] || p.inPrimary(i):
				p.since[i] = -1
			case p.since[i] < 0:
				p.since[i] = ev.At
			}
		}
		return true
	case *fence.ManagerDown:
		p.up[ev.Node], p.since[ev.Node] = false, -1
	case *fence.ManagerUp:
		p.up[ev.Node] = true
		if !p.inPrimary(ev.Node) {
			p.since[ev.Node] = ev.At
		}
		return true
	}
	return false
}

// Look implements Property: it looks again while a node in no primary view is writable.
func (p *minorityShuns) Look(at time.Duration, e fence.View) bool {
	again := false
	for i := range p.nodes {
		if p.since[i] < 0 {
			continue
		}
		switch {
		case !e.Writable(i):
		case at-p.since[i] > p.within:
			p.fail(at, "%s is writable %s after its manager left the primary views (at most %s)", p.names[i], at-p.since[i], p.within)
		default:
			again = true
		}
	}
	return again
}

// DefaultMajorityKeepsWriterWithin is majority-keeps-writer-within's bound without an argument:
// a host failure is fenced at the tick the member leaves the view, so a minute is ample.
const DefaultMajorityKeepsWriterWithin = time.Minute

// majorityKeepsWriter judges majority-keeps-writer-within [DUR]: a primary view whose copy of
// the cluster's state names no master in service, and that holds an eligible replica (in
// service, its manager up, its last probe ok), has a master again within DUR. Judged only under
// automatic policy, the only one that fails over. (The view's copy, not the databases: a master
// whose manager is down still takes writes, and one cut off is the view's to fence.)
type majorityKeepsWriter struct {
	judge
	names   []string
	within  time.Duration
	nodes   int
	primary []group.Set
	since   []time.Duration // per primary view (by index in primary): when it lost its writer; -1 none
}

func newMajorityKeepsWriter(j judge, tr Trace, within time.Duration) *majorityKeepsWriter {
	if within == 0 {
		within = DefaultMajorityKeepsWriterWithin
	}
	var all group.Set // the primary view at the start: everyone
	for m := range tr.Names {
		all = all.With(m)
	}
	return &majorityKeepsWriter{judge: j, names: tr.Names, within: within, nodes: tr.nodes(), primary: []group.Set{all}, since: []time.Duration{-1}}
}

// Topics implements Subscriber: the primary views, and any decision to look after.
func (p *majorityKeepsWriter) Topics() Topics {
	return On(TopicGroupState) | Decisions
}

// Event implements Property: it looks at the end of every instant at which the primary views
// may have changed, or a role.
func (p *majorityKeepsWriter) Event(ev act.Event) bool {
	switch ev := ev.(type) {
	case *cluster.GroupState:
		p.primary = append(p.primary[:0], ev.Primary...)
		p.since = p.since[:0]
		for range p.primary {
			p.since = append(p.since, -1)
		}
		return true
	case fence.Decision:
		return true
	}
	return false
}

// Look implements Property: it looks again while a primary view waits for a writer.
func (p *majorityKeepsWriter) Look(at time.Duration, e fence.View) bool {
	if e.Policy() != fence.Automatic {
		for k := range p.since {
			p.since[k] = -1
		}
		return false
	}
	again := false
	for k, v := range p.primary {
		writer, eligible := false, false
		for i := range v.All() {
			if i >= p.nodes {
				continue
			}
			n := e.Node(i)
			writer = writer || e.MasterOf(i) >= 0
			eligible = eligible || (n.Role == fence.Replica && !n.Failed && n.ManagerUp && n.LastOK)
		}
		switch {
		case writer || !eligible:
			p.since[k] = -1
		case p.since[k] < 0:
			p.since[k], again = at, true
		case at-p.since[k] > p.within:
			p.fail(at, "the primary view %s has had no master in service for %s, with a replica eligible (at most %s)", v.Names(p.names, " "), at-p.since[k], p.within)
		default:
			again = true
		}
	}
	return again
}
