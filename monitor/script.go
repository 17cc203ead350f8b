package monitor

import (
	"slices"
	"time"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/sim"
)

// TimelineScript is timeline tl as a live run's script: its events as the driver's actions, in
// the simulator's order (a fault event calls inject, the proxy in a live replay, and is noted
// as the simulator notes it; manager, policy and recover events go to the engine), the instants
// its expectations look at, and its end.
func TimelineScript(tl *sim.Timeline, inject func(node int, f fault.Fault)) Script {
	return Script{Actions: tl.Events, Inject: inject, Checkpoints: Checkpoints(tl), End: tl.End}
}

// Checkpoints returns the instants the timeline's expectations look at, sorted.
func Checkpoints(tl *sim.Timeline) []time.Duration {
	var cps []time.Duration
	for _, x := range tl.Expects {
		cps = append(cps, x.Checkpoints()...)
	}
	slices.Sort(cps)
	return cps
}
