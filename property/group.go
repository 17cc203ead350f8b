package property

import (
	"fmt"
	"strings"
	"time"

	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/group"
)

// noSplitBrain judges no-split-brain [DUR]: the split-brain windows (two or more nodes
// writable at once, package cluster's SplitBrain) last at most DUR in all, 0 without DUR (a
// zero-length window, within one instant, holds). A window still open is counted at each
// instant it is looked at.
type noSplitBrain struct {
	judge
	names []string
	most  time.Duration
	total time.Duration // closed windows
	open  bool
	from  time.Duration
	nodes group.Set
}

// Event implements Property.
func (p *noSplitBrain) Event(ev fence.Event) bool {
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
func (p *noSplitBrain) Look(at time.Duration, _ *fence.Engine) bool {
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

// Event implements Property.
func (p *noFenceWithoutQuorum) Event(ev fence.Event) bool {
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
func (p *noFenceWithoutQuorum) Look(time.Duration, *fence.Engine) bool { return false }
