package repl

import (
	"reflect"
	"testing"
	"time"
)

// ev is one input at its time, for play.
type ev struct {
	at time.Duration
	in Input
}

// failover is the engine failing over master from at its instant with the model's candidate
// rule: every other replica is eligible and repointed. It stands for the engine's decision in
// play's list.
type failover struct{ from int }

func (failover) input() {}

// play drives a model as the simulator would: it visits every instant at which the model
// decides by itself, steps the inputs in order, closes each instant, and closes end. A
// failover input asks the model's ranking and promotes its choice.
func play(t *testing.T, cfg Config, end time.Duration, evs ...ev) (*Model, []Decision) {
	t.Helper()
	return playRun(cfg, end, evs, func(at time.Duration) { t.Fatalf("no candidate at %v", at) })
}

// playRun is play for any caller: noCandidate is told of a failover with none.
func playRun(cfg Config, end time.Duration, evs []ev, noCandidate func(time.Duration)) (*Model, []Decision) {
	m := New(cfg)
	var out []Decision
	visit := func(until time.Duration) {
		for {
			at, ok := m.Next()
			if !ok || at >= until {
				return
			}
			m.Close(at)
			out = append(out, m.Ready()...)
		}
	}
	for i, e := range evs {
		visit(e.at)
		if f, ok := e.in.(failover); ok {
			m.Begin(e.at)
			best := m.Candidate(nil)(nil, func(j int) bool { return j != f.from })
			if best < 0 {
				noCandidate(e.at)
				continue
			}
			var others []int
			for j := range m.nodes {
				if j != best && m.nodes[j].role == replica {
					others = append(others, j)
				}
			}
			e.in = Promote{Node: best, From: f.from, Repoint: others}
		}
		m.Step(e.at, e.in)
		if i == len(evs)-1 || evs[i+1].at != e.at {
			m.Close(e.at)
		}
		out = append(out, m.Ready()...)
	}
	visit(end)
	m.Close(end)
	return m, append(out, m.Ready()...)
}

func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// same fails the test when got and want differ, showing both.
func same(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

// decisionsOf returns the decisions of type T, in order.
func decisionsOf[T any, P interface {
	*T
	Decision
}](ds []Decision) []T {
	var out []T
	for _, d := range ds {
		if x, ok := d.(P); ok {
			out = append(out, *x)
		}
	}
	return out
}
