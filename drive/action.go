package drive

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
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
	Partition                   // the managers' network becomes Segments (nil: one network again); needs Config.Group
	HostDown                    // the member's host goes down: its database, its manager and its pings; needs Config.Group
	HostUp                      // the member's host comes back: its manager starts unless it was stopped; needs Config.Group
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
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Action is one timed step of a script: a timeline's event.
type Action struct {
	At     time.Duration // virtual time since the start
	Line   int           // the line of the file that states it, for messages; 0 for none. The driver does not read it
	Kind   Kind
	Node   int          // index of the node in the engine's cluster order (a witness follows the nodes: cluster.Config); -1 for SetPolicy, End and Partition
	Fault  fault.Fault  // SetFault: the link's fault; the zero Fault heals it
	Policy fence.Policy // SetPolicy
	// Segments, for Partition: per member (nodes, then witnesses), the segment of the network
	// its host is on; nil heals the network into one.
	Segments []int
}

// Outcome is how a probe ends: its condition, and how long after its start it finishes (0: at
// once, counted at its start instant before the tick).
type Outcome struct {
	Condition statemap.Condition
	Took      time.Duration
}
