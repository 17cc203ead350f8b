package sim_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/failsim/failsim/internal/cputime"
	"github.com/failsim/failsim/internal/daytimeline"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/shadow"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// BenchmarkShadow measures what N shadows cost a replay: the EBS stall (the aggressive shadows
// diverge from the live defaults at 21:12:20, so their engines decide apart from then on) and
// a simulated day of 5 nodes with 2,000 fault events, each with 0, 1 and 4 shadows, half of
// them the aggressive map and half the live defaults. shadows=0 is a replay without --shadow
// (sim.Replay, no Tee); the others run every shadow beside the engine on the same probes.
//
//	go test ./sim -run XXX -bench Shadow -count 10 > shadow.txt && benchstat shadow.txt
//
// On a machine shared with other work read cpu-µs/op, the process's CPU time per replay, before
// sec/op.
func BenchmarkShadow(b *testing.B) {
	agg, err := statemap.Load("../conf/examples/aggressive.properties")
	if err != nil {
		b.Fatal(err)
	}
	ebs, m, err := timeline.LoadFile("../testdata/incidents/ebs-stall.timeline", "")
	if err != nil {
		b.Fatal(err)
	}
	day, err := timeline.Parse("bench.timeline", []byte(daytimeline.Text(2000, 1)))
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		tl   *timeline.Timeline
	}{{"ebs-stall", ebs}, {"day", day}} {
		for _, n := range []int{0, 1, 4} {
			specs := make([]shadow.Spec, n)
			for i := range specs {
				specs[i] = shadow.Spec{Name: fmt.Sprintf("s%d", i), Map: agg}
				if i%2 == 1 {
					specs[i].Map = m
				}
			}
			b.Run(fmt.Sprintf("%s/shadows=%d", tc.name, n), func(b *testing.B) {
				b.ReportAllocs()
				tl := tc.tl
				cpu0 := cputime.Used()
				for b.Loop() {
					if n == 0 {
						sim.Replay(tl, m, report.New(tl, m))
						continue
					}
					if _, err := sim.ReplayShadows(context.Background(), tl, m, specs, shadow.NewTally(n), report.New(tl, m)); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(tl.End.Seconds()*float64(b.N)/b.Elapsed().Seconds(), "sim-s/s")
				if c := cputime.Used(); c > 0 {
					// On a shared machine the clock measures the load too: the CPU time less so.
					b.ReportMetric(float64((c-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
				}
			})
		}
	}
}
