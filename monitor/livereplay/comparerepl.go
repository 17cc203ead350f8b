package livereplay

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// CompareReplication judges the client's view of a live run (live, its writes summarized, and
// liveLost, the acknowledged writes missing from the final master) against the simulated one,
// in which the engine made failovers failovers: they agree when the lost writes differ by at
// most one deadline's worth of writes at rate, the longest outages by at most one tick (10 s),
// and the unavailable time by at most one deadline plus one tick per simulated failover (each
// failover may come a tick apart live, as Compare allows), the failed writes by at most that
// time's worth of writes. It returns the two views side by side, then one line per judgement
// ("agree ..." or "DIFFER ..."), and whether all agree. Times are clock times from start, live
// ones to the millisecond.
func CompareReplication(start time.Time, simulated, live repl.Summary, liveLost int64, rate repl.Rate, deadline time.Duration, failovers int) ([]string, bool) {
	row := func(who string, s repl.Summary, lost int64) string {
		o := "none"
		if s.Outage.Length() > 0 {
			o = fmt.Sprintf("%v (%s to %s)", s.Outage.Length().Round(time.Millisecond),
				timeline.Clock(start, s.Outage.From.Round(time.Millisecond)), timeline.Clock(start, s.Outage.To.Round(time.Millisecond)))
		}
		return fmt.Sprintf("%-9s  offered %d, acknowledged %d, failed %d, lost %d; longest outage %s; unavailable %v",
			who, s.Offered, s.Acknowledged, s.Failed, lost, o, s.Unavailable.Round(time.Millisecond))
	}
	out := []string{row("simulated", simulated, simulated.Lost), row("live", live, liveLost)}
	ok := true
	judge := func(agree bool, what string) {
		verdict := "agree  "
		if !agree {
			verdict, ok = "DIFFER ", false
		}
		out = append(out, verdict+" "+what)
	}
	slack := rate.Count(0, deadline)
	d := liveLost - simulated.Lost
	judge(d <= slack && d >= -slack, fmt.Sprintf("lost writes: live %d, simulated %d (within %d, one deadline's worth)", liveLost, simulated.Lost, slack))
	od := live.Outage.Length() - simulated.Outage.Length()
	judge(od <= statemap.TickInterval && od >= -statemap.TickInterval, fmt.Sprintf("longest outage: live %v, simulated %v (within one tick)",
		live.Outage.Length().Round(time.Millisecond), simulated.Outage.Length()))
	span := deadline + time.Duration(failovers)*statemap.TickInterval
	within := "one deadline"
	if failovers > 0 {
		within += fmt.Sprintf(" and %d tick", failovers)
		if failovers > 1 {
			within += "s"
		}
	}
	fs := rate.Count(0, span)
	fd := live.Failed - simulated.Failed
	judge(fd <= fs && fd >= -fs, fmt.Sprintf("failed writes: live %d, simulated %d (within %d, %s's worth)", live.Failed, simulated.Failed, fs, within))
	ud := live.Unavailable - simulated.Unavailable
	judge(ud <= span && ud >= -span, fmt.Sprintf("unavailable: live %v, simulated %v (within %v, %s)",
		live.Unavailable.Round(time.Millisecond), simulated.Unavailable, span, within))
	return out, ok
}
