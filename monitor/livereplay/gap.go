package livereplay

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/monitor"
	"github.com/failsim/failsim/timeline"
)

// DescribeGap says when the runtime stopped running and for how long, in clock times from
// start (the timeline's): a note of a run that was not exercised throughout.
func DescribeGap(start time.Time, g monitor.ClockGap) string {
	return fmt.Sprintf("the runtime did not run for %v of real time from %s: its own clock jumped past the instant it had planned",
		g.Late.Round(time.Millisecond), timeline.Clock(start, g.Planned.Round(time.Millisecond)))
}
