package sweep

import (
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/group"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/timeline"
)

// Markers of a fatal trace's time to fence that is no time.
const (
	missed time.Duration = -1 // the master was never fenced
	early  time.Duration = -2 // the master was fenced before its fatal fault started
)

// outcome is what one replay of a trace says: when its first master was first fenced (-1 for
// never), and with a workload the client's view at the end: the time its failed writes stand
// for and the acknowledged writes lost.
type outcome struct {
	at          time.Duration
	unavailable time.Duration
	lost        int64
	splitBrain  time.Duration // two or more nodes writable at once, in all (cluster.SplitBrain)
	// With group set (partition traces): the time some primary view's copy of the cluster's
	// state named no master in service, in all, and whether one named none at the end.
	noWriter      time.Duration
	noWriterAtEnd bool
}

// watch is the observer of one replay, and one worker's replayer: when the first node, the master, is first fenced, and
// the replication model's summary when the trace has a workload.
type watch struct {
	sim   sim.Replayer // one a worker, reusing the space of its last replay (the replication model's)
	fresh bool         // replay through sim.Replay instead (Config.fresh)
	out   outcome
	open  bool          // a split-brain window is open
	from  time.Duration // since when

	// group: look at the primary views at every instant (partition traces only: the looking
	// costs a little at every instant).
	group   bool
	nodes   int
	primary []group.Set   // the primary views the group last told
	lacking bool          // at the last instant looked at, a primary view had no writer
	last    time.Duration // that instant
}

// replay replays tl under s and returns what it says.
func (w *watch) replay(tl *timeline.Timeline, s Setting) outcome {
	w.out, w.open = outcome{at: -1}, false
	if w.group {
		var all group.Set // the primary view at the start: every member
		for m := range len(tl.Nodes) + len(tl.Witnesses) {
			all = all.With(m)
		}
		w.nodes, w.primary, w.lacking, w.last = len(tl.Nodes), append(w.primary[:0], all), false, 0
	}
	t := *tl
	t.Interval, t.Timeout = s.Interval, s.Timeout
	if s.Gap > 0 {
		t.GapThreshold = s.Gap
	}
	if s.Failsafe > 0 {
		t.FailsafeThreshold = s.Failsafe
	}
	if w.fresh {
		sim.Replay(&t, s.Map, w)
	} else {
		w.sim.Replay(&t, s.Map, w)
	}
	if w.open {
		// A window still open at the end counts up to the end.
		w.out.splitBrain += max(t.End-w.from, 0)
	}
	if w.group && w.lacking {
		w.out.noWriter += max(t.End-w.last, 0)
		w.out.noWriterAtEnd = true
	}
	return w.out
}

// Event implements drive.Observer.
func (w *watch) Event(ev act.Event) {
	if f, ok := ev.(*repl.Final); ok && f.Workload {
		w.out.unavailable, w.out.lost = f.Summary.Unavailable, f.Summary.Lost
		return
	}
	if gs, ok := ev.(*cluster.GroupState); ok {
		if w.group {
			w.primary = append(w.primary[:0], gs.Primary...)
		}
		return
	}
	if sb, ok := ev.(*cluster.SplitBrain); ok {
		if sb.Open {
			w.open, w.from = true, sb.At
		} else {
			w.open = false
			w.out.splitBrain += sb.At - sb.From
		}
		return
	}
	if w.out.at >= 0 {
		return
	}
	switch ev := ev.(type) {
	case *fence.Failover:
		w.fenced(ev.At, ev.Node)
	case *fence.NoCandidate:
		w.fenced(ev.At, ev.Node)
	case *fence.NodeFailed:
		if ev.Role == fence.Master {
			w.fenced(ev.At, ev.Node)
		}
	}
}

func (w *watch) fenced(at time.Duration, node int) {
	if node == 0 {
		w.out.at = at
	}
}

// Instant implements drive.Observer: with group set, it counts the time since the last instant
// if a primary view lacked a writer then, and looks again.
func (w *watch) Instant(at time.Duration, e fence.View) {
	if !w.group {
		return
	}
	if w.lacking {
		w.out.noWriter += at - w.last
	}
	w.last, w.lacking = at, false
	for _, v := range w.primary {
		writer := false
		for i := range v.All() {
			if i < w.nodes && e.MasterOf(i) >= 0 {
				writer = true
				break
			}
		}
		if !writer {
			w.lacking = true
			return
		}
	}
}
