package drive

import (
	"time"

	"github.com/failsim/failsim/statemap"
)

// isTick reports whether virtual time t is a timekeeper tick: 10 s, 20 s, ...; t=0 is not.
func isTick(t time.Duration) bool { return t > 0 && t%statemap.TickInterval == 0 }

// tickBefore returns the last timekeeper tick strictly before t, or 0 when there is none.
func tickBefore(t time.Duration) time.Duration {
	if t <= statemap.TickInterval {
		return 0
	}
	return (t - 1) / statemap.TickInterval * statemap.TickInterval
}

// resumeAt returns where a node's probe schedule resumes when the probes from the one starting
// at t are skipped, each taking took, up to limit: the start of the first probe that would
// finish after limit, exactly where it would have started had the skipped ones run (they start
// every max(interval, took): fence.NextProbeStart). ok is false when the probe starting at t
// itself finishes after limit: nothing is skipped.
func resumeAt(t, took, interval, limit time.Duration) (next time.Duration, ok bool) {
	if limit < t+took {
		return 0, false
	}
	step := max(interval, took)
	return t + ((limit-t-took)/step+1)*step, true
}
