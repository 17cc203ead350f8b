package monitor

import (
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/timeline"
)

// timelineScript is timeline tl as a run's script, as livereplay.TimelineScript makes it (the
// adapter knows no timeline, so its tests make their own): its events as the driver's
// actions, inject for its faults, the instants its expectations look at, and its end.
func timelineScript(tl *timeline.Timeline, inject func(node int, f fault.Fault)) Script {
	return Script{Actions: tl.Events, Inject: inject, Checkpoints: tl.Checkpoints(), End: tl.End}
}
