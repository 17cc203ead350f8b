package expect

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/group"
	"github.com/failsim/failsim/timeline"
)

// shunned holds when the node is shunned within the window, either way the word is used: its
// own manager shuns its datasource (FAILSAFE-SHUN), or, a master, it is failed (failed over,
// failed with no replica eligible, or failed under manual policy), which shuns it: it comes
// back only by recover.
type shunned struct {
	start time.Time
	node  int
	name  string
	win   timeline.Window
	got   []time.Duration
	how   []string // per shun in got: "FAILSAFE-SHUN" or "failed master"
	match bool
}

// Event implements drive.Observer.
func (x *shunned) Event(ev act.Event) {
	how := ""
	switch ev := ev.(type) {
	case *fence.FailsafeShunned:
		if ev.Node == x.node {
			how = "FAILSAFE-SHUN"
		}
	case *fence.Failover:
		if ev.Node == x.node {
			how = "failed over"
		}
	case *fence.NoCandidate:
		if ev.Node == x.node {
			how = "failed master, no candidate"
		}
	case *fence.NodeFailed:
		if ev.Node == x.node && ev.Role == fence.Master {
			how = "failed master, manual policy"
		}
	}
	if how != "" {
		x.got, x.how = append(x.got, ev.When()), append(x.how, how)
		x.match = x.match || x.win.Holds(ev.When())
	}
}

// Verdict implements Expectation.
func (x *shunned) Verdict() (bool, string) {
	if x.match {
		return true, ""
	}
	if len(x.got) == 0 {
		return false, x.name + " was never shunned"
	}
	var when []string
	for k, t := range x.got {
		when = append(when, timeline.Clock(x.start, t)+" ("+x.how[k]+")")
	}
	return false, x.name + " was shunned at " + strings.Join(when, ", ") + ", outside the window"
}

// splitBrain holds when the split-brain windows last at most max in all; a window still open
// at the end counts up to the end.
type splitBrain struct {
	start   time.Time
	names   []string
	end     time.Duration
	max     time.Duration
	windows Windows
}

// Event implements drive.Observer.
func (x *splitBrain) Event(ev act.Event) { x.windows.Event(ev) }

// Verdict implements Expectation.
func (x *splitBrain) Verdict() (bool, string) {
	ws := x.windows.Closed(x.end)
	total := Total(ws)
	if total <= x.max {
		return true, ""
	}
	var parts []string
	for _, w := range ws {
		parts = append(parts, fmt.Sprintf("%s from %s for %s", w.Nodes.Names(x.names, " "), timeline.Clock(x.start, w.From), w.To-w.From))
	}
	return false, fmt.Sprintf("split brain for %s in all: %s", total, strings.Join(parts, "; "))
}

// Window is one split-brain window: Nodes writable at once from From to To.
type Window struct {
	Nodes    group.Set
	From, To time.Duration
}

// Windows follows the split-brain windows of a run from its events. Its zero value has seen
// none.
type Windows struct {
	ws   []Window
	open bool
}

// Event takes a cluster.SplitBrain or a cluster.SplitBrainWidened: a window names every node
// writable in it.
func (w *Windows) Event(ev act.Event) {
	if sw, ok := ev.(*cluster.SplitBrainWidened); ok && w.open {
		w.ws[len(w.ws)-1].Nodes = sw.Writable
		return
	}
	sb, ok := ev.(*cluster.SplitBrain)
	if !ok {
		return
	}
	if sb.Open {
		w.ws = append(w.ws, Window{Nodes: sb.Writable, From: sb.At})
		w.open = true
		return
	}
	if w.open {
		w.ws[len(w.ws)-1].To = sb.At
		w.ws[len(w.ws)-1].Nodes = sb.Writable
		w.open = false
	}
}

// Closed returns the windows, one still open closed at end. The slice is new.
func (w *Windows) Closed(end time.Duration) []Window {
	out := slices.Clone(w.ws)
	if w.open {
		out[len(out)-1].To = end
	}
	return out
}

// Total is the windows' total length.
func Total(ws []Window) time.Duration {
	var t time.Duration
	for _, w := range ws {
		t += w.To - w.From
	}
	return t
}

// primary holds when at its time some primary view is exactly its members, or, with none, no
// view is primary.
type primary struct {
	start   time.Time
	names   []string
	at      time.Duration
	want    group.Set
	now     []group.Set // the primary views, as the group last said
	seen    bool
	got     []group.Set
	checked bool
}

// Event implements drive.Observer.
func (x *primary) Event(ev act.Event) {
	if s, ok := ev.(*cluster.GroupState); ok {
		x.now = append(x.now[:0], s.Primary...)
	}
}

// Instant implements drive.InstantObserver.
func (x *primary) Instant(at time.Duration, _ fence.View) {
	if at == x.at && !x.checked {
		x.checked = true
		x.got = slices.Clone(x.now)
		x.seen = slices.Contains(x.got, x.want) || (x.want == 0 && len(x.got) == 0)
	}
}

// Verdict implements Expectation.
func (x *primary) Verdict() (bool, string) {
	if x.seen {
		return true, ""
	}
	if !x.checked {
		return false, "the replay ended before " + timeline.Clock(x.start, x.at)
	}
	if len(x.got) == 0 {
		return false, "no view was primary at " + timeline.Clock(x.start, x.at)
	}
	var views []string
	for _, v := range x.got {
		views = append(views, v.Names(x.names, " "))
	}
	return false, "the primary view at " + timeline.Clock(x.start, x.at) + " was " + strings.Join(views, " and ")
}
