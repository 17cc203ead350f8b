package sim

import (
	"time"

	"github.com/failsim/failsim/fault"
)

// FaultSet is a driver's note, not an engine decision: the fault on node Node's database link
// became Fault (fault.Heal for none) at At. The replay tells the observers of it, as a
// *FaultSet, at the timeline event that sets it, before the engine's decisions of that instant;
// a live replay does the same when it sets the fault on the node's proxy. Like a decision, the
// pointer is valid only during the observer's call.
type FaultSet struct {
	At    time.Duration
	Node  int // index in Timeline.Nodes
	Fault fault.Fault
}

// When implements fence.Event.
func (f *FaultSet) When() time.Duration { return f.At }
