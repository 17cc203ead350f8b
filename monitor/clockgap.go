package monitor

import (
	"time"

	"github.com/benbjohnson/clock"
)

// MinGap is the least real time a clock gap (ClockGap) lasts: a wake-up of the runtime this
// much later than planned, or later than one probe interval of real time if that is longer,
// means the runtime was not running (its process stopped, the machine overloaded) for about
// that long.
const MinGap = time.Second

// ClockGap is a stretch of real time in which the runtime did not run: it woke Late after the
// instant it had planned, Planned, in the timeline's virtual time (livereplay.DescribeGap says it).
type ClockGap struct {
	Planned time.Duration // virtual time since the start
	Late    time.Duration // real time
}

// gapDetector notices the runtime's clock jumping much further than the step it planned: the
// loop tells it each wake-up it plans (real time on clk) and each time it wakes; a wake-up
// later than planned by more than limit is a gap, and so is the loop's own work between a
// wake-up and the next plan taking longer than limit (a stop in the middle of it). It reads
// only the clock it is given.
type gapDetector struct {
	clk   clock.Clock
	limit time.Duration // real time
	t0    time.Time     // the run's start on clk
	speed float64       // virtual time per real time

	planned time.Time // the wake-up planned, zero for none
	busy    time.Time // when the loop last woke (t0 at the start): its work since then
	gaps    []ClockGap
}

// gapLimit is the lateness that makes a gap at speed for a probe interval (virtual time): the
// interval in real time, and at least MinGap.
func gapLimit(interval time.Duration, speed float64) time.Duration {
	return max(MinGap, time.Duration(float64(interval)/speed))
}

// plan notes the wake-up the loop plans, d of real time from now.
func (g *gapDetector) plan(d time.Duration) {
	now := g.clk.Now()
	if !g.busy.IsZero() {
		g.check(g.busy, now)
	}
	g.busy, g.planned = time.Time{}, now.Add(d)
}

// woke notes that the loop woke, for whatever reason: a result, a command or its timer.
func (g *gapDetector) woke() {
	now := g.clk.Now()
	if !g.planned.IsZero() {
		g.check(g.planned, now)
	}
	g.planned, g.busy = time.Time{}, now
}

// check notes a gap if from to now is longer than the limit.
func (g *gapDetector) check(from, now time.Time) {
	if late := now.Sub(from); late > g.limit {
		g.gaps = append(g.gaps, ClockGap{Planned: time.Duration(float64(from.Sub(g.t0)) * g.speed), Late: late})
	}
}
