package faultmodel

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/statemap"
)

// Row is one row of the fault table: a fault, what it is, and what a probe started under
// it ends in and what the statemap does with that.
type Row struct {
	Fault   fault.Fault
	What    string         // the fault in words
	Outcome act.Outcome    // the probe's outcome under the checker's budget
	State   statemap.State // the datasource state the probe shows
	Rule    statemap.Rule  // the statemap's rule for the outcome's condition
	Effect  string         // what the rule does, in words (statemap.Rule.Explain)
}

// Table returns the fault table under statemap m and a checker budget of timeout: each
// fault kind with a representative argument, slow twice, once under the budget and once
// not (2/5 and twice the budget), and delay twice, a probe's five trips under the budget and
// its login's three not (1/10 and 1/2 of the budget). Toxiproxy's toxics follow, each with
// its stream where that matters (toxicRows). The words follow the budget: what a row says of it
// is what Predict does with it.
func Table(m *statemap.Map, timeout time.Duration) []Row {
	under, over := max(timeout*2/5, time.Nanosecond), timeout*2
	if over < timeout {
		over = timeout // twice the budget overflows: the budget itself is not under it either
	}
	rows := []Row{
		{Fault: fault.Fault{Kind: fault.Heal}, What: "no fault"},
		{Fault: fault.Fault{Kind: fault.Refuse}, What: "port closed: hard death"},
		{Fault: fault.Fault{Kind: fault.Reset}, What: "RST on every connection"},
		{Fault: fault.Fault{Kind: fault.Close}, What: "FIN right after accept: clean exit"},
		{Fault: fault.Fault{Kind: fault.Freeze}, What: "accepted, then silence"},
		{Fault: fault.Fault{Kind: fault.Blackhole}, What: "SYN never answered"},
		{Fault: fault.Fault{Kind: fault.Stall}, What: "connect and login work, queries hang: the EBS case"},
		{Fault: fault.Fault{Kind: fault.Slow, Delay: under}},
		{Fault: fault.Fault{Kind: fault.Slow, Delay: over}},
		{Fault: fault.Fault{Kind: fault.Delay, Delay: max(timeout/10, time.Nanosecond)}},
		{Fault: fault.Fault{Kind: fault.Delay, Delay: max(timeout/2, time.Nanosecond)}},
		{Fault: fault.Fault{Kind: fault.Error, Code: 1040}, What: "Too many connections, instead of the greeting"},
		{Fault: fault.Fault{Kind: fault.Error, Code: 1045}, What: "Access denied, in reply to the login"},
		{Fault: fault.Fault{Kind: fault.Error, Code: 1205}, What: "any other MySQL error, instead of the greeting"},
	}
	rows = append(rows, toxicRows(timeout)...)
	rows = append(rows,
		Row{Fault: fault.Fault{Kind: fault.Unreachable}, What: "no route to host"},
		Row{Fault: fault.Fault{Kind: fault.HostDown}, What: "host is down"},
		Row{Fault: fault.Fault{Kind: fault.Probe, Condition: "query_exec_timeout"}, What: "any condition, forced"},
	)
	for i := range rows {
		r := &rows[i]
		r.Outcome = Predict(r.Fault, timeout)
		r.Rule = m.Rule(r.Outcome.Condition)
		r.State = r.Rule.State
		if r.Outcome.Condition == statemap.OK {
			r.State = statemap.Online
		}
		r.Effect = r.Rule.Explain(r.Outcome.Condition)
		if r.Fault.Kind == fault.Slow {
			if r.Outcome.Condition == statemap.OK {
				r.What = fmt.Sprintf("the query's reply takes %s, under the %s budget", r.Fault.Delay, timeout)
			} else {
				r.What = fmt.Sprintf("the query's reply takes %s, not under the %s budget: times out", r.Fault.Delay, timeout)
			}
		}
		if r.Fault.Kind.Toxiproxy() {
			r.What = toxicWhat(r.Fault, r.Outcome, timeout)
		}
		if r.Fault.Kind == fault.Delay {
			if r.Outcome.Condition == statemap.OK {
				r.What = fmt.Sprintf("every byte %s late both ways: 5 trips, %s, under the %s budget", r.Fault.Delay, r.Outcome.Took, timeout)
			} else {
				r.What = fmt.Sprintf("every byte %s late both ways: 5 trips, not under the %s budget", r.Fault.Delay, timeout)
			}
		}
	}
	return rows
}
