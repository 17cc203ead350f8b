package expect

import (
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/group"
	"github.com/failsim/failsim/property"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// Expectation is one expectation judging one replay: an observer of the replay with a verdict.
type Expectation interface {
	drive.Observer
	// Verdict judges the expectation once the replay has ended: held, and if not, why.
	Verdict() (held bool, why string)
}

// Result is the verdict of one expectation, as failsim replay reports it.
type Result struct {
	Line int    `json:"line"`
	Text string `json:"text"`
	Held bool   `json:"held"`
	Why  string `json:"why,omitempty"`
}

// Set is the expectations of one timeline judging one replay, as one observer. Its zero value
// judges none.
type Set struct {
	specs []timeline.Expect
	xs    []Expectation
}

// NewSet returns fresh observers of tl's expectations for one replay of tl under m. The replay
// must stop at tl.Checkpoints(), as sim.Replay does, for the expectations that look at a time.
func NewSet(tl *timeline.Timeline, m *statemap.Map) *Set {
	s := &Set{specs: tl.Expects, xs: make([]Expectation, len(tl.Expects))}
	if len(tl.Expects) == 0 {
		return s
	}
	names := tl.Names()
	for i, x := range tl.Expects {
		s.xs[i] = newExpectation(tl, m, names, x)
	}
	return s
}

func newExpectation(tl *timeline.Timeline, m *statemap.Map, names []string, x timeline.Expect) Expectation {
	switch x.Kind {
	case timeline.ExpectNoFailover:
		return &noFailover{start: tl.Start, names: names}
	case timeline.ExpectFailover:
		return &failover{start: tl.Start, names: names, from: x.Node, to: x.To, win: x.Window}
	case timeline.ExpectNoMaster:
		return &noMaster{start: tl.Start, win: x.Window}
	case timeline.ExpectFailed, timeline.ExpectNeverFailed:
		return &failed{start: tl.Start, node: x.Node, name: names[x.Node], never: x.Kind == timeline.ExpectNeverFailed, win: x.Window}
	case timeline.ExpectAt:
		return newAt(x, names[x.Node])
	case timeline.ExpectShunned:
		return &shunned{start: tl.Start, node: x.Node, name: names[x.Node], win: x.Window}
	case timeline.ExpectSplitBrain:
		return &splitBrain{start: tl.Start, names: names, end: tl.End, max: x.Max}
	case timeline.ExpectPrimary:
		var all group.Set // the primary view at the start: everyone
		for m := range names {
			all = all.With(m)
		}
		return &primary{start: tl.Start, names: names, at: x.At, want: group.SetOf(x.Members...), now: []group.Set{all}}
	case timeline.ExpectProperty:
		s, err := property.NewSet(Trace(tl, m), x.Property)
		if err != nil {
			panic("expect: a property the timeline parser checked does not build: " + err.Error())
		}
		return propertyHolds{s}
	case timeline.ExpectOutage, timeline.ExpectUnavailable, timeline.ExpectLostWrites:
		return &client{x: x, start: tl.Start}
	}
	panic("expect: an expectation of no kind")
}

// propertyHolds is a property statement: a set of the one property.
type propertyHolds struct{ *property.Set }

// Verdict implements Expectation.
func (x propertyHolds) Verdict() (bool, string) {
	bad, why := x.Violated(0)
	return !bad, why
}

// Event implements drive.Observer.
func (s *Set) Event(ev act.Event) {
	for _, x := range s.xs {
		x.Event(ev)
	}
}

// Instant implements drive.InstantObserver.
func (s *Set) Instant(at time.Duration, e fence.View) {
	for _, x := range s.xs {
		if x, ok := x.(drive.InstantObserver); ok {
			x.Instant(at, e)
		}
	}
}

// Results returns the verdict of every expectation, in timeline order; an empty slice, not
// nil, when there is none.
func (s *Set) Results() []Result {
	out := make([]Result, 0, len(s.xs))
	for i, x := range s.xs {
		held, why := x.Verdict()
		out = append(out, Result{Line: s.specs[i].Line, Text: s.specs[i].Text, Held: held, Why: why})
	}
	return out
}

// Trace is what a property knows of a replay of tl under m: the cluster's names, the clock,
// the checker, the starting policy, whether tl records a benign trace, and the statemap.
func Trace(tl *timeline.Timeline, m *statemap.Map) property.Trace {
	return property.Trace{Names: tl.Names(), Nodes: len(tl.Nodes), Start: tl.Start, Interval: tl.Interval, Timeout: tl.Timeout,
		Policy: tl.Policy, Benign: tl.Benign(), Map: m}
}
