package check

import (
	"context"
	"testing"

	"github.com/failsim/failsim/orchestrator"
)

// BenchmarkCheckOrchestrator measures failsim check --manager orchestrator: a trace generated,
// replayed under Orchestrator's rules (every cluster recovered) and judged, per family, on
// the default shape.
func BenchmarkCheckOrchestrator(b *testing.B) {
	c := orchestrator.Defaults()
	c.RecoverMasterClusterFilters = []string{"*"}
	for _, f := range []Family{Benign, Fatal} {
		b.Run(f.String(), func(b *testing.B) {
			res, err := RunOrchestrator(context.Background(), OrchConfig{Orchestrator: c, Family: f, Nodes: DefaultShape().Nodes, Length: DefaultShape().Length, Traces: b.N, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			for k, n := range res.Violated {
				if n > 0 {
					b.Fatalf("%s: %s", res.Properties[k], res.Why[k])
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "traces/s")
		})
	}
}
