package expect

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// at holds when the node shows the state, or has the role, at a time: the engine is read at
// the end of that instant, a checkpoint of the replay.
type at struct {
	node    int
	name    string
	at      time.Duration
	want    string
	isState bool // want is a datasource state; else a role
	got     string
	looked  bool
}

func newAt(x timeline.Expect, name string) *at {
	_, isState := statemap.ParseState(x.Want)
	return &at{node: x.Node, name: name, at: x.At, want: x.Want, isState: isState}
}

// Event implements drive.Observer.
func (x *at) Event(act.Event) {}

// Instant implements drive.InstantObserver.
func (x *at) Instant(t time.Duration, e fence.View) {
	if t != x.at {
		return
	}
	v := e.Node(x.node)
	if x.isState {
		x.got = v.State.String()
	} else {
		x.got = v.RoleName()
	}
	x.looked = true
}

// Verdict implements Expectation.
func (x *at) Verdict() (bool, string) {
	if !x.looked {
		return false, "the replay ended before that time"
	}
	if x.got == x.want {
		return true, ""
	}
	return false, fmt.Sprintf("%s was %s", x.name, x.got)
}
