package livereplay

import (
	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/monitor"
	"github.com/failsim/failsim/timeline"
)

// TimelineScript is timeline tl as a live run's script: its events as the driver's actions, in
// the simulator's order (a fault event calls inject, the proxy in a live replay, and is noted
// as the simulator notes it; manager, policy and recover events go to the engine), the instants
// its expectations look at (Timeline.Checkpoints), and its end.
func TimelineScript(tl *timeline.Timeline, inject func(node int, f fault.Fault)) monitor.Script {
	return monitor.Script{Actions: tl.Events, Inject: inject, Checkpoints: tl.Checkpoints(), End: tl.End}
}

// TimelineGroup is the managers' group of a live run of tl, as the simulator runs it
// (sim.Replay): made only when a manager stops with no majority left up, since the live
// replay refuses witnesses, liveness settings, partitions and host events (WireOnly).
func TimelineGroup(tl *timeline.Timeline) *cluster.Config {
	return &cluster.Config{Witnesses: len(tl.Witnesses), GapThreshold: tl.GapThreshold, FailsafeThreshold: tl.FailsafeThreshold}
}
