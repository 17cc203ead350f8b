package expect

import (
	"strings"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/timeline"
)

// failed holds when the node is fenced (failed, failed over, or failed with no replica
// eligible) within the window, or, with never, when it is never fenced.
type failed struct {
	start time.Time
	node  int
	name  string
	never bool
	win   timeline.Window
	got   []time.Duration
	match bool
}

// Event implements drive.Observer.
func (x *failed) Event(ev act.Event) {
	node := -1
	switch ev := ev.(type) {
	case *fence.NodeFailed:
		node = ev.Node
	case *fence.Failover:
		node = ev.Node
	case *fence.NoCandidate:
		node = ev.Node
	}
	if node != x.node {
		return
	}
	at := ev.When()
	x.got = append(x.got, at)
	if x.win.Holds(at) {
		x.match = true
	}
}

// Verdict implements Expectation.
func (x *failed) Verdict() (bool, string) {
	var when []string
	for _, t := range x.got {
		when = append(when, timeline.Clock(x.start, t))
	}
	if x.never {
		if len(x.got) == 0 {
			return true, ""
		}
		return false, x.name + " was failed at " + strings.Join(when, ", ")
	}
	if x.match {
		return true, ""
	}
	if len(x.got) == 0 {
		return false, x.name + " was never failed"
	}
	return false, x.name + " was failed at " + strings.Join(when, ", ") + ", outside the window"
}
