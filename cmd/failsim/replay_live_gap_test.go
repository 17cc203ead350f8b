//go:build unix

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"
)

// A live replay whose own process was stopped for a while (SIGSTOP, then SIGCONT) was not
// exercised in that time: it prints the gap and differs, exit 1, where it used to agree. The
// real binary on the built-in server: 80 s of timeline at 20x, stopped for 2 s (the gap
// detector's limit at 20x is 1 s).
func TestReplayLiveNoticesClockGap(t *testing.T) {
	dir := t.TempDir()
	tl := "cluster db1:master db2:replica\n00:00:05 db2 stall\n00:00:20 db2 heal\n00:00:40 db1 refuse\n00:01:20 cluster end\n"
	if err := os.WriteFile(filepath.Join(dir, "short.timeline"), []byte(tl), 0o644); err != nil {
		t.Fatal(err)
	}
	c := start(t, dir, `^00:00:05 db2 fault stall$`, "replay", "--live", "--speed", "20", "short.timeline")
	if err := c.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	if err := c.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.done:
	case <-time.After(60 * time.Second):
		t.Fatalf("no exit 60 s after SIGCONT\nstdout:\n%s", c.out())
	}
	var ee *exec.ExitError
	if !errors.As(c.err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("exit %v, want 1\nstdout:\n%s\nstderr:\n%s", c.err, c.out(), c.errOut())
	}
	out := c.out()
	for _, re := range []string{`(?m)^not exercised: the runtime did not run for (1\.[5-9]\d*|[2-9](\.\d+)?)s of real time from 00:00:\d\d(\.\d+)?: its own clock jumped past the instant it had planned$`,
		`(?m)^verdict: differ$`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("stdout has no line matching %s:\n%s", re, out)
		}
	}
}
