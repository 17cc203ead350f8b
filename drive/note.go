package drive

import (
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
)

// noteFault tells the observers that node's link fault became f at time at. It is the one place
// the note is made; the note is reused, so making it allocates nothing.
func (d *Driver) noteFault(at time.Duration, node int, f fault.Fault) {
	if len(d.obs) == 0 {
		return
	}
	d.decided = true
	d.fault = act.FaultSet{At: at, Node: node, Fault: f}
	for _, o := range d.obs {
		o.Event(&d.fault)
	}
}
