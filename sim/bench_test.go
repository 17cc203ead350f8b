package sim_test

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/internal/daytimeline"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// BenchmarkReplayDay replays a simulated day of 5 nodes with 2,000 fault events: the engine
// with the verdict's report alone, and with the text event log written to io.Discard.
func BenchmarkReplayDay(b *testing.B) {
	tl, err := timeline.Parse("bench.timeline", []byte(daytimeline.Text(2000, 1)))
	if err != nil {
		b.Fatal(err)
	}
	m := statemap.Default()
	simulated := tl.End.Seconds()
	b.Run("engine", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sim.Replay(tl, m, report.New(tl, m))
		}
		b.ReportMetric(simulated*float64(b.N)/b.Elapsed().Seconds(), "sim-s/s")
	})
	b.Run("text-log", func(b *testing.B) {
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

// BenchmarkReplaySpan replays the same handful of faults spread over a day and over 200 years:
// the replay's cost follows the changes, not the span, so both cost about the same.
//
//	go test ./sim -run XXX -bench ReplaySpan -count 3
func BenchmarkReplaySpan(b *testing.B) {
	m := statemap.Default()
	for _, c := range []struct {
		name string
		span time.Duration
	}{{"day", 24 * time.Hour}, {"200-years", 200 * 365 * 24 * time.Hour}} {
		tl, err := timeline.Parse("span.timeline", []byte(spanText(c.span)))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sim.Replay(tl, m, report.New(tl, m))
			}
		})
	}
}

// spanText writes a three-node timeline with the same eight faults at the same fractions of
// span: a stall, a replica frozen and failed, healed and returned, errors, and the master frozen
// and failed over.
func spanText(span time.Duration) string {
	start := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	var b strings.Builder
	b.WriteString("cluster db1:master db2:replica db3:replica\nstart 2000-01-01T00:00:00Z\n")
	for i, ev := range []string{"db2 stall", "db3 freeze", "db2 heal", "db3 heal", "db2 error 1040", "db1 freeze", "db2 heal", "db3 slow 2s"} {
		fmt.Fprintf(&b, "%s %s\n", start.Add(span/9*time.Duration(i+1)).Format(time.RFC3339), ev)
	}
	fmt.Fprintf(&b, "%s cluster end\n", start.Add(span).Format(time.RFC3339))
	return b.String()
}
