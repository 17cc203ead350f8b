package livereplay

import (
	"testing"
	"time"

	"github.com/failsim/failsim/monitor"
)

// A clock gap (the first the gap detector finds in monitor's TestGapDetector) is said in clock
// times from the timeline's start.
func TestDescribeGap(t *testing.T) {
	start := time.Date(2026, 1, 1, 21, 0, 0, 0, time.UTC)
	g := monitor.ClockGap{Planned: 20 * time.Second, Late: 12 * time.Second}
	if got := DescribeGap(start, g); got != "the runtime did not run for 12s of real time from 21:00:20: its own clock jumped past the instant it had planned" {
		t.Errorf("DescribeGap = %q", got)
	}
}
