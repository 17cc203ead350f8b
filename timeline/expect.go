package timeline

import (
	"slices"
	"time"

	"github.com/failsim/failsim/propspec"
)

// ExpectKind says what an expect statement states.
type ExpectKind uint8

// The kinds of expect statement.
const (
	// ExpectNoFailover: "expect no failover": no replica is promoted.
	ExpectNoFailover ExpectKind = iota + 1
	// ExpectFailover: "expect failover [of NODE] [to NODE] [after TIME] [by TIME]": a replica
	// is promoted, as Node and To say, within Window.
	ExpectFailover
	// ExpectNoMaster: "expect no master [after TIME] [by TIME]": at some moment within Window no
	// node is master in service.
	ExpectNoMaster
	// ExpectFailed: "expect NODE failed [after TIME] [by TIME]": Node is fenced within Window.
	ExpectFailed
	// ExpectNeverFailed: "expect NODE never failed".
	ExpectNeverFailed
	// ExpectAt: "expect NODE STATE|ROLE at TIME": Node shows state Want, or has role Want, at At.
	ExpectAt
	// ExpectProperty: "expect property NAME [ARG]": Property holds over the replay.
	ExpectProperty
	// ExpectOutage: "expect outage at most DURATION": the longest run with no acknowledged
	// write lasts at most Max. Needs a workload.
	ExpectOutage
	// ExpectUnavailable: "expect unavailable at most DURATION": the failed writes at the
	// workload's rate stand for at most Max. Needs a workload.
	ExpectUnavailable
	// ExpectLostWrites: "expect lost writes N" (exactly Count) or "expect lost writes at most
	// N" (AtMost): acknowledged writes lost at failovers. Needs a workload.
	ExpectLostWrites
	// ExpectShunned: "expect NODE shunned [after TIME] [by TIME]": Node is shunned within
	// Window, either way: its own manager shuns its datasource (FAILSAFE-SHUN), or, a master,
	// it is failed (failed over, with no candidate, or under manual policy).
	ExpectShunned
	// ExpectSplitBrain: "expect split-brain at most DURATION", "expect no split-brain" (Max
	// 0): the split-brain windows, two or more nodes writable at once, last at most Max in all.
	ExpectSplitBrain
	// ExpectPrimary: "expect primary MEMBER... at TIME": at At some primary view is exactly
	// Members; "expect no primary at TIME" (Members nil): no view is primary at At.
	ExpectPrimary
)

// Expect is one "expect" statement of a timeline, as data: what it states, never a judgement
// of a replay. Package expect makes a fresh observer of it for each replay, so a parsed timeline
// can be replayed any number of times. The fields a kind does not use are zero, but for Node
// and To, which are -1.
type Expect struct {
	Line int    // the line that states it
	Text string // the statement as written: "expect" and its words, single-spaced
	Kind ExpectKind
	// Node is the node the statement is about: failover's "of", or the NODE of failed, never
	// failed and at, as an index in cluster order; -1 for failover of any node.
	Node int
	// To is failover's "to": the node promoted, -1 for any.
	To int
	// Window is the span of failover, no master and failed.
	Window Window
	// At is the time of ExpectAt, since the start.
	At time.Duration
	// Want is ExpectAt's state (online, stopped, timeout, suspect, unknown) or role (master,
	// replica, failed), as written.
	Want string
	// Property is ExpectProperty's property, checked.
	Property propspec.Spec
	// Max is ExpectOutage's and ExpectUnavailable's bound, and ExpectSplitBrain's bound on the
	// windows' total length.
	Max time.Duration
	// Count is ExpectLostWrites' count; AtMost says it is a bound, not the exact count.
	Count  int64
	AtMost bool
	// Members is ExpectPrimary's view: member indices in the group (nodes, then witnesses),
	// ascending; nil for "no primary".
	Members []int
}

// Window is an inclusive span of virtual time, [After, By]; a bound not given is open.
type Window struct {
	After, By       time.Duration
	HasAfter, HasBy bool
}

// Holds reports whether time t is within the window.
func (w Window) Holds(t time.Duration) bool {
	return (!w.HasAfter || t >= w.After) && (!w.HasBy || t <= w.By)
}

// Checkpoints returns the instants a replay must stop at for the expectation to look at the
// cluster: "at"'s time, and the start of no master's window (the state carried into it counts).
func (x Expect) Checkpoints() []time.Duration {
	switch x.Kind {
	case ExpectAt, ExpectPrimary:
		return []time.Duration{x.At}
	case ExpectNoMaster:
		return []time.Duration{x.Window.After} // 0 when the window has no start
	}
	return nil
}

// Checkpoints returns the instants the timeline's expectations look at, sorted: what a replay
// tells its observers of besides the instants at which something is decided.
func (tl *Timeline) Checkpoints() []time.Duration {
	var cps []time.Duration
	for _, x := range tl.Expects {
		cps = append(cps, x.Checkpoints()...)
	}
	slices.Sort(cps)
	return cps
}
