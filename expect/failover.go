package expect

import (
	"fmt"
	"strings"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/timeline"
)

// failover holds when a failover matching of and to happens within the window: a replica is
// promoted. A master failed with no replica eligible is no failover.
type failover struct {
	start    time.Time
	names    []string
	from, to int // node indices; -1 for any
	win      timeline.Window
	got      []fence.Failover
	none     []fence.NoCandidate // masters failed with no replica eligible
	match    bool
}

// Event implements drive.Observer.
func (x *failover) Event(ev act.Event) {
	switch ev := ev.(type) {
	case *fence.NoCandidate:
		x.none = append(x.none, *ev)
	case *fence.Failover:
		x.got = append(x.got, *ev)
		if (x.from < 0 || ev.Node == x.from) && (x.to < 0 || ev.To == x.to) && x.win.Holds(ev.At) {
			x.match = true
		}
	}
}

// Verdict implements Expectation: when none matched, the failovers that happened, and the
// masters failed with none eligible.
func (x *failover) Verdict() (bool, string) {
	if x.match {
		return true, ""
	}
	var none []string
	for _, ev := range x.none {
		none = append(none, fmt.Sprintf("master %s failed at %s and no replica was eligible", x.names[ev.Node], timeline.Clock(x.start, ev.At)))
	}
	if len(x.got) == 0 {
		if len(none) > 0 {
			return false, "no failover happened: " + strings.Join(none, "; ")
		}
		return false, "no failover happened"
	}
	var seen []string
	for _, ev := range x.got {
		seen = append(seen, fmt.Sprintf("%s to %s at %s", x.names[ev.Node], x.names[ev.To], timeline.Clock(x.start, ev.At)))
	}
	why := "the failovers were " + strings.Join(seen, "; ")
	if len(none) > 0 {
		why += "; and " + strings.Join(none, "; ")
	}
	return false, why
}
