package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// A timeline of 1,000,000 events (about 50 MB) still replays through the CLI: the cap on a
// timeline's bytes (128 MiB) leaves room for it. It takes several seconds, so -short skips it.
func TestReplayMillionEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a 1,000,000-event replay takes several seconds")
	}
	path := filepath.Join(t.TempDir(), "million.timeline")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "cluster db1:master db2:replica db3:replica")
	fmt.Fprintln(w, "checker interval=60s timeout=5s # few probes: the test is about the size of the input")
	faults := []string{"freeze", "heal", "stall", "heal", "slow 1500ms", "heal", "error 1040", "heal"}
	const events = 1_000_000
	for i := range events {
		fmt.Fprintf(w, "+1s db%d %s   # event %07d of a million events\n", 2+i%2, faults[(i/2)%len(faults)], i)
	}
	fmt.Fprintln(w, "expect db1 never failed")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Size() < 45<<20 {
		t.Fatalf("the timeline has %d bytes: want about 50 MB", fi.Size())
	}
	out := &tailWriter{}
	var errOut bytes.Buffer
	m := &Main{Stdin: bytes.NewReader(nil), Stdout: out, Stderr: &errOut}
	if code := m.Exit(context.Background(), []string{"replay", path}); code != 0 {
		t.Fatalf("exit %d\nstderr: %s", code, errOut.String())
	}
	if !regexp.MustCompile(`expectations: 1 held, 0 failed\n  held    \S+million.timeline:1000003: expect db1 never failed\n$`).Match(out.tail) {
		t.Errorf("the replay ends:\n%s", out.tail)
	}
}

// tailWriter counts what is written and keeps its last 4 KiB.
type tailWriter struct {
	n    int64
	tail []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	w.tail = append(w.tail, p...)
	if len(w.tail) > 4096 {
		w.tail = append(w.tail[:0], w.tail[len(w.tail)-4096:]...)
	}
	return len(p), nil
}
