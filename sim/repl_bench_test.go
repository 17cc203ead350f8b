package sim_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// busyDay writes a day of a 5-node cluster in 72 cycles of 20 minutes, from a seed: in each a
// random node dies (refuse) and comes back two minutes later (heal, recover: a master failed
// over returns as a replica), another stalls for a minute, and, with repl, a replica's stream
// lag changes, a link freezes and heals, and a replicator stops and starts. With repl the
// timeline starts a 200 writes/s workload (17,280,000 writes in the day) under mode.
func busyDay(seed uint64, repl bool, mode string) string {
	r := rand.New(rand.NewPCG(seed, 0))
	var b strings.Builder
	b.WriteString("cluster db1:master db2:replica db3:replica db4:replica db5:replica\n")
	if repl {
		b.WriteString("workload writes=200/s deadline=2s\nreplication " + mode + "\n")
	}
	at := func(c int, min int) string {
		return timeline.Clock(time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), time.Duration(c)*20*time.Minute+time.Duration(min)*time.Minute)
	}
	node := func() int { return 1 + r.IntN(5) }
	for c := range 72 {
		d, s := node(), node()
		fmt.Fprintf(&b, "%s db%d refuse\n%s db%d heal\n%s db%d recover\n", at(c, 0), d, at(c, 2), d, at(c, 2), d)
		if repl {
			fmt.Fprintf(&b, "%s db%d lag %ds\n", at(c, 4), node(), r.IntN(60))
		}
		fmt.Fprintf(&b, "%s db%d stall\n%s db%d heal\n", at(c, 6), s, at(c, 7), s)
		if repl {
			f, st := node(), node()
			fmt.Fprintf(&b, "%s db%d link freeze\n%s db%d link heal\n", at(c, 9), f, at(c, 11), f)
			fmt.Fprintf(&b, "%s db%d replicator stop\n%s db%d replicator start\n", at(c, 13), st, at(c, 16), st)
		}
	}
	b.WriteString("1970-01-02T00:00:00Z cluster end\n")
	return b.String()
}

// BenchmarkReplayDayWorkload replays a busy day (busyDay: 72 master or replica deaths, stalls,
// lags, frozen links and stopped replicators) with a 200 writes/s workload beside it
// (17,280,000 writes), under async and semisync, and the same day without the workload and the
// replication events: the writes are counted, not stored one by one, so the workload costs
// what changes, not what is written.
//
//	GOMAXPROCS=1 go test ./sim -run XXX -bench ReplayDay
func BenchmarkReplayDayWorkload(b *testing.B) {
	m := statemap.Default()
	for _, c := range []struct{ name, text string }{
		{"none", busyDay(1, false, "")},
		{"async", busyDay(1, true, "async")},
		{"semisync", busyDay(1, true, "semisync")},
	} {
		tl, err := timeline.Parse("bench.timeline", []byte(c.text))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var writes int64
			for b.Loop() {
				r := report.New(tl, m)
				sim.Replay(tl, m, r)
				if f := r.Replication(); f != nil {
					writes = f.Summary.Offered
				}
			}
			if c.name != "none" && writes != 17_280_001 {
				b.Fatalf("%d writes offered, want 17,280,001 (a day at 200/s, and the end's)", writes)
			}
		})
	}
}
