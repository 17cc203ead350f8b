package drive

import (
	"time"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
)

// faultNote is the driver's note that node's link fault became f at time at: an event the
// engine never makes, for the observers' log. It is the one place the note is made.
func faultNote(at time.Duration, e *fence.Engine, node int, f fault.Fault) fence.Event {
	return fence.Event{At: at, Kind: fence.FaultInjected, Node: e.Node(node).Name, Detail: f.String()}
}
