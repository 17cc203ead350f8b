package sweep

import (
	"time"

	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/timeline"
)

// Markers of a fatal trace's time to fence that is no time.
const (
	missed time.Duration = -1 // the master was never fenced
	early  time.Duration = -2 // the master was fenced before its fatal fault started
)

// watch is the observer of one replay: when the first node, the master, is first fenced.
type watch struct {
	at time.Duration // -1: not fenced
}

// replay replays tl under s and returns when its first master was fenced, -1 for never.
func (w *watch) replay(tl *timeline.Timeline, s Setting) time.Duration {
	w.at = -1
	t := *tl
	t.Interval, t.Timeout = s.Interval, s.Timeout
	sim.Replay(&t, s.Map, w)
	return w.at
}

// Event implements drive.Observer.
func (w *watch) Event(ev fence.Event) {
	if w.at >= 0 {
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
		w.at = at
	}
}

// Instant implements drive.Observer.
func (w *watch) Instant(time.Duration, *fence.Engine) {}
