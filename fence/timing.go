package fence

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/statemap"
)

// NextTick returns the first timekeeper tick strictly after t. Ticks fall at 10 s, 20 s, 30 s,
// ... of virtual time; t=0 is not a tick. Past the last tick a Duration holds, it is Never.
func NextTick(t time.Duration) time.Duration {
	if t < 0 {
		return statemap.TickInterval
	}
	k := t/statemap.TickInterval + 1
	if k > Never/statemap.TickInterval {
		return Never
	}
	return k * statemap.TickInterval
}

// Never is a time no replay reaches: the largest Duration.
const Never = time.Duration(1<<63 - 1)

// NthTick returns the n-th timekeeper tick strictly after t (n >= 1; NthTick(t, 1) is
// NextTick(t)), or Never when that tick lies past what a Duration holds.
func NthTick(t time.Duration, n int64) time.Duration {
	first := NextTick(t)
	if n < 1 {
		panic(fmt.Sprintf("fence: NthTick(%v, %d)", t, n))
	}
	if n-1 > int64(Never-first)/int64(statemap.TickInterval) {
		return Never
	}
	return first + time.Duration(n-1)*statemap.TickInterval
}

// NextProbeStart returns when a node's next probe starts: interval after the previous one
// started, or as soon as it finished if that is later. One node's probes never overlap.
func NextProbeStart(started, finished, interval time.Duration) time.Duration {
	return max(started+interval, finished)
}
