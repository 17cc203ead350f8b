package htmlreport_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/htmlreport"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// rendered is a replay drawn: the page, and what the verdict says.
type rendered struct {
	HTML      []byte
	Verdict   []string
	Failovers []fence.Failover
	Outage    repl.Outage // the longest; zero without a workload
}

// render replays tl under m as failsim report does and returns the page and the chart alone.
func render(t testing.TB, tl *timeline.Timeline, m *statemap.Map) (rendered, []byte) {
	t.Helper()
	var log htmlreport.LogWriter
	var summary bytes.Buffer
	printer := report.NewPrinter(&log, report.Text, tl.Start, tl.Names())
	verdict := report.New(tl, m)
	expects := expect.NewSet(tl, m)
	rec := htmlreport.New(tl, m)
	if _, err := sim.ReplayContext(context.Background(), tl, m, printer, verdict, expects, rec); err != nil {
		t.Fatal(err)
	}
	if err := printer.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := report.NewPrinter(&summary, report.Text, tl.Start, tl.Names()).Summary(tl.File, verdict, expects.Results()); err != nil {
		t.Fatal(err)
	}
	var p, c bytes.Buffer
	if err := rec.WriteHTML(&p, log.Text(summary.String())); err != nil {
		t.Fatal(err)
	}
	if err := rec.WriteSVG(&c); err != nil {
		t.Fatal(err)
	}
	out := rendered{HTML: p.Bytes(), Verdict: verdict.Verdict(), Failovers: verdict.Failovers()}
	if f := verdict.Replication(); f != nil && f.Workload {
		out.Outage = f.Summary.Outage
	}
	return out, c.Bytes()
}

// load reads a shipped timeline and its statemap.
func load(t testing.TB, path string) (*timeline.Timeline, *statemap.Map) {
	t.Helper()
	tl, m, err := timeline.LoadFile(path, "")
	if err != nil {
		t.Fatal(err)
	}
	return tl, m
}
