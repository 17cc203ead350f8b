package check

import (
	"context"
	"testing"
	"time"

	"github.com/failsim/failsim/internal/cputime"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
)

// BenchmarkCheck measures failsim check's throughput on one-hour, five-node traces of each
// family, with every property that applies, on all cores: see the traces/s metric.
//
//	go test ./check/ -run '^$' -bench Check -benchtime 20000x
func BenchmarkCheck(b *testing.B) {
	m := statemap.Default()
	for _, f := range []Family{Benign, Fatal, Mixed} {
		b.Run(f.String(), func(b *testing.B) {
			res, err := Run(context.Background(), Config{Map: m, Family: f, Shape: DefaultShape(), Traces: b.N, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			if !res.Held() {
				b.Fatalf("%s: %s", res.Violations[0].Property, res.Violations[0].Why)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "traces/s")
		})
	}
}

// BenchmarkGenerate measures trace generation alone.
func BenchmarkGenerate(b *testing.B) {
	g, err := NewGenerator(Mixed, DefaultShape(), statemap.Default(), 0)
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		g.Trace(TraceRand(1, i))
		i++
	}
}

// BenchmarkReplayOnly measures the replay of generated mixed traces with no property watching:
// the floor under BenchmarkCheck.
func BenchmarkReplayOnly(b *testing.B) {
	m := statemap.Default()
	for _, f := range []Family{Benign, Fatal, Mixed} {
		b.Run(f.String(), func(b *testing.B) {
			g, err := NewGenerator(f, DefaultShape(), m, 0)
			if err != nil {
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				sim.Replay(g.Trace(TraceRand(1, i)), m)
				i++
			}
		})
	}
}

// BenchmarkCheckWorkload is BenchmarkCheck with a 200 writes/s workload on every trace and the
// replication its family adds, the workload's default properties included. Its traces/s and
// BenchmarkCheck's come from separate runs, which other load on the machine sways apart:
// BenchmarkCheckSideBySide measures the two side by side, for their ratio.
//
//	go test ./check/ -run '^$' -bench Check -benchtime 20000x
func BenchmarkCheckWorkload(b *testing.B) {
	m := statemap.Default()
	w := &Workload{Rate: repl.PerSecond(200), Deadline: 2 * time.Second}
	for _, f := range []Family{Benign, Fatal, Mixed} {
		b.Run(f.String(), func(b *testing.B) {
			res, err := Run(context.Background(), Config{Map: m, Family: f, Shape: DefaultShape(), Traces: b.N, Seed: 1, Workload: w})
			if err != nil {
				b.Fatal(err)
			}
			if !res.Held() {
				b.Fatalf("%s: %s", res.Violations[0].Property, res.Violations[0].Why)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "traces/s")
		})
	}
}

// BenchmarkCheckSideBySide measures BenchmarkCheck's and BenchmarkCheckWorkload's runs side by
// side: for each family it replays the same traces (seed, shape and statemap) without and with
// the workload, alternating blocks of sideBlock traces, so that whatever else the machine does
// falls on both alike. It reports both throughputs, by the clock and, where the process's CPU
// time is at hand, by CPU time (cpu-traces/s, the figure that other load on a shared machine
// disturbs least), and the ratio of with to without: issue 11's target is a ratio of 0.70 or
// more. ns/op is one trace replayed both ways.
//
//	go test ./check/ -run '^$' -bench SideBySide -benchtime 20000x -count 3
func BenchmarkCheckSideBySide(b *testing.B) {
	m := statemap.Default()
	w := &Workload{Rate: repl.PerSecond(200), Deadline: 2 * time.Second}
	for _, f := range []Family{Benign, Fatal, Mixed} {
		b.Run(f.String(), func(b *testing.B) {
			var wall, cpu [2]time.Duration // without, with
			for first := 0; first < b.N; first += sideBlock {
				n := min(sideBlock, b.N-first)
				for k, work := range []*Workload{nil, w} {
					t0, c0 := time.Now(), cputime.Used()
					res, err := Run(context.Background(), Config{Map: m, Family: f, Shape: DefaultShape(), Traces: n, First: first, Seed: 1, Workload: work})
					wall[k] += time.Since(t0)
					cpu[k] += cputime.Used() - c0
					if err != nil {
						b.Fatal(err)
					}
					if !res.Held() {
						b.Fatalf("%s: %s", res.Violations[0].Property, res.Violations[0].Why)
					}
				}
			}
			rate := func(d time.Duration) float64 { return float64(b.N) / d.Seconds() }
			b.ReportMetric(rate(wall[0]), "without-traces/s")
			b.ReportMetric(rate(wall[1]), "with-traces/s")
			b.ReportMetric(float64(wall[0])/float64(wall[1]), "ratio")
			if cpu[0] > 0 && cpu[1] > 0 {
				b.ReportMetric(rate(cpu[0]), "without-cpu-traces/s")
				b.ReportMetric(rate(cpu[1]), "with-cpu-traces/s")
				b.ReportMetric(float64(cpu[0])/float64(cpu[1]), "cpu-ratio")
			}
		})
	}
}

// sideBlock is how many traces BenchmarkCheckSideBySide replays one way before it replays them
// the other.
const sideBlock = 250
