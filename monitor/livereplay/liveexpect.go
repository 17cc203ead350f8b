package livereplay

import (
	"fmt"

	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// LiveExpectations judges a timeline's expect lines over a live run, with the live tolerance
// of one tick (statemap.TickInterval) where an expectation has a time window:
//   - failover, failed, shunned and no master within a window (something happens in it): the
//     window is widened by one tick on each side;
//   - no failover, never failed (neither has a window), a state or role at a time, split brain, a
//     primary view and a property: judged as the simulated replay judges them (a state or role
//     at the instant the line names);
//   - an outage, unavailable time or lost writes (the client's view): not judged live; a live
//     replay with a workload compares the client's view with the simulated one instead, within
//     its own tolerance.
//
// Its Observer must be told the live run's events and instants (the run stops at the
// timeline's checkpoints, as TimelineScript's does).
type LiveExpectations struct {
	set     *expect.Set
	n       int                   // the timeline's expectations
	skipped map[int]expect.Result // by index in the timeline's: not judged live, Why the reason
}

// NewLiveExpectations makes the live judgement of tl's expectations under m.
func NewLiveExpectations(tl *timeline.Timeline, m *statemap.Map) *LiveExpectations {
	l := &LiveExpectations{n: len(tl.Expects), skipped: map[int]expect.Result{}}
	judged := *tl
	judged.Expects = nil
	for i, x := range tl.Expects {
		x, why := liveExpect(x)
		if why != "" {
			l.skipped[i] = expect.Result{Line: x.Line, Text: x.Text, Why: why}
			continue
		}
		judged.Expects = append(judged.Expects, x)
	}
	l.set = expect.NewSet(&judged, m)
	return l
}

// liveExpect is x as judged live, or why it is not.
func liveExpect(x timeline.Expect) (timeline.Expect, string) {
	tick := statemap.TickInterval
	switch x.Kind {
	case timeline.ExpectFailover, timeline.ExpectFailed, timeline.ExpectShunned, timeline.ExpectNoMaster:
		if x.Window.HasAfter {
			x.Window.After = max(0, x.Window.After-tick)
		}
		if x.Window.HasBy {
			x.Window.By += tick
		}
	case timeline.ExpectOutage, timeline.ExpectUnavailable, timeline.ExpectLostWrites:
		return x, "not judged live: the client's view is compared with the simulated one instead"
	}
	return x, ""
}

// Observer is what the live run must tell.
func (l *LiveExpectations) Observer() drive.Observer { return l.set }

// Results are the verdicts, in timeline order: the judged ones, and the ones not judged live
// (Held false, Skipped true).
func (l *LiveExpectations) Results() []ExpectResult {
	judged := l.set.Results()
	out := make([]ExpectResult, 0, l.n)
	for i := range l.n {
		if r, ok := l.skipped[i]; ok {
			out = append(out, ExpectResult{Result: r, Skipped: true})
			continue
		}
		out = append(out, ExpectResult{Result: judged[0]})
		judged = judged[1:]
	}
	return out
}

// ExpectResult is one expectation's verdict live.
type ExpectResult struct {
	expect.Result
	Skipped bool `json:"skipped,omitempty"` // not judged live; Why says why
}

// ExpectationLines prints results as the simulated replay does, under "expectations (live): N
// held, M failed" (and ", K not judged live"): "held", "FAILED" with why, "skipped" with why.
// It reports whether none failed; it returns no lines for no results.
func ExpectationLines(file string, results []ExpectResult) ([]string, bool) {
	if len(results) == 0 {
		return nil, true
	}
	held, failed, skipped := 0, 0, 0
	var body []string
	for _, r := range results {
		switch {
		case r.Skipped:
			skipped++
			body = append(body, fmt.Sprintf("  skipped %s:%d: %s: %s", file, r.Line, r.Text, r.Why))
		case r.Held:
			held++
			body = append(body, fmt.Sprintf("  held    %s:%d: %s", file, r.Line, r.Text))
		default:
			failed++
			body = append(body, fmt.Sprintf("  FAILED  %s:%d: %s: %s", file, r.Line, r.Text, r.Why))
		}
	}
	head := fmt.Sprintf("expectations (live): %d held, %d failed", held, failed)
	if skipped > 0 {
		head += fmt.Sprintf(", %d not judged live", skipped)
	}
	return append([]string{head}, body...), failed == 0
}
