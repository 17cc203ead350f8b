package check

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/failsim/failsim/act"

	"github.com/failsim/failsim/property"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// finalTap keeps the replication model's summary at the end of a replay.
type finalTap struct{ f *repl.Final }

func (o *finalTap) Event(ev act.Event) {
	if f, ok := ev.(*repl.Final); ok {
		o.f = f
	}
}

// TestPartitionWorkload: on partition traces with a workload the client's properties judge the
// partition's rules (docs/engine.md, "The client's view during a partition"): some traces lose
// acknowledged writes at a merge, none at a merge that kept no master, and no-acked-write-lost
// names a merge's loss as such when the first violating trace's loss is one.
func TestPartitionWorkload(t *testing.T) {
	m := statemap.Default()
	g, err := NewGeneratorOptions(Partition, DefaultShape(), m, Options{Workload: work})
	if err != nil {
		t.Fatal(err)
	}
	merges, failovers := 0, 0
	for i := range 200 {
		tl := g.Trace(rand.New(rand.NewPCG(1, uint64(i))))
		var fin finalTap
		sim.Replay(tl, m, &fin)
		if fin.f == nil {
			t.Fatalf("trace %d: no replication summary", i)
		}
		for _, l := range fin.f.Summary.Losses {
			switch {
			case l.Cause == repl.LostAtMerge && l.Keeper < 0 && l.Count > 0:
				t.Errorf("trace %d: a merge that kept no master lost %d writes", i, l.Count)
			case l.Cause == repl.LostAtMerge && l.Count > 0:
				merges++
			case l.Cause == repl.LostAtFailover && l.Count > 0:
				failovers++
			}
		}
	}
	if merges == 0 {
		t.Errorf("no partition trace lost a write at a merge (%d at failovers)", failovers)
	}

	p := property.Spec{Name: property.NoAckedWriteLost}
	res, err := Run(context.Background(), Config{Map: m, Family: Partition, Properties: []property.Spec{p}, Shape: DefaultShape(), Traces: 200, Seed: 1, Workload: work})
	if err != nil {
		t.Fatal(err)
	}
	if res.Held() {
		t.Fatal("no-acked-write-lost held on every partition trace")
	}
	if why := res.Violations[0].Why; !strings.Contains(why, "when the sides merged and") && !strings.Contains(why, "was promoted") {
		t.Errorf("the violation says %q", why)
	}
	tl := res.Violations[0].Shrunk
	if _, err := timeline.Parse("ce.timeline", Timeline(tl, nil, "", p)); err != nil {
		t.Errorf("the counterexample does not parse: %v", err)
	}
}
