package report_test

import (
	"slices"
	"testing"

	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// An alarm still active when the replay ends is reported with the count it reached.
func TestReportCountsActiveAlarm(t *testing.T) {
	tl, err := timeline.Parse("t", []byte("cluster db1:master db2:replica\n00:00:00 db1 freeze\n00:00:30 cluster end\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := statemap.Default()
	r := report.New(tl, m)
	sim.Replay(tl, m, r)
	want := "  db1: login_response_timeout fails after 8 ticks, but its alarm reached at most 3 before it was reset or the replay ended"
	if got := r.Verdict(); !slices.Contains(got, want) {
		t.Errorf("verdict %q lacks %q", got, want)
	}
}
