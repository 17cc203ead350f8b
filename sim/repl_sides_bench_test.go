package sim_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// partitionDay is busyDay with a partition in each of its 72 cycles: at minute 17 a random
// node is cut off from the rest (the master, a fifth of the time: a failover, the isolated
// master's shun and a merge that loses what it acknowledged), healed at minute 19, and
// recovered at 19:30 (every isolated node shuns itself).
func partitionDay(seed uint64, mode string) string {
	r := rand.New(rand.NewPCG(seed, 1))
	lines := strings.Split(strings.TrimSpace(busyDay(seed, true, mode)), "\n")
	head, events, end := lines[:3], lines[3:len(lines)-1], lines[len(lines)-1]
	at := func(c int, d time.Duration) string {
		return timeline.Clock(time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), time.Duration(c)*20*time.Minute+d)
	}
	for c := range 72 {
		p := 1 + r.IntN(5)
		var rest []string
		for j := 1; j <= 5; j++ {
			if j != p {
				rest = append(rest, fmt.Sprintf("db%d", j))
			}
		}
		events = append(events,
			fmt.Sprintf("%s partition db%d | %s", at(c, 17*time.Minute), p, strings.Join(rest, " ")),
			fmt.Sprintf("%s partition heal", at(c, 19*time.Minute)),
			fmt.Sprintf("%s db%d recover", at(c, 19*time.Minute+30*time.Second), p))
	}
	slices.SortStableFunc(events, func(a, b string) int { return strings.Compare(a[:8], b[:8]) })
	return strings.Join(head, "\n") + "\n" + strings.Join(events, "\n") + "\n" + end + "\n"
}

// BenchmarkReplayDayPartitions replays partitionDay (busyDay and 72 partitions, each healed
// two minutes later) with its 200 writes/s workload, under async and semisync: from the first
// partition on the replay works out the application's side, the streams cut and the merges at
// every instant it tells.
//
//	GOMAXPROCS=1 go test ./sim -run XXX -bench ReplayDayPartitions
func BenchmarkReplayDayPartitions(b *testing.B) {
	m := statemap.Default()
	for _, mode := range []string{"async", "semisync"} {
		tl, err := timeline.Parse("bench.timeline", []byte(partitionDay(1, mode)))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(mode, func(b *testing.B) {
			b.ReportAllocs()
			var s string
			for b.Loop() {
				r := report.New(tl, m)
				sim.Replay(tl, m, r)
				f := r.Replication()
				s = fmt.Sprintf("%d writes offered, %d lost", f.Summary.Offered, f.Summary.Lost)
			}
			b.Log(s)
		})
	}
}
