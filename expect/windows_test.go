package expect_test

import (
	"testing"
	"time"

	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/group"
)

// TestWindowNamesEveryWriter: a split-brain window names every node writable in it, whether it
// closed (the close names them) or is still open at the end (the widening named them).
func TestWindowNamesEveryWriter(t *testing.T) {
	const s = time.Second
	var w expect.Windows
	w.Event(&cluster.SplitBrain{At: 10 * s, Open: true, Writable: group.SetOf(0).With(1)})
	w.Event(&cluster.SplitBrainWidened{At: 30 * s, Writable: group.SetOf(0).With(1).With(3), From: 10 * s})
	got := w.Closed(60 * s)
	if len(got) != 1 || got[0].Nodes != group.SetOf(0).With(1).With(3) || got[0].From != 10*s || got[0].To != 60*s {
		t.Fatalf("open window at the end = %+v, want nodes 0 1 3 from 10s to 60s", got)
	}
	w.Event(&cluster.SplitBrain{At: 65 * s, Writable: group.SetOf(0).With(1).With(3), From: 10 * s})
	w.Event(&cluster.SplitBrainWidened{At: 70 * s, Writable: group.SetOf(2)}) // no window open: nothing
	got = w.Closed(80 * s)
	if len(got) != 1 || got[0].Nodes != group.SetOf(0).With(1).With(3) || got[0].To != 65*s {
		t.Fatalf("closed window = %+v, want nodes 0 1 3 from 10s to 65s", got)
	}
}

// TestTouchingWindowsCountApart: a window that closes at the instant another opens is a window
// of its own; the total adds their lengths, and a zero-length window counts as one.
func TestTouchingWindowsCountApart(t *testing.T) {
	const s = time.Second
	var w expect.Windows
	w.Event(&cluster.SplitBrain{At: 10 * s, Open: true, Writable: group.SetOf(0).With(1)})
	w.Event(&cluster.SplitBrain{At: 30 * s, Writable: group.SetOf(0).With(1), From: 10 * s})
	w.Event(&cluster.SplitBrain{At: 30 * s, Open: true, Writable: group.SetOf(1).With(2)})
	w.Event(&cluster.SplitBrain{At: 45 * s, Writable: group.SetOf(1).With(2), From: 30 * s})
	w.Event(&cluster.SplitBrain{At: 50 * s, Open: true, Writable: group.SetOf(0).With(2)})
	w.Event(&cluster.SplitBrain{At: 50 * s, Writable: group.SetOf(0).With(2), From: 50 * s})
	got := w.Closed(60 * s)
	if len(got) != 3 || expect.Total(got) != 35*s {
		t.Fatalf("windows %+v, total %v; want 3 windows, 35s", got, expect.Total(got))
	}
}
