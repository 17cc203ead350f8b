package faultmodel

import (
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/statemap"
)

// The fault table's words about the budget follow the timeout given.
func TestFaultTableFollowsTimeout(t *testing.T) {
	for _, c := range []struct {
		timeout     time.Duration
		under, over string
	}{
		{5 * time.Second, "the query's reply takes 2s, under the 5s budget", "the query's reply takes 10s, not under the 5s budget: times out"},
		{2 * time.Second, "the query's reply takes 800ms, under the 2s budget", "the query's reply takes 4s, not under the 2s budget: times out"},
		{30 * time.Second, "the query's reply takes 12s, under the 30s budget", "the query's reply takes 1m0s, not under the 30s budget: times out"},
	} {
		var slow []Row
		for _, r := range Table(statemap.Default(), c.timeout) {
			if r.Fault.Kind == fault.Slow {
				slow = append(slow, r)
			}
		}
		if len(slow) != 2 || slow[0].What != c.under || slow[1].What != c.over {
			t.Errorf("timeout %s: slow rows %q", c.timeout, []string{slow[0].What, slow[1].What})
		}
		if slow[0].Outcome.Condition != statemap.OK || slow[1].Outcome.Condition != statemap.QueryResultsTimeout {
			t.Errorf("timeout %s: outcomes %v, %v", c.timeout, slow[0].Outcome, slow[1].Outcome)
		}
	}
	// Whatever the budget, a row that says "under" is an ok probe.
	for _, d := range []time.Duration{1, time.Millisecond, 3 * time.Second, 24 * time.Hour, 1<<63 - 1} {
		for _, r := range Table(statemap.Default(), d) {
			if r.Fault.Kind == fault.Slow && strings.Contains(r.What, ", under") != (r.Outcome.Condition == statemap.OK) {
				t.Errorf("timeout %v: %q ends in %s", d, r.What, r.Outcome.Condition)
			}
		}
	}
}
