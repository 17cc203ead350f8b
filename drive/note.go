package drive

import (
	"time"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
)

// noteFault tells the observers that node's link fault became f at time at: the driver's note,
// an event the engine never makes, for the observers' log. It is the one place the note is
// made.
func (d *Driver) noteFault(at time.Duration, node int, f fault.Fault) {
	if len(d.obs) == 0 {
		return
	}
	ev := fence.Event{At: at, Kind: fence.FaultInjected, Node: d.e.Node(node).Name, Detail: f.String()}
	for _, o := range d.obs {
		o.Event(ev)
	}
}
