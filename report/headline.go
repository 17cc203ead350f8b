package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/timeline"
)

// Headline is the head of a verdict: what its unindented lines say, without their reasons. It
// names each time a master was failed, in order, and the replication model the run had. Two
// runs of one timeline have the same outcome at a glance when their Headlines' Text is the same
// (failsim statemap diff). Lines and Text name the nodes and the clock as the verdict does, with
// the names and start of the Report that gave it (Report.Headline). Its zero value is a run
// that did not fail over and had no model.
type Headline struct {
	// Fenced is each master failed, in the order it was: by a failover, or with no replica
	// eligible. None: the cluster did not fail over.
	Fenced []Fenced
	// Replication is how the replication model replicated and what workload it ran; nil when
	// the run had no model (its timeline says nothing of replication) or was stopped before
	// its end.
	Replication *ReplicationHead

	start time.Time // the clock time of t=0
	names []string  // the nodes' names, in cluster order
}

// Fenced is a master failed: failed over to the replica promoted, or left without a master when
// no replica was eligible.
type Fenced struct {
	At       time.Duration // when, since t=0
	Master   int           // the master failed, in cluster order
	Promoted int           // the replica promoted, in cluster order; NoneEligible: no failover
}

// NoneEligible is Fenced.Promoted when no replica was eligible: the master was failed, nobody
// promoted.
const NoneEligible = -1

// ReplicationHead is what the verdict's replication paragraph opens with.
type ReplicationHead struct {
	Mode     repl.Mode
	Timeout  time.Duration // semisync's wait before it falls back to async; 0: repl.DefaultTimeout
	Workload bool          // the run had a workload of Rate with a deadline on each write
	Rate     repl.Rate     // the workload's rate, if Workload
	Deadline time.Duration // the client's deadline on each write, if Workload
}

// Lines returns the headline as the verdict writes it, a line per master failed ("no failover"
// for none) and then the replication paragraph's first line, if the run had a model.
func (h Headline) Lines() []string {
	var out []string
	for i := range h.Fenced {
		out = append(out, h.fencedLine(i))
	}
	if len(out) == 0 {
		out = append(out, noFailover)
	}
	if h.Replication != nil {
		out = append(out, h.Replication.line())
	}
	return out
}

// noFailover is the headline of a run in which no master was failed.
const noFailover = "no failover"

// Text returns the headline's lines joined with "; ".
func (h Headline) Text() string { return strings.Join(h.Lines(), "; ") }

// fencedLine is the verdict's line about the i-th master failed.
func (h Headline) fencedLine(i int) string {
	f := h.Fenced[i]
	then := ""
	if i > 0 {
		then = "then "
	}
	clock := timeline.Clock(h.start, f.At)
	if f.Promoted != NoneEligible {
		return fmt.Sprintf("%sfailover at %s: master %s failed, %s promoted", then, clock, h.names[f.Master], h.names[f.Promoted])
	}
	return fmt.Sprintf("%sno failover: master %s failed at %s and no replica was eligible; the cluster has no master", then, h.names[f.Master], clock)
}

// line is the replication paragraph's first line.
func (r *ReplicationHead) line() string {
	head := "replication: " + r.Mode.String()
	if r.Mode == repl.Semisync {
		head += fmt.Sprintf(" (timeout %s)", orDefault(r.Timeout, repl.DefaultTimeout))
	}
	if r.Workload {
		return head + fmt.Sprintf("; workload %s, deadline %s", RateWords(r.Rate), r.Deadline)
	}
	return head + "; no workload"
}

// Headline returns the head of the verdict: the masters failed and the replication model.
func (r *Report) Headline() Headline {
	h := Headline{start: r.tl.Start, names: r.names}
	for _, f := range r.fences {
		promoted := NoneEligible
		if f.kind == fence.KindFailover {
			promoted = f.to
		}
		h.Fenced = append(h.Fenced, Fenced{At: f.at, Master: f.node, Promoted: promoted})
	}
	if f := r.repl.final; f != nil {
		c := f.Config
		h.Replication = &ReplicationHead{Mode: c.Mode, Timeout: c.Timeout, Workload: f.Workload, Rate: c.Rate, Deadline: c.Deadline}
	}
	return h
}
