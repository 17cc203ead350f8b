package sweep

import (
	"context"
	"testing"

	"github.com/failsim/failsim/internal/cputime"
)

// BenchmarkSweep12x12 is the target: a 12 x 12 grid of the two timeout thresholds
// the defaults fence after 8 ticks, 2,000 benign and 2,000 fatal one-hour, five-node traces a
// point: 576,000 results of a trace at a point, on every core. Trace generation and the four
// files included. results/s counts a trace at a point once; replays/sweep is how many replays
// that took once the shortcuts (memo.go) spared the ones whose result was already known; cpu-s
// is the process's CPU time, which a loaded machine does not inflate as it does wall time.
//
//	go test ./sweep -run '^$' -bench Sweep12x12 -benchtime 1x
func BenchmarkSweep12x12(b *testing.B) {
	benchSweep(b, config(b, 2000, "login_response_timeout.threshold=1..12", "socket_connect_timeout.threshold=1..12"))
}

// BenchmarkSweep12x12Workload is the same grid with --workload writes=200/s,deadline=2s: every
// trace also runs the replication model, and the row's shortcut is off (memo.go).
//
//	go test ./sweep -run '^$' -bench Sweep12x12Workload -benchtime 1x
func BenchmarkSweep12x12Workload(b *testing.B) {
	cfg := config(b, 2000, "login_response_timeout.threshold=1..12", "socket_connect_timeout.threshold=1..12")
	cfg.Workload = workload(b)
	benchSweep(b, cfg)
}

// BenchmarkSweepLiveness6x6 is a 6 x 6 grid of the group's gap-threshold and
// failsafe-threshold (1..6 ticks each) over 500 one-hour, five-node partition traces a point:
// 18,000 results, each a replay (the partition family has no shortcut).
//
//	go test ./sweep -run '^$' -bench SweepLiveness6x6 -benchtime 1x
func BenchmarkSweepLiveness6x6(b *testing.B) {
	benchSweep(b, partitionConfig(b, 500, "gap-threshold=1..6", "failsafe-threshold=1..6"))
}

// BenchmarkSweepLiveness6x6Workload is the same grid with --workload writes=200/s,deadline=2s:
// every partition trace also runs the replication model, and each point sums up the client's
// view.
//
//	go test ./sweep -run '^$' -bench SweepLiveness6x6Workload -benchtime 1x
func BenchmarkSweepLiveness6x6Workload(b *testing.B) {
	cfg := partitionConfig(b, 500, "gap-threshold=1..6", "failsafe-threshold=1..6")
	cfg.Workload = workload(b)
	benchSweep(b, cfg)
}

func benchSweep(b *testing.B, cfg Config) {
	results := cfg.Grid.Len() * (cfg.Benign + cfg.Fatal + cfg.Partition)
	replays := 0
	cpu0 := cputime.Used()
	for b.Loop() {
		res, err := Run(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := res.Files(); err != nil {
			b.Fatal(err)
		}
		replays += res.replays
	}
	b.ReportMetric(float64(results*b.N)/b.Elapsed().Seconds(), "results/s")
	b.ReportMetric(float64(replays)/float64(b.N), "replays/sweep")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/sweep")
	if c := cputime.Used(); c > 0 {
		b.ReportMetric((c-cpu0).Seconds()/float64(b.N), "cpu-s/sweep")
	}
}
