package report_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/internal/daytimeline"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// counter counts the events it is told.
type counter struct{ n int }

func (c *counter) Event(act.Event) { c.n++ }

const runTimeline = `cluster db1:master db2:replica
00:00:30 db1 refuse
00:02:00 cluster end
expect failover of db1 to db2
expect no failover
`

// A Run tells its log, its verdict, its expectations and its other observers the same replay,
// and its summary is the one a printer writes of that verdict and those results.
func TestRunTellsOneReplay(t *testing.T) {
	tl, err := timeline.Parse("run.timeline", []byte(runTimeline))
	if err != nil {
		t.Fatal(err)
	}
	m := statemap.Default()
	var out, again bytes.Buffer
	other := &counter{}
	run := report.NewRun(tl, m, report.NewPrinter(&out, report.Text, tl.Start, tl.Names()), other)
	if obs := run.Observers(); len(obs) != 4 || obs[1] != run.Verdict() || obs[3] != other {
		t.Fatalf("observers %v, want the log, the verdict, the expectations and the other", obs)
	}
	sim.Replay(tl, m, run.Observers()...)
	results, err := run.Summary()
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 2 || !results[0].Held || results[1].Held || run.Held() {
		t.Errorf("results %+v, Held %v: want the failover held and no failover failed", results, run.Held())
	}
	if other.n == 0 {
		t.Error("the other observer was told no event")
	}

	// What a hand-made composition writes, the Run writes.
	verdict := report.New(tl, m)
	printer := report.NewPrinter(&again, report.Text, tl.Start, tl.Names())
	sim.Replay(tl, m, printer, verdict)
	if err := printer.Summary(tl.File, verdict, results); err != nil {
		t.Fatal(err)
	}
	if out.String() != again.String() {
		t.Errorf("the Run wrote\n%s\nthe printer and verdict alone\n%s", out.String(), again.String())
	}

	// The summary again, elsewhere: the same words as the log's tail.
	var summary bytes.Buffer
	if err := run.WriteSummary(&summary, report.Text); err != nil {
		t.Fatal(err)
	}
	if s := summary.String(); s == "" || !bytes.HasSuffix(out.Bytes(), summary.Bytes()) {
		t.Errorf("WriteSummary wrote %q, not the log's tail", s)
	}
}

// A Run with no log judges and tells nothing as it goes: its summary writes nothing and gives
// the results; a stopped one flushes nothing.
func TestRunWithoutLog(t *testing.T) {
	tl, err := timeline.Parse("run.timeline", []byte(runTimeline))
	if err != nil {
		t.Fatal(err)
	}
	m := statemap.Default()
	run := report.NewRun(tl, m, nil)
	if n := len(run.Observers()); n != 2 {
		t.Fatalf("%d observers, want the verdict and the expectations", n)
	}
	sim.Replay(tl, m, run.Observers()...)
	if results, err := run.Summary(); err != nil || len(results) != 2 {
		t.Errorf("Summary() = %v, %v: want two results and no error", results, err)
	}
	if !run.Verdict().FailedOver() {
		t.Error("the verdict saw no failover")
	}
	if err := run.Flush(); err != nil {
		t.Errorf("Flush() = %v", err)
	}
}

// A replay stopped before its end: Flush writes out the events so far, and the log's error
// is the Run's.
func TestRunStopped(t *testing.T) {
	day, err := timeline.Parse("day.timeline", []byte(daytimeline.Text(2000, 1)))
	if err != nil {
		t.Fatal(err)
	}
	m := statemap.Default()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	run := report.NewRun(day, m, report.NewPrinter(&out, report.Text, day.Start, day.Names()))
	if _, err := sim.ReplayContext(ctx, day, m, run.Observers()...); !errors.Is(err, context.Canceled) {
		t.Fatalf("ReplayContext after cancel: %v", err)
	}
	if err := run.Flush(); err != nil {
		t.Fatal(err)
	}
	if out.Len() == 0 || bytes.Contains(out.Bytes(), []byte("verdict:")) {
		t.Errorf("a stopped run wrote %d bytes, want its events so far and no verdict:\n%s", out.Len(), out.String())
	}

	tl, err := timeline.Parse("run.timeline", []byte(runTimeline))
	if err != nil {
		t.Fatal(err)
	}

	broken := report.NewRun(tl, m, report.NewPrinter(failing{}, report.Text, tl.Start, tl.Names()))
	sim.Replay(tl, m, broken.Observers()...)
	if _, err := broken.Summary(); !errors.Is(err, errFull) {
		t.Errorf("Summary to a full disk: %v, want %v", err, errFull)
	}
}

var errFull = errors.New("disk full")

// failing is a writer that fails every write.
type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errFull }
