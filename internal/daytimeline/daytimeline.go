// Package daytimeline writes the benchmark's day: a 24-hour timeline of a five-node cluster with
// a given number of fault events, drawn from a seed. The simulator's benchmark replays it and
// the report's tests draw it.
package daytimeline

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/failsim/failsim/timeline"
)

// Text writes a 24-hour timeline of 5 nodes with n fault events (n > 0), from a seed: the
// events spread evenly over the day, each at a random instant of its share, on a random node,
// with a random fault (heal three times as likely as any other), and a node recovered after
// every 200th.
func Text(n int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 0))
	faults := []string{"heal", "heal", "heal", "refuse", "reset", "close", "freeze", "blackhole", "stall", "slow 2s", "slow 8s", "error 1040", "error 1045", "unreachable", "hostdown"}
	var b strings.Builder
	b.WriteString("cluster db1:master db2:replica db3:replica db4:replica db5:replica\n")
	start := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	step := 24 * time.Hour / time.Duration(n)
	for i := range n {
		at := time.Duration(i)*step + time.Duration(r.Int64N(int64(step)))
		fmt.Fprintf(&b, "%s db%d %s\n", timeline.Clock(start, at.Truncate(time.Second)), 1+r.IntN(5), faults[r.IntN(len(faults))])
		if i%200 == 199 {
			fmt.Fprintf(&b, "%s db%d recover\n", timeline.Clock(start, at.Truncate(time.Second)), 1+r.IntN(5))
		}
	}
	b.WriteString("1970-01-02T00:00:00Z cluster end\n")
	return b.String()
}
