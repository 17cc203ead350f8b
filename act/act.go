// Package act is the vocabulary of a run: what flows into it (the timed Action of a script, a
// probe's Outcome) and out of it (the Event stream its observers are told, and the Echo that
// marks an event as an input carried out, not a decision).
//
// It is raftpb to the core's RawNode: the engine (fence), the managers as a group (cluster),
// the replication model (repl), the scheduler (drive), the two adapters (sim, monitor) and
// everything that observes a run speak it, and nothing in it decides.
package act

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/statemap"
)

// DefaultInterval is the checker's default time between a node's probe starts: the manager's
// mgr_monitor_interval.
const DefaultInterval = 3 * time.Second

// Kind says what a timed Action does. The zero value is no kind: an Action must have one.
type Kind uint8

// The kinds of timed action.
const (
	SetFault    Kind = iota + 1 // the node's database link gets Fault: probes started from now on meet it
	ManagerDown                 // the node's manager stops: no probes, its probe under way is lost
	ManagerUp                   // the node's manager starts: a probe starts at once
	SetPolicy                   // the cluster's policy becomes Policy
	Recover                     // the operator returns the failed node to service
	End                         // nothing changes: a timeline's "cluster end", at Config.End, which is what ends the run
	Partition                   // the network becomes Segments (nil: one network again), the managers' only with ManagersOnly; needs the managers as a group
	HostDown                    // the member's host goes down: its database, its manager and its pings; needs the group
	HostUp                      // the member's host comes back: its manager starts unless it was stopped; needs the group
	Replicate                   // the world's replication changes as Repl says (a timeline's link, lag, stream or replicator event): the driver hands it to the adapter, the engine is not told
)

// String is the kind's name, for messages.
func (k Kind) String() string {
	switch k {
	case SetFault:
		return "fault"
	case ManagerDown:
		return "manager-down"
	case ManagerUp:
		return "manager-up"
	case SetPolicy:
		return "policy"
	case Recover:
		return "recover"
	case End:
		return "end"
	case Partition:
		return "partition"
	case HostDown:
		return "host-down"
	case HostUp:
		return "host-up"
	case Replicate:
		return "replicate"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Action is one timed step of a script: a timeline's event.
type Action struct {
	At     time.Duration // virtual time since the start
	Line   int           // the line of the file that states it, for messages; 0 for none. The driver does not read it
	Kind   Kind
	Node   int          // index of the node in the engine's cluster order (a witness follows the nodes); -1 for SetPolicy, End and Partition
	Fault  fault.Fault  // SetFault: the link's fault; the zero Fault heals it
	Policy fence.Policy // SetPolicy
	// Segments, for Partition: per member (nodes, then witnesses), the segment of the network
	// its host is on; nil heals the network into one.
	Segments []int
	// ManagersOnly, for Partition: only the managers' network splits as Segments say (the
	// Tungsten managers' group communication and host pings, Orchestrator's reads of the
	// databases); the databases' own traffic (the replicas' streams, the application's
	// connections) stays one network. False: both split alike, as a failed switch does.
	ManagersOnly bool
	// Repl, for Replicate: the replication model's input (repl.SetLag, SetApplyLag, SetStream
	// or SetReplicator) that the adapter makes real.
	Repl repl.Input
}

// Outcome is how a probe ends: its condition, and how long after its start it finishes (0: at
// once, counted at its start instant before the tick).
type Outcome struct {
	Condition statemap.Condition
	Took      time.Duration
}

// Event is what an observer of a run is told of, in order: a decision (of the engine, the
// group or the replication model), or an Echo of an input the run carried out. Every Event is
// a pointer to a struct; its maker may reuse it, so it is valid only during the observer's
// call: to keep one, copy the struct it points to (fence.Clone for an engine's decision). It is
// the one event type of the whole stream: fence, group, repl and cluster only declare When on
// their own.
type Event interface {
	// When is the virtual time since the start (t=0) at which it happened.
	When() time.Duration
}

// Echo marks an Event that is not a decision but an input carried out: a fault set on a link,
// a host that went down or came back, a partition, a timeline's replication event. Echoed
// gives back the action it carried out, so that a recorder can write a run's inputs back as
// timeline lines.
type Echo interface {
	Event
	Echoed() Action
}

// FaultSet is the driver's echo of a SetFault action: the fault on node Node's database link
// became Fault (fault.Heal for none) at At. The driver tells the observers of it at the script
// action that sets it, before the engine's decisions of that instant; a live replay's adapter,
// which sets the fault on the node's proxy, is told of it in drive.Work.Faults.
type FaultSet struct {
	At    time.Duration
	Node  int // index in the cluster's order
	Fault fault.Fault
}

// When implements Event.
func (f *FaultSet) When() time.Duration { return f.At }

// Echoed implements Echo.
func (f *FaultSet) Echoed() Action {
	return Action{At: f.At, Kind: SetFault, Node: f.Node, Fault: f.Fault}
}

// Replicated is an adapter's echo of a Replicate action: the replication input Input (a
// timeline's link, lag, stream or replicator event) was applied to the world's replication at
// At (the simulator's model, or a live replay's real servers).
type Replicated struct {
	At    time.Duration
	Input repl.Input
}

// When implements Event.
func (r *Replicated) When() time.Duration { return r.At }

// Echoed implements Echo.
func (r *Replicated) Echoed() Action {
	return Action{At: r.At, Kind: Replicate, Node: repl.EventNode(r.Input), Repl: r.Input}
}
