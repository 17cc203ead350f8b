package check

import (
	"context"
	"slices"
	"testing"

	"github.com/failsim/failsim/property"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
)

// TestWorkloadReuse: failsim check replays its traces through one sim.Replayer per worker, each
// trace's replication model made in the space of the one before; every property's count of
// violating traces, and its first, are those of replaying each trace afresh (sim.Replay),
// whatever the number of workers.
func TestWorkloadReuse(t *testing.T) {
	m := statemap.Default()
	const traces, seed = 200, 9
	for _, f := range []Family{Benign, Fatal, Mixed, Partition} {
		specs := slices.Concat(f.Defaults(), []property.Spec{{Name: property.NoAckedWriteLost}, {Name: property.MaxOutage, Arg: "20s"}})
		g, err := NewGenerator(f, DefaultShape(), m, 0)
		if err != nil {
			t.Fatal(err)
		}
		g.work = work
		count, first := make([]int, len(specs)), make([]int, len(specs))
		for k := range first {
			first[k] = -1
		}
		for i := range traces {
			set, err := property.NewSet(g.propertyTrace(), specs...)
			if err != nil {
				t.Fatal(err)
			}
			sim.Replay(g.Trace(TraceRand(seed, i)), m, set)
			for k := range specs {
				if bad, _ := set.Violated(k); bad {
					count[k]++
					if first[k] < 0 {
						first[k] = i
					}
				}
			}
		}
		if slices.Max(count) == 0 {
			t.Fatalf("%s: no property violated in %d traces: nothing compared", f, traces)
		}
		for _, workers := range []int{1, 3} {
			res, err := Run(context.Background(), Config{Map: m, Family: f, Properties: specs, Shape: DefaultShape(), Traces: traces, Seed: seed, Workers: workers, Workload: work})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Violated, count) {
				t.Errorf("%s, %d workers: violations %v, replayed afresh %v", f, workers, res.Violated, count)
			}
			for _, v := range res.Violations {
				k := slices.IndexFunc(specs, func(s property.Spec) bool { return s == v.Property })
				if v.Trace != first[k] {
					t.Errorf("%s, %d workers: %s first violated by trace %d, replayed afresh %d", f, workers, v.Property.Name, v.Trace, first[k])
				}
			}
		}
	}
}
