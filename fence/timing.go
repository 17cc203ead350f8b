package fence

import (
	"time"

	"github.com/failsim/failsim/statemap"
)

// NextTick returns the first timekeeper tick strictly after t. Ticks fall at 10 s, 20 s, 30 s,
// ... of virtual time; t=0 is not a tick.
func NextTick(t time.Duration) time.Duration {
	if t < 0 {
		return statemap.TickInterval
	}
	return (t/statemap.TickInterval + 1) * statemap.TickInterval
}

// NextProbeStart returns when a node's next probe starts: interval after the previous one
// started, or as soon as it finished if that is later. One node's probes never overlap.
func NextProbeStart(started, finished, interval time.Duration) time.Duration {
	return max(started+interval, finished)
}
