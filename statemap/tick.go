package statemap

import (
	"fmt"
	"time"
)

// NextTick returns the first timekeeper tick strictly after t. Ticks fall at 10 s, 20 s, 30 s,
// ... of virtual time; t=0 is not a tick. Past the last tick a Duration holds, it is Never.
func NextTick(t time.Duration) time.Duration {
	if t < 0 {
		return TickInterval
	}
	k := t/TickInterval + 1
	if k > Never/TickInterval {
		return Never
	}
	return k * TickInterval
}

// Never is a time no replay reaches: the largest Duration.
const Never = time.Duration(1<<63 - 1)

// NthTick returns the n-th timekeeper tick strictly after t (n >= 1; NthTick(t, 1) is
// NextTick(t)), or Never when that tick lies past what a Duration holds.
func NthTick(t time.Duration, n int64) time.Duration {
	first := NextTick(t)
	if n < 1 {
		panic(fmt.Sprintf("statemap: NthTick(%v, %d)", t, n))
	}
	if n-1 > int64(Never-first)/int64(TickInterval) {
		return Never
	}
	return first + time.Duration(n-1)*TickInterval
}
