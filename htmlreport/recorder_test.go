package htmlreport

import (
	"testing"
	"time"

	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// TestCountedRuns: a live run's probe outcomes, told as they count, make runs of identical
// outcomes; a silence longer than two probes (the manager was down) breaks a run.
func TestCountedRuns(t *testing.T) {
	tl, err := timeline.Parse("t", []byte("cluster db1:master\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := New(tl, statemap.Default())
	s := time.Second
	for _, at := range []time.Duration{0, 3 * s, 6 * s} {
		r.Counted(at, 0, statemap.OK)
	}
	r.Counted(14*s, 0, statemap.QueryResultsTimeout)
	r.Counted(19*s, 0, statemap.QueryResultsTimeout)
	r.Counted(60*s, 0, statemap.QueryResultsTimeout) // after a silence
	got := r.probes()[0]
	want := []probeRun{
		{first: 0, step: 3 * s, n: 3, cond: statemap.OK},
		{first: 14 * s, step: 5 * s, n: 2, cond: statemap.QueryResultsTimeout},
		{first: 60 * s, step: 3 * s, n: 1, cond: statemap.QueryResultsTimeout},
	}
	if len(got) != len(want) {
		t.Fatalf("runs %+v, want %+v", got, want)
	}
	for k := range want {
		if got[k] != want[k] {
			t.Errorf("run %d: %+v, want %+v", k, got[k], want[k])
		}
	}
}
