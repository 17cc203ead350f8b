package check

import (
	"context"
	"fmt"
	"testing"
	"time"

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
// replication its family adds, the workload's default properties included: compare its
// traces/s with BenchmarkCheck's.
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

// BenchmarkCheckSideBySide runs BenchmarkCheck and BenchmarkCheckWorkload's runs in one
// invocation, each family without and then with the workload (the same seed, shape and
// statemap), so that the ratio of their traces/s is read from one run on one machine state:
// the with-workload figure over the without one is issue 11's throughput target (>= 0.70).
//
//	go test ./check/ -run '^$' -bench SideBySide -benchtime 20000x -count 3
func BenchmarkCheckSideBySide(b *testing.B) {
	m := statemap.Default()
	w := &Workload{Rate: repl.PerSecond(200), Deadline: 2 * time.Second}
	for _, f := range []Family{Benign, Fatal, Mixed} {
		for _, c := range []struct {
			name string
			work *Workload
		}{{"without", nil}, {"with", w}} {
			b.Run(fmt.Sprintf("%s/%s", f, c.name), func(b *testing.B) {
				res, err := Run(context.Background(), Config{Map: m, Family: f, Shape: DefaultShape(), Traces: b.N, Seed: 1, Workload: c.work})
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
}
