package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/failsim/failsim/internal/daytimeline"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// cancelAfter is a writer that cancels its context with a SIGTERM once n bytes went through
// it: the signal arrives while the report is being written.
type cancelAfter struct {
	n      int
	cancel context.CancelCauseFunc
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	if c.n -= len(p); c.n <= 0 {
		c.cancel(signalled{syscall.SIGTERM})
	}
	return len(p), nil
}

// TestReportStopsAtSignalWhileWriting: a SIGTERM while the report of a day is being written
// stops the write: exit 143, nothing at the path, no temporary file beside it (issue 21, 7.9:
// the page used to be written whole, exit 0). The signal arrives after the page's first
// bytes, from the writer itself, so nothing here depends on timing.
func TestReportStopsAtSignalWhileWriting(t *testing.T) {
	tl, err := timeline.Parse("day.timeline", []byte(daytimeline.Text(2000, 1)))
	if err != nil {
		t.Fatal(err)
	}
	run := newReportRun(tl, statemap.Default())
	if _, err := sim.ReplayContext(context.Background(), tl, statemap.Default(), run.observers()...); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "day.html")
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	tap := &cancelAfter{n: 64 << 10, cancel: cancel}
	m := &Main{Stdout: io.Discard, Stderr: io.Discard}
	err = m.writeTo(ctx, path, func(w io.Writer) error { return run.write(io.MultiWriter(w, tap), "html") }, "day.timeline")
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 143 {
		t.Fatalf("writeReport after a SIGTERM: %v, want exit 143", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("after the signal the folder holds %v, want nothing", ents)
	}

	// To standard output: the same error; what went out before the signal cannot be taken back.
	ctx, cancel = context.WithCancelCause(context.Background())
	defer cancel(nil)
	m.Stdout = &cancelAfter{n: 64 << 10, cancel: cancel}
	if err := m.writeReport(ctx, "-", "html", run); !errors.As(err, &ee) || ee.code != 143 {
		t.Fatalf("writeReport to stdout after a SIGTERM: %v, want exit 143", err)
	}
}
