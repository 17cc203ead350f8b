package cluster

import (
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/group"
)

// The events a Cluster tells, besides the engine's decisions. Each is handed out as a pointer
// that stays valid until Cluster.Release, like the engine's decisions it tells (taken with
// fence.Engine.Take), so that a core can hand a step's events out at once (core.Core.Ready);
// members are named by index (database members as the engine's nodes, witnesses after them).

// ViewChanged: Members left the views of Managers after Count silent ticks (Left), or, out of
// their views, were heard again and joined them. A manager that stops or starts cleanly leaves
// or joins every view at once; that is its "manager down|up" event, not one of these.
type ViewChanged struct {
	At       time.Duration
	Members  group.Set
	Managers group.Set
	Left     bool
	Count    int // silent ticks, when Left
}

// QuorumChanged: the managers Managers, who share one view, concluded their quorum check anew:
// Digest is the check (one of theirs: the same view, validated members and rule), with the
// counts the manager logs. Told when a manager's conclusion (its rule) changes, except a
// manager that starts into a primary view.
type QuorumChanged struct {
	At       time.Duration
	Managers group.Set
	Digest   group.Digest
}

// HostPingFailed: coordinator Coordinator host-pinged database member Member, missing from its
// view, and the host did not answer: Member is host-failed (the engine's decisions follow).
type HostPingFailed struct {
	At          time.Duration
	Coordinator int
	Member      int
	Count       int // the silent ticks after which Member left Coordinator's view; 0 when not known
}

// SplitBrain: a split-brain window opened (Open: two or more nodes, Writable, take writes at
// once) or closed (every node that was writable in the window, and From, when it opened). A
// window that opens and closes at one instant is told, with a length of zero.
type SplitBrain struct {
	At       time.Duration
	Open     bool
	Writable group.Set
	From     time.Duration
}

// SplitBrainWidened: a node not yet writable in the open split-brain window, opened at From,
// became writable while it stayed open; Writable is every node writable in the window so far.
type SplitBrainWidened struct {
	At       time.Duration
	Writable group.Set
	From     time.Duration
}

// GroupState is a note of how the group stands, told whenever the primary views change:
// Primary are the primary views (in the order of their first members), Sides the views of all
// the sides, Majority the simple majority size. It is no line of an event log: observers keep
// it to report the final primary view and to judge "primary" expectations. Its slices are the
// teller's, valid until Release like the rest of it: copy them to keep them.
type GroupState struct {
	At       time.Duration
	Primary  []group.Set
	Sides    []group.Set
	Majority int
}

// When implements act.Event.
func (e *ViewChanged) When() time.Duration { return e.At }

// When implements act.Event.
func (e *QuorumChanged) When() time.Duration { return e.At }

// When implements act.Event.
func (e *HostPingFailed) When() time.Duration { return e.At }

// When implements act.Event.
func (e *SplitBrain) When() time.Duration { return e.At }

// When implements act.Event.
func (e *SplitBrainWidened) When() time.Duration { return e.At }

// When implements act.Event.
func (e *GroupState) When() time.Duration { return e.At }

// HostChanged: member Member's host went down (Down) or came back, as the script said. The
// engine's "manager down|up" for it follows.
type HostChanged struct {
	At     time.Duration
	Member int
	Down   bool
}

// Partitioned: the network became Segments (per member, its segment), or one network again
// (Segments nil), as the script said; with ManagersOnly only the managers' network did, and
// the databases' traffic stays one network (act.Action.ManagersOnly).
type Partitioned struct {
	At           time.Duration
	Segments     []int
	ManagersOnly bool
}

// When implements act.Event.
func (e *HostChanged) When() time.Duration { return e.At }

// When implements act.Event.
func (e *Partitioned) When() time.Duration { return e.At }

// Echoed implements act.Echo: the host action the script carried out.
func (e *HostChanged) Echoed() act.Action {
	a := act.Action{At: e.At, Kind: act.HostUp, Node: e.Member}
	if e.Down {
		a.Kind = act.HostDown
	}
	return a
}

// Echoed implements act.Echo: the partition the script carried out.
func (e *Partitioned) Echoed() act.Action {
	return act.Action{At: e.At, Kind: act.Partition, Node: -1, Segments: e.Segments, ManagersOnly: e.ManagersOnly}
}
