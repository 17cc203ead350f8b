package drive

import (
	"time"

	"github.com/failsim/failsim/fault"
)

// FaultSet is the driver's note, not an engine decision: the fault on node Node's database link
// became Fault (fault.Heal for none) at At. The driver tells the observers of it, as a
// *FaultSet, at the script action that sets it, before the engine's decisions of that instant;
// a live replay's adapter, which sets the fault on the node's proxy, is told of it in
// Work.Faults. Like a decision, the pointer is valid only during the observer's call.
type FaultSet struct {
	At    time.Duration
	Node  int // index in the cluster's order
	Fault fault.Fault
}

// When implements fence.Event.
func (f *FaultSet) When() time.Duration { return f.At }

// noteFault tells the observers that node's link fault became f at time at. It is the one place
// the note is made; the note is reused, so making it allocates nothing.
func (d *Driver) noteFault(at time.Duration, node int, f fault.Fault) {
	if len(d.obs) == 0 {
		return
	}
	d.fault = FaultSet{At: at, Node: node, Fault: f}
	for _, o := range d.obs {
		o.Event(&d.fault)
	}
}
