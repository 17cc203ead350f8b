package expect

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/timeline"
)

// noMaster holds when, at some moment within the window, no node is master in service: the
// master was failed and no replica promoted. The engine is read at the end of each instant;
// the window's start is a checkpoint, so the state carried into the window counts.
type noMaster struct {
	start  time.Time
	win    timeline.Window
	looked bool
	hit    bool
}

// Event implements drive.Observer.
func (x *noMaster) Event(act.Event) {}

// Instant implements drive.InstantObserver.
func (x *noMaster) Instant(at time.Duration, e fence.View) {
	if x.hit || !x.win.Holds(at) {
		return
	}
	x.looked = true
	x.hit = e.Master() < 0
}

// Verdict implements Expectation.
func (x *noMaster) Verdict() (bool, string) {
	switch {
	case x.hit:
		return true, ""
	case !x.looked:
		return false, "the replay ended before the window"
	}
	why := "a master was in service all along"
	switch w := x.win; {
	case w.HasAfter && w.HasBy:
		why += fmt.Sprintf(" from %s to %s", timeline.Clock(x.start, w.After), timeline.Clock(x.start, w.By))
	case w.HasAfter:
		why += " from " + timeline.Clock(x.start, w.After)
	case w.HasBy:
		why += " until " + timeline.Clock(x.start, w.By)
	}
	return false, why
}
