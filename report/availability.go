package report

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/narrate"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/timeline"
)

// replStory is what the report keeps of the replication model's run (a timeline with a
// timeline.Replication): its decisions worth a verdict line, and its summary at the end.
type replStory struct {
	lines    []string // the verdict's replication lines about decisions, in order
	final    *repl.Final
	fallback struct {
		n, back      int           // semisync's fallbacks and returns
		last, lastAt time.Duration // the last fallback's time, and when the last return was
		lastOn       int           // the master of the last fallback
	}
}

// replEvent keeps what the verdict says of a replication decision or note.
func (r *Report) replEvent(ev act.Event) {
	clock := func(d time.Duration) string { return timeline.Clock(r.tl.Start, d) }
	s := &r.repl
	switch ev := ev.(type) {
	case *repl.Promoted:
		rank := ""
		if len(ev.Ranking) > 0 {
			rank = fmt.Sprintf(" by the ranking (the most stored wins, then the lowest precedence, then cluster order): %s", rankingList(r.names, ev.Ranking))
		}
		s.lines = append(s.lines, fmt.Sprintf("failover at %s: %s promoted at position %d%s", clock(ev.At), r.names[ev.Node], ev.Stored, rank))
		if ev.From >= 0 {
			s.lines = append(s.lines, fmt.Sprintf("  %s", narrate.LossWords(r.names, ev.Lost)))
		}
	case *repl.Writable:
		w := fmt.Sprintf("  %s took writes at %s, %s after its promotion", r.names[ev.Node], clock(ev.At), ev.Waited)
		if ev.Waited == 0 {
			w = fmt.Sprintf("  %s took writes at once: nothing stored left to apply", r.names[ev.Node])
		}
		if ev.Unapplied > 0 {
			w += fmt.Sprintf(", cut short by the apply wait: %d stored positions applied after, not lost", ev.Unapplied)
		}
		s.lines = append(s.lines, w)
	case *repl.FellBack:
		// The first fallback and return are told; a master that flaps (a stream lagging more
		// than the timeout) is counted, not told line by line.
		if s.fallback.n++; s.fallback.n == 1 {
			s.lines = append(s.lines, fmt.Sprintf("semisync on %s fell back to async at %s: no replica stored a commit for %s", r.names[ev.Master], clock(ev.At), ev.At-ev.Since))
		}
		s.fallback.last, s.fallback.lastOn = ev.At, ev.Master
	case *repl.Returned:
		if s.fallback.back++; s.fallback.back == 1 {
			s.lines = append(s.lines, fmt.Sprintf("semisync on %s back at %s: %s stored every commit", r.names[ev.Master], clock(ev.At), r.names[ev.Replica]))
		}
		s.fallback.lastAt = ev.At
	case *repl.Unranked:
		s.lines = append(s.lines, fmt.Sprintf("no candidate at %s: the ranking excluded %s", clock(ev.At), narrate.Excluded(r.names, ev.Standings)))
	case *repl.Overwritten:
		s.lines = append(s.lines, fmt.Sprintf("%s overwritten at %s: %s", r.names[ev.Node], clock(ev.At), narrate.LossWords(r.names, ev.Lost)))
	case *repl.Final:
		f := *ev
		s.final = &f
	}
}

// rankingList writes a ranking, best first, each node with its stored position and lag, and
// the excluded with why: "db3 5701 lag 2s, db2 4000 lag 22s (excluded: lagging), db1
// (not-eligible)".
func rankingList(names []string, ranking []repl.Standing) string {
	out := ""
	for i, x := range ranking {
		if i > 0 {
			out += ", "
		}
		if x.Excluded == repl.NotEligible {
			out += names[x.Node] + " (not-eligible)"
			continue
		}
		out += fmt.Sprintf("%s %d", names[x.Node], x.Stored)
		if x.Lag > 0 {
			out += " lag " + x.Lag.String()
		}
		if x.Excluded != repl.Candidate {
			out += " (excluded: " + x.Excluded.String() + ")"
		}
	}
	return out
}

// Replication returns the replication model's summary at the end of the run; nil when the run
// had no model (its timeline says nothing of replication) or was stopped before its end.
func (r *Report) Replication() *repl.Final { return r.repl.final }

// replVerdict returns the verdict's replication paragraph: what the ranking chose, what the
// promotions waited for and lost, semisync's fallbacks, and the client's view; none without a
// model. head is the paragraph's first line, the headline's (nil without a model).
func (r *Report) replVerdict(head *ReplicationHead) []string {
	f := r.repl.final
	if f == nil {
		return nil
	}
	out := []string{head.line()}
	for _, l := range r.repl.lines {
		out = append(out, "  "+l)
	}
	if fb := r.repl.fallback; fb.n > 1 {
		out = append(out, fmt.Sprintf("  semisync fell back %d times in all (the last on %s at %s) and came back %s", fb.n, r.names[fb.lastOn], timeline.Clock(r.tl.Start, fb.last), plural64(int64(fb.back), "time")))
	}
	return appendWrites(out, r.tl.Start, f)
}

// ClientView returns the client's view of a run of the replication model that ended in f, as
// the verdict's replication paragraph says it: its first line (the mode and workload) and, with
// a workload, the writes offered, acknowledged and failed, the longest outage, the unavailable
// time and the acknowledged writes lost, each indented by two spaces; start is the clock time
// of t=0. A manager whose run the Report does not follow (Orchestrator's) prints it so.
func ClientView(start time.Time, f *repl.Final) []string {
	c := f.Config
	head := ReplicationHead{Mode: c.Mode, Timeout: c.Timeout, Workload: f.Workload, Rate: c.Rate, Deadline: c.Deadline}
	return appendWrites([]string{head.line()}, start, f)
}

