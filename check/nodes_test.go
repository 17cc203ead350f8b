package check

import (
	"context"
	"errors"
	"testing"

	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// A family's traces have at most MaxNodes nodes: a timeline's 64 members, less the witnesses a
// partition trace adds. One node more is refused before any trace is made (it panicked in the
// group: at 65 nodes, and at 63 on partition traces with their two witnesses); at the limit
// every family's traces generate, replay and are judged, witnesses included.
func TestNodesAtMostATimelinesMembers(t *testing.T) {
	m := statemap.Default()
	for _, f := range []Family{Benign, Fatal, Mixed, Partition} {
		most := f.MaxNodes()
		if want := timeline.MaxMembers - map[Family]int{Partition: 2}[f]; most != want {
			t.Errorf("%s: MaxNodes %d, want %d", f, most, want)
		}
		shape := DefaultShape()
		shape.Nodes = most + 1
		if _, err := NewGenerator(f, shape, m, 0); !errors.Is(err, ErrTooManyNodes) {
			t.Errorf("%s, %d nodes: %v, want ErrTooManyNodes", f, shape.Nodes, err)
		}
		if err := (Config{Map: m, Family: f, Shape: shape, Traces: 1}).Validate(); !errors.Is(err, ErrTooManyNodes) {
			t.Errorf("%s, %d nodes: Validate: %v, want ErrTooManyNodes", f, shape.Nodes, err)
		}
		shape.Nodes = most
		res, err := Run(context.Background(), Config{Map: m, Family: f, Shape: shape, Traces: 8, Seed: 1, Workers: 1})
		if err != nil {
			t.Fatalf("%s, %d nodes: %v", f, most, err)
		}
		if res.Traces != 8 {
			t.Errorf("%s, %d nodes: %d traces judged", f, most, res.Traces)
		}
	}
	g, err := NewGenerator(Partition, Shape{Nodes: Partition.MaxNodes(), Length: DefaultShape().Length, Interval: DefaultShape().Interval, Timeout: DefaultShape().Timeout}, m, 0)
	if err != nil {
		t.Fatal(err)
	}
	most := 0
	for i := range 8 {
		tl := g.Trace(TraceRand(1, i))
		most = max(most, len(tl.Nodes)+len(tl.Witnesses))
	}
	if most != timeline.MaxMembers {
		t.Errorf("the partition traces at the limit have at most %d members, want some with %d", most, timeline.MaxMembers)
	}
}
