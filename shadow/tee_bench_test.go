package shadow_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/failsim/failsim/core"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/internal/cputime"
	"github.com/failsim/failsim/shadow"
	"github.com/failsim/failsim/statemap"
)

// BenchmarkShadowStep measures what a shadow costs the live runtime, which runs every probe
// and makes every tick: one input (a probe outcome or a tick) given to the live core and to 0,
// 1 or 4 shadows, each followed by Ready and Advance, as the scheduler does. A 5-node cluster
// whose master alternates between ok and query_results_timeout every 30 s, under the defaults
// and, for the shadows, the aggressive map; a tick every 10 s, a probe of each node every 3 s.
// shadows=0 is the core alone (no Tee).
//
//	go test ./shadow -run XXX -bench ShadowStep -count 10 > step.txt && benchstat step.txt
func BenchmarkShadowStep(b *testing.B) {
	agg, err := statemap.Load("../conf/examples/aggressive.properties")
	if err != nil {
		b.Fatal(err)
	}
	nodes := []fence.NodeConfig{{Name: "db1", Role: fence.Master}, {Name: "db2"}, {Name: "db3"}, {Name: "db4"}, {Name: "db5"}}
	newCore := func(m *statemap.Map) *core.Core {
		return core.New(fence.New(fence.Config{Nodes: nodes, Map: m}), nil)
	}
	for _, n := range []int{0, 1, 4} {
		b.Run(fmt.Sprintf("shadows=%d", n), func(b *testing.B) {
			var m drive.Machine = newCore(statemap.Default())
			if n > 0 {
				cands := make([]shadow.Candidate, n)
				for i := range cands {
					cands[i] = shadow.Candidate{Name: fmt.Sprint("s", i), Machine: newCore(agg)}
				}
				m = shadow.NewTee(m, cands, shadow.NewTally(n))
			}
			step := func() {
				if len(m.Ready()) > 0 {
					m.Advance()
				}
			}
			b.ReportAllocs()
			t := time.Duration(0)
			inputs := 0
			cpu0 := cputime.Used()
			for b.Loop() {
				t += time.Second
				if t%(3*time.Second) == 0 {
					for i := range len(nodes) {
						c := statemap.OK
						if i == 0 && (t/(30*time.Second))%2 == 1 {
							c = statemap.QueryResultsTimeout
						}
						m.Probe(t, i, c)
						step()
						inputs++
					}
				}
				if t%statemap.TickInterval == 0 {
					m.Tick(t, 1)
					step()
					inputs++
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(inputs), "ns/input")
			if c := cputime.Used(); c > 0 {
				b.ReportMetric(float64((c-cpu0).Nanoseconds())/float64(inputs), "cpu-ns/input")
			}
		})
	}
}