// appendWrites appends the client's view of the writes in f, if it had a workload.
func appendWrites(out []string, start time.Time, f *repl.Final) []string {
	if !f.Workload {
		return out
	}
	s := f.Summary
	clock := func(d time.Duration) string { return timeline.Clock(start, d) }
	out = append(out, fmt.Sprintf("  writes: %d offered, %d acknowledged, %d failed", s.Offered, s.Acknowledged, s.Failed))
	if s.Outage.Length() > 0 {
		out = append(out, fmt.Sprintf("  longest outage: %s, from %s to %s (%s failed)", s.Outage.Length(), clock(s.Outage.From), clock(s.Outage.To), plural64(s.Outage.Writes, "write")))
	} else {
		out = append(out, "  longest outage: none")
	}
	out = append(out, fmt.Sprintf("  unavailable: %s (the failed writes at the workload's rate)", s.Unavailable))
	out = append(out, fmt.Sprintf("  acknowledged writes lost: %d", s.Lost))
	return out
}

// RateWords writes a workload's rate as a timeline does: "200 writes/s", "5 writes per 100ms".
func RateWords(r repl.Rate) string {
	if r.Per == time.Second {
		return fmt.Sprintf("%d writes/s", r.Writes)
	}
	return fmt.Sprintf("%d writes per %s", r.Writes, r.Per)
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

func plural64(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// outageJSON is the longest outage in the JSON summary.
type outageJSON struct {
	Seconds float64 `json:"seconds"`
	FromT   float64 `json:"from_t"`
	ToT     float64 `json:"to_t"`
	From    string  `json:"from"`
	To      string  `json:"to"`
	Writes  int64   `json:"writes"`
}

// availabilityJSON is the client's view in the JSON summary.
type availabilityJSON struct {
	Mode          string      `json:"mode"`
	Writes        int64       `json:"writes"`
	PerSeconds    float64     `json:"per_seconds"`
	DeadlineS     float64     `json:"deadline_s"`
	Offered       int64       `json:"offered"`
	Acknowledged  int64       `json:"acknowledged"`
	Failed        int64       `json:"failed"`
	Committed     int64       `json:"committed"`
	UnavailableS  float64     `json:"unavailable_s"`
	LongestOutage *outageJSON `json:"longest_outage"`
	Fallbacks     int         `json:"semisync_fallbacks"`
}

// lossJSON is one failover's (or merge's) loss in the JSON ledger.
type lossJSON struct {
	T      float64 `json:"t"`
	Time   string  `json:"time"`
	Cause  string  `json:"cause"`
	Master string  `json:"master,omitempty"`
	Keeper string  `json:"keeper,omitempty"`
	Count  int64   `json:"count"`
	First  int64   `json:"first,omitempty"`
	Last   int64   `json:"last,omitempty"`
	// Deferred: a failover whose old master went on on its side of a partition; what it
	// loses is told at the merge.
	Deferred bool `json:"deferred,omitempty"`
}

// runJSON is one run of acknowledged writes in the JSON ledger.
type runJSON struct {
	Master     string `json:"master"`
	First      int64  `json:"first"`
	Count      int64  `json:"count"`
	FirstWrite int64  `json:"first_write"`
	Lost       bool   `json:"lost"`
}

// ledgerJSON is the ledger of acknowledged writes in the JSON summary.
type ledgerJSON struct {
	Acknowledged int64      `json:"acknowledged"`
	Lost         int64      `json:"lost"`
	Losses       []lossJSON `json:"losses"`
	Runs         []runJSON  `json:"runs"`
}

// replJSON returns the JSON summary's availability and ledger objects: both nil for a run
// without a workload.
func (r *Report) replJSON(start time.Time) (*availabilityJSON, *ledgerJSON) {
	f := r.repl.final
	if f == nil || !f.Workload {
		return nil, nil
	}
	s, c := f.Summary, f.Config
	a := &availabilityJSON{Mode: c.Mode.String(), Writes: c.Rate.Writes, PerSeconds: c.Rate.Per.Seconds(), DeadlineS: c.Deadline.Seconds(),
		Offered: s.Offered, Acknowledged: s.Acknowledged, Failed: s.Failed, Committed: s.Committed,
		UnavailableS: s.Unavailable.Seconds(), Fallbacks: s.Fallbacks}
	if o := s.Outage; o.Length() > 0 {
		a.LongestOutage = &outageJSON{Seconds: o.Length().Seconds(), FromT: o.From.Seconds(), ToT: o.To.Seconds(),
			From: timeline.Clock(start, o.From), To: timeline.Clock(start, o.To), Writes: o.Writes}
	}
	l := &ledgerJSON{Acknowledged: s.Acknowledged, Lost: s.Lost, Losses: []lossJSON{}, Runs: []runJSON{}}
	name := func(i int) string {
		if i < 0 {
			return ""
		}
		return r.names[i]
	}
	for _, x := range s.Losses {
		l.Losses = append(l.Losses, lossJSON{T: x.At.Seconds(), Time: timeline.Clock(start, x.At), Cause: x.Cause.String(),
			Master: name(x.Master), Keeper: name(x.Keeper), Count: x.Count, First: x.First, Last: x.Last, Deferred: x.Deferred})
	}
	for _, e := range f.Ledger {
		l.Runs = append(l.Runs, runJSON{Master: name(e.Master), First: e.First, Count: e.Count, FirstWrite: e.FirstWrite, Lost: e.Lost})
	}
	return a, l
}
