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
			timed := r.Fault.Kind == fault.Slow || r.Fault.Kind == fault.Latency || r.Fault.Kind == fault.Bandwidth || r.Fault.Kind == fault.Slicer
			if timed && strings.Contains(r.What, ", under") != (r.Outcome.Condition == statemap.OK) {
				t.Errorf("timeout %v: %q ends in %s", d, r.What, r.Outcome.Condition)
			}
		}
	}
}

// The toxics' rows under the default budget, in words and outcomes: every toxic has a row, and
// each row's words say what Predict does with it.
func TestFaultTableToxics(t *testing.T) {
	want := map[string]struct{ what, cond string }{
		"latency 1s jitter 500ms": {"the server's bytes 1s ±500ms late: 3 trips, 4.5s at worst, under the 5s budget", "ok"},
		"latency 2.5s":            {"the server's bytes 2.5s late: 3 trips, not under the 5s budget", "query_exec_timeout"},
		"latency 2.5s upstream":   {"the client's bytes 2.5s late: 2 trips, not under the 5s budget", "query_results_timeout"},
		"bandwidth 1KB/s":         {"the server's 165 bytes at 1KB/s: 165ms, under the 5s budget", "ok"},
		"slow-close 5s":           {"the server's FIN held 5s: the probe has closed first", "ok"},
		"timeout 1s":              {"the server's bytes dropped, closed after 1s", "socket_io_error"},
		"timeout 1s upstream":     {"the client's bytes dropped, closed after 1s", "mysql_premature_eof"},
		"timeout 0":               {"the server's bytes dropped, never closed", "login_response_timeout"},
		"reset-peer":              {"RST at the server's first bytes", "socket_io_error"},
		"reset-peer 1s upstream":  {"RST 1s after the client's first bytes", "socket_io_error"},
		"slicer 64 delay 10µs":    {"the server's bytes in pieces of 64 bytes, 10µs apart: 30µs, under the 5s budget", "ok"},
		"limit-data 64":           {"closed after the server's first 64 bytes: the greeting is cut", "socket_io_error"},
		"limit-data 110":          {"closed after the server's first 110 bytes: the login's verdict is cut", "mysql_premature_eof"},
		"limit-data 4096":         {"closed after the server's first 4096 bytes: the probe needs 165", "ok"},
	}
	kinds := map[fault.Kind]bool{}
	for _, r := range Table(statemap.Default(), 5*time.Second) {
		if !r.Fault.Kind.Toxiproxy() {
			continue
		}
		kinds[r.Fault.Kind] = true
		w, ok := want[r.Fault.String()]
		if !ok {
			t.Errorf("unexpected row %s", r.Fault)
			continue
		}
		delete(want, r.Fault.String())
		if r.What != w.what || r.Outcome.Condition.String() != w.cond {
			t.Errorf("%s: %q, %s; want %q, %s", r.Fault, r.What, r.Outcome.Condition, w.what, w.cond)
		}
	}
	for w := range want {
		t.Errorf("no row %s", w)
	}
	for _, k := range fault.Kinds() {
		if k.Toxiproxy() && !kinds[k] {
			t.Errorf("toxic %s has no row", k)
		}
	}
	// Under any budget every row is a fault a timeline can name: its words parse back to it
	// (toxiproxy's whole milliseconds included).
	for _, d := range []time.Duration{1, time.Millisecond, 1500 * time.Millisecond, 5 * time.Second, 24 * time.Hour} {
		for _, r := range Table(statemap.Default(), d) {
			back, err := fault.Parse(strings.Fields(r.Fault.String()))
			if err != nil || back != r.Fault {
				t.Errorf("budget %v: row %s reads back as %+v, %v", d, r.Fault, back, err)
			}
		}
	}
}
