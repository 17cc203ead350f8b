package timing

import (
	"time"

	"github.com/failsim/failsim/faultmodel"
	"github.com/failsim/failsim/statemap"
)

// Span is the times, since a fault's start, at which something happens, over every phase of
// probes and ticks: from Earliest, which some phase reaches, up to Latest, which phases
// approach and none reaches. The zero value is "never": Ever is false and the bounds 0.
type Span struct {
	Earliest time.Duration
	Latest   time.Duration // exclusive: an upper bound no phase reaches
	Ever     bool          // false: it never happens, under any phase
}

// Never reports whether the span is empty: it never happens.
func (s Span) Never() bool { return !s.Ever }

// Contains reports whether d, a time since the fault's start, is in the span: Earliest <= d <
// Latest.
func (s Span) Contains(d time.Duration) bool { return s.Ever && s.Earliest <= d && d < s.Latest }

// Row is one fault of the fault table with its timing.
type Row struct {
	faultmodel.Row
	StateChange Span // to the node's datasource state change
	Alarm       Span // to the alarm raised for the outcome's condition
	Fence       Span // to the node fenced: a replica failed, a master failed over
}

// Table returns the fault table under statemap m with a probe every interval within a budget of
// timeout (faultmodel.Table), and each fault's timing. interval must be > 0; with interval and
// timeout at most a day each (a timeline's limit) every time fits a Duration, whatever the
// statemap's thresholds.
func Table(m *statemap.Map, interval, timeout time.Duration) []Row {
	rows := faultmodel.Table(m, timeout)
	out := make([]Row, len(rows))
	for i, r := range rows {
		out[i] = Of(r, interval)
	}
	return out
}

// Of returns the timing of fault table row r under a probe every interval (> 0).
func Of(r faultmodel.Row, interval time.Duration) Row {
	if interval <= 0 {
		panic("timing: a probe interval must be positive")
	}
	out := Row{Row: r}
	if r.Outcome.Condition == statemap.OK {
		return out // a healthy probe changes nothing, raises nothing; undefined is a condition
	}
	took := r.Outcome.Took
	first := Span{Earliest: took, Latest: took + interval, Ever: true} // the first bad probe's end
	out.Alarm = first
	if r.State != statemap.Online {
		out.StateChange = first
	}
	out.Fence = fence(first, r.Rule)
	return out
}

// fence is when an alarm raised within span raised expires and fences under rule.
func fence(raised Span, rule statemap.Rule) Span {
	if !rule.Fatal() {
		return Span{}
	}
	if rule.Threshold == 0 {
		return raised
	}
	n := time.Duration(rule.Threshold)
	return Span{
		Earliest: raised.Earliest + (n-1)*statemap.TickInterval, // raised at a tick: it counts
		Latest:   raised.Latest + n*statemap.TickInterval,       // raised just after a tick
		Ever:     true,
	}
}
