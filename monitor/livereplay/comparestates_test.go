package livereplay

import (
	"slices"
	"testing"
	"time"

	"github.com/failsim/failsim/statemap"
)

// CompareStates agrees on each node's same state changes within one tick, and differs on a
// change the other side did not make (every node suspect from too_many_connections live, say)
// or one more than a tick late.
func TestCompareStates(t *testing.T) {
	start := time.Date(1970, 1, 1, 3, 0, 0, 0, time.UTC)
	s := time.Second
	names := []string{"db1", "db2"}
	ok, qrt, tmc := statemap.OK, statemap.QueryResultsTimeout, statemap.TooManyConnections
	sim := []StateChange{{0, "db1", statemap.Unknown, statemap.Online, ok}, {0, "db2", statemap.Unknown, statemap.Online, ok},
		{5 * s, "db2", statemap.Online, statemap.Timeout, qrt}, {20 * s, "db2", statemap.Timeout, statemap.Online, ok}}
	live := []StateChange{{0, "db1", statemap.Unknown, statemap.Online, ok}, {0, "db2", statemap.Unknown, statemap.Online, ok},
		{5300 * time.Millisecond, "db2", statemap.Online, statemap.Timeout, qrt}, {21 * s, "db2", statemap.Timeout, statemap.Online, ok}}
	got, agree := CompareStates(start, names, sim, live)
	want := []string{"agree   db1: 03:00:00 online (live +0.0s)",
		"agree   db2: 03:00:00 online (live +0.0s), 03:00:05 timeout (live +0.3s), 03:00:20 online (live +1.0s)"}
	if !agree || !slices.Equal(got, want) {
		t.Fatalf("CompareStates = %v %q, want %q", agree, got, want)
	}
	bad := append(slices.Clone(live[:2]), StateChange{600 * s, "db1", statemap.Online, statemap.Suspect, tmc}, live[2],
		StateChange{31 * s, "db2", statemap.Timeout, statemap.Online, ok})
	got, agree = CompareStates(start, names, sim, bad)
	want = []string{"DIFFER  db1: simulated 03:00:00 online (ok); live 03:00:00 online (ok), 03:10:00 suspect (too_many_connections)",
		"DIFFER  db2: simulated 03:00:00 online (ok), 03:00:05 timeout (query_results_timeout), 03:00:20 online (ok); live 03:00:00 online (ok), 03:00:05.300 timeout (query_results_timeout), 03:00:31 online (ok)"}
	if agree || !slices.Equal(got, want) {
		t.Fatalf("CompareStates = %v %q, want %q", agree, got, want)
	}
}
