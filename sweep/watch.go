package sweep

import (
	"time"

	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/fence"
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
}

// watch is the observer of one replay: when the first node, the master, is first fenced, and
// the replication model's summary when the trace has a workload.
type watch struct {
	out  outcome
	open bool          // a split-brain window is open
	from time.Duration // since when
}

// replay replays tl under s and returns what it says.
func (w *watch) replay(tl *timeline.Timeline, s Setting) outcome {
	w.out, w.open = outcome{at: -1}, false
	t := *tl
	t.Interval, t.Timeout = s.Interval, s.Timeout
	if s.Gap > 0 {
		t.GapThreshold = s.Gap
	}
	if s.Failsafe > 0 {
		t.FailsafeThreshold = s.Failsafe
	}
	sim.Replay(&t, s.Map, w)
	if w.open {
		// A window still open at the end counts up to the end.
		w.out.splitBrain += max(t.End-w.from, 0)
	}
	return w.out
}

// Event implements drive.Observer.
func (w *watch) Event(ev fence.Event) {
	if f, ok := ev.(repl.Final); ok && f.Workload {
		w.out.unavailable, w.out.lost = f.Summary.Unavailable, f.Summary.Lost
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

// Instant implements drive.Observer.
func (w *watch) Instant(time.Duration, *fence.Engine) {}
