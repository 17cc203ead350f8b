package report

import (
	"fmt"

	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/group"
	"github.com/failsim/failsim/timeline"
)

// failoverJSON is a failover, or a master failed with no replica eligible (no To), in the JSON
// summary.
type failoverJSON struct {
	T         float64 `json:"t"`
	Time      string  `json:"time"`
	From      string  `json:"from"`
	To        string  `json:"to,omitempty"`
	Condition string  `json:"condition"`
}

// summaryJSON is the last object of a JSON event log.
type summaryJSON struct {
	Summary struct {
		File         string            `json:"file"`
		Failover     bool              `json:"failover"`
		Failovers    []failoverJSON    `json:"failovers"`
		NoCandidate  []failoverJSON    `json:"no_candidate,omitempty"`
		Verdict      []string          `json:"verdict"`
		Availability *availabilityJSON `json:"availability,omitempty"`
		Ledger       *ledgerJSON       `json:"ledger,omitempty"`
		Expectations []expect.Result   `json:"expectations"`
		Held         int               `json:"held"`
		Failed       int               `json:"failed"`
		SplitBrain   splitBrainJSON    `json:"split_brain"`
		Primary      [][]string        `json:"primary"`
	} `json:"summary"`
}

// splitBrainJSON is the split-brain windows in the JSON summary.
type splitBrainJSON struct {
	Windows      []windowJSON `json:"windows"`
	TotalSeconds float64      `json:"total_seconds"`
}

// windowJSON is one split-brain window.
type windowJSON struct {
	Nodes   []string `json:"nodes"`
	From    string   `json:"from"`
	To      string   `json:"to"`
	Seconds float64  `json:"seconds"`
}

// names lists the names of the members of s.
func names(all []string, s group.Set) []string {
	out := []string{}
	for m := range s.All() {
		out = append(out, all[m])
	}
	return out
}

// Summary writes, after the events, report r's verdict and the expectations' results (those of
// timeline file), and flushes: in text, a "verdict:" paragraph and an "expectations:" one when
// there are any; in JSON, one {"summary": ...} object.
func (p *Printer) Summary(file string, r *Report, results []expect.Result) error {
	held := 0
	for _, x := range results {
		if x.Held {
			held++
		}
	}
	if p.format == JSON {
		var s summaryJSON
		s.Summary.File = file
		s.Summary.Failover = r.FailedOver()
		s.Summary.Failovers = []failoverJSON{}
		for _, ev := range r.Failovers() {
			s.Summary.Failovers = append(s.Summary.Failovers, failoverJSON{T: ev.At.Seconds(), Time: timeline.Clock(p.start, ev.At), From: p.names[ev.Node], To: p.names[ev.To], Condition: ev.Condition.String()})
		}
		for _, ev := range r.NoCandidates() {
			s.Summary.NoCandidate = append(s.Summary.NoCandidate, failoverJSON{T: ev.At.Seconds(), Time: timeline.Clock(p.start, ev.At), From: p.names[ev.Node], Condition: ev.Condition.String()})
		}
		s.Summary.Verdict = r.Verdict()
		s.Summary.Availability, s.Summary.Ledger = r.replJSON(p.start)
		s.Summary.Expectations = results
		s.Summary.Held, s.Summary.Failed = held, len(results)-held
		ws := r.SplitBrain()
		s.Summary.SplitBrain.Windows = []windowJSON{}
		for _, w := range ws {
			s.Summary.SplitBrain.Windows = append(s.Summary.SplitBrain.Windows, windowJSON{Nodes: names(p.names, w.Nodes),
				From: timeline.Clock(p.start, w.From), To: timeline.Clock(p.start, w.To), Seconds: (w.To - w.From).Seconds()})
		}
		s.Summary.SplitBrain.TotalSeconds = expect.Total(ws).Seconds()
		s.Summary.Primary = [][]string{}
		for _, v := range r.Primary() {
			s.Summary.Primary = append(s.Summary.Primary, names(p.names, v))
		}
		p.json(s)
	} else if p.err == nil {
		fmt.Fprintf(p.w, "\nverdict: ")
		for _, l := range r.Verdict() {
			fmt.Fprintln(p.w, l)
		}
		if len(results) > 0 {
			fmt.Fprintf(p.w, "\nexpectations: %d held, %d failed\n", held, len(results)-held)
			for _, x := range results {
				if x.Held {
					fmt.Fprintf(p.w, "  held    %s:%d: %s\n", file, x.Line, x.Text)
				} else {
					fmt.Fprintf(p.w, "  FAILED  %s:%d: %s: %s\n", file, x.Line, x.Text, x.Why)
				}
			}
		}
	}
	if p.err != nil {
		return p.err
	}
	return p.w.Flush()
}
