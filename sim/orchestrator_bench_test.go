package sim_test

import (
	"io"
	"testing"

	"github.com/failsim/failsim/orchestrator"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/timeline"
)

// BenchmarkReplayOrchestrator replays the EBS stall (an hour, the master stalled 24 minutes of
// it) under Orchestrator's rules, the text log written to io.Discard, beside the same replay
// under Tungsten's: the machine ticks every second while anything can change, so its cost
// follows the spans of trouble, where Tungsten's follows the probes that change something.
func BenchmarkReplayOrchestrator(b *testing.B) {
	tl, m, err := timeline.LoadFile("../testdata/incidents/ebs-stall.timeline", "")
	if err != nil {
		b.Fatal(err)
	}
	simulated := tl.End.Seconds()
	b.Run("orchestrator", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := sim.RunOrchestrator(io.Discard, tl, orchestrator.Defaults()); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(simulated*float64(b.N)/b.Elapsed().Seconds(), "sim-s/s")
	})
	b.Run("tungsten", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p := report.NewPrinter(io.Discard, report.Text, tl.Start, tl.Names())
			r := report.New(tl, m)
			sim.Replay(tl, m, p, r)
			p.Summary(tl.File, r, nil)
		}
		b.ReportMetric(simulated*float64(b.N)/b.Elapsed().Seconds(), "sim-s/s")
	})
}
