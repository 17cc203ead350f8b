package monitor

import (
	"slices"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
)

// The gap detector, fed a mock clock's values: a wake-up on time or early is no gap, one later
// than planned by more than its limit is, with the virtual instant it had planned and how late
// it woke, and so is the loop's own work taking longer than the limit between a wake-up and
// the next plan; the limit is a probe interval of real time, at least MinGap.
func TestGapDetector(t *testing.T) {
	if got := gapLimit(3*time.Second, 10); got != MinGap {
		t.Errorf("gapLimit(3s, 10x) = %v, want MinGap", got)
	}
	if got := gapLimit(3*time.Second, 1); got != 3*time.Second {
		t.Errorf("gapLimit(3s, 1x) = %v, want 3s", got)
	}
	clk := clock.NewMock()
	g := gapDetector{clk: clk, limit: time.Second, t0: clk.Now(), speed: 10, busy: clk.Now()}
	step := func(planned, took time.Duration) {
		g.plan(planned)
		clk.Add(took)
		g.woke()
	}
	step(300*time.Millisecond, 300*time.Millisecond)                // on time
	step(300*time.Millisecond, 100*time.Millisecond)                // early: a probe's result woke it
	step(300*time.Millisecond, 300*time.Millisecond+time.Second)    // late by exactly the limit: no gap
	step(300*time.Millisecond, 300*time.Millisecond+12*time.Second) // stopped for 12 s
	g.woke()                                                        // a wake-up with none planned
	step(20*time.Millisecond, 4*time.Second)                        // stopped for about 4 s
	clk.Add(2 * time.Second)                                        // stopped in the loop's own work, after it woke
	step(20*time.Millisecond, 20*time.Millisecond)
	want := []ClockGap{{Planned: 20 * time.Second, Late: 12 * time.Second}, {Planned: 140*time.Second + 200*time.Millisecond, Late: 3980 * time.Millisecond},
		{Planned: 180 * time.Second, Late: 2 * time.Second}}
	if !slices.Equal(g.gaps, want) {
		t.Fatalf("gaps %+v, want %+v", g.gaps, want)
	}
}
