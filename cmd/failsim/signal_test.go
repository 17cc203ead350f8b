//go:build unix

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/failsim/failsim/internal/fakemysql"
)

// stopBound is how long a command may take to stop after SIGINT or SIGTERM, measured from the
// signal. It tells a command that stops from one that ignores the signal (each case here would
// otherwise run for minutes or for ever), not how fast it stops: a second was missed at 1.95 s
// on the 2-core machine under a parallel build.
const stopBound = 15 * time.Second

// child is failsim run as a real process: this test binary re-executed as failsim (TestMain).
type child struct {
	cmd     *exec.Cmd
	mu      sync.Mutex
	stdout  tail
	stderr  bytes.Buffer
	matched chan struct{} // closed when stdout matched the pattern given to start
	done    chan struct{} // closed when the process has exited and its output is read
	err     error
}

// start runs failsim with args in dir; the test goes on once a line of its stdout or stderr
// matches ready. Its output is read all along, so that a chatty child never blocks on a full
// pipe.
func start(t *testing.T, dir, ready string, args ...string) *child {
	t.Helper()
	c := &child{cmd: exec.Command("failsim", args...), matched: make(chan struct{}), done: make(chan struct{})}
	c.cmd.Dir = dir
	// Under -race a process sleeps 1 s at exit (atexit_sleep_ms) before it ends: not failsim's.
	c.cmd.Env = append(os.Environ(), "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errOut, err := c.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(ready)
	var once sync.Once
	read := func(r io.Reader, keep func(string)) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			c.mu.Lock()
			keep(sc.Text())
			c.mu.Unlock()
			if re.MatchString(sc.Text()) {
				once.Do(func() { close(c.matched) })
			}
		}
		io.Copy(io.Discard, r)
	}
	var reading sync.WaitGroup
	reading.Add(2)
	go func() {
		defer reading.Done()
		read(out, c.stdout.add)
	}()
	go func() {
		defer reading.Done()
		read(errOut, func(line string) { c.stderr.WriteString(line + "\n") })
	}()
	go func() {
		reading.Wait()
		c.err = c.cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		c.cmd.Process.Kill()
		<-c.done
	})
	select {
	case <-c.matched:
	case <-c.done:
		t.Fatalf("failsim %s exited before its stdout matched %q: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), ready, c.err, c.out(), c.errOut())
	case <-time.After(60 * time.Second):
		t.Fatalf("failsim %s: no stdout line matched %q in 60 s (a guard, not a measure)\nstdout:\n%s", strings.Join(args, " "), ready, c.out())
	}
	return c
}

// signal sends sig and waits for the process to exit; it returns the exit code and the time
// from the signal to the exit.
func (c *child) signal(t *testing.T, sig syscall.Signal) (code int, took time.Duration) {
	t.Helper()
	t0 := time.Now()
	if err := c.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("no exit 30 s after %v\nstdout:\n%s\nstderr:\n%s", sig, c.out(), c.errOut())
	}
	took = time.Since(t0)
	var ee *exec.ExitError
	switch {
	case c.err == nil:
		return 0, took
	case errors.As(c.err, &ee):
		return ee.ExitCode(), took // -1: killed by the signal, not handled
	}
	t.Fatal(c.err)
	return 0, 0
}

func (c *child) out() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stdout.String()
}

func (c *child) errOut() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stderr.String()
}

// tail keeps the first and the last lines of a long output.
type tail struct {
	head, last []string
	n          int
}

func (t *tail) add(line string) {
	t.n++
	if len(t.head) < 20 {
		t.head = append(t.head, line)
		return
	}
	t.last = append(t.last, line)
	if len(t.last) > 40 {
		t.last = t.last[1:]
	}
}

func (t *tail) String() string {
	s := strings.Join(t.head, "\n")
	if skipped := t.n - len(t.head) - len(t.last); skipped > 0 {
		s += fmt.Sprintf("\n[... %d lines ...]", skipped)
	}
	if len(t.last) > 0 {
		s += "\n" + strings.Join(t.last, "\n")
	}
	return s
}

// expectStop checks an exit code and the stop bound.
func expectStop(t *testing.T, c *child, sig syscall.Signal, wantCode int) {
	t.Helper()
	code, took := c.signal(t, sig)
	if code != wantCode {
		t.Errorf("after %v: exit %d, want %d\nstderr:\n%s", sig, code, wantCode, c.errOut())
	}
	if took > stopBound {
		t.Errorf("after %v: stopped in %v, want at most %v", sig, took.Round(time.Millisecond), stopBound)
	}
}

// A replay of a FIFO that no one writes to stops at SIGINT (130) or SIGTERM (143), whether
// it waits in open(2) for a writer or in read(2) for data.
func TestSignalStopsReplayOfFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "incident.timeline")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, c := range []struct {
		sig    syscall.Signal
		code   int
		writer bool
	}{{syscall.SIGINT, 130, false}, {syscall.SIGTERM, 143, false}, {syscall.SIGINT, 130, true}} {
		t.Run(fmt.Sprintf("%v writer=%v", c.sig, c.writer), func(t *testing.T) {
			if c.writer {
				// A writer that never writes: the replay waits in read(2).
				w, err := os.OpenFile(fifo, os.O_RDWR, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer w.Close()
			}
			p := start(t, dir, `DBG reading timeline=incident.timeline`, "replay", "--log-level", "debug", "incident.timeline")
			time.Sleep(100 * time.Millisecond) // from the line to the open or the read; not measured
			expectStop(t, p, c.sig, c.code)
			if got := p.errOut(); !strings.Contains(got, "failsim: error: replay interrupted by SIG") {
				t.Errorf("stderr:\n%s", got)
			}
			if p.out() != "" {
				t.Errorf("stdout: %q, want nothing", p.out())
			}
		})
	}
}

// A long replay stops at the next instant's boundary: what it printed so far, no verdict, and
// 130 or 143: an interrupted run is not a passing one.
func TestSignalStopsLongReplay(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("cluster db1:master db2:replica db3:replica\n")
	faults := []string{"freeze", "heal", "stall", "heal", "slow 1500ms", "heal"}
	for i := range 300_000 {
		fmt.Fprintf(&b, "+1s db%d %s\n", 2+i%2, faults[(i/2)%len(faults)])
	}
	b.WriteString("expect db1 never failed\n")
	if err := os.WriteFile(filepath.Join(dir, "long.timeline"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			p := start(t, dir, `^00:00:0\d db2 fault freeze$`, "replay", "long.timeline")
			expectStop(t, p, c.sig, c.code)
			if out := p.out(); strings.Contains(out, "verdict:") || strings.Contains(out, "expectations:") {
				t.Errorf("an interrupted replay printed a verdict:\n%s", out)
			}
			if got := p.errOut(); !strings.Contains(got, "failsim: error: replay interrupted by "+map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[c.sig]+": the output above is incomplete\n") {
				t.Errorf("stderr:\n%s", got)
			}
		})
	}
}

// check stops between traces and says how far it got.
func TestSignalStopsCheck(t *testing.T) {
	p := start(t, t.TempDir(), `^failsim check: `, "check", "--family", "benign", "--traces", "10000000")
	time.Sleep(300 * time.Millisecond) // some traces replayed; not measured
	expectStop(t, p, syscall.SIGTERM, 143)
	if !regexp.MustCompile(`(?m)^benign:\n  interrupted after \d+ of 10000000 traces: no verdict$`).MatchString(p.out()) {
		t.Errorf("stdout:\n%s", p.out())
	}
	if got := p.errOut(); !strings.Contains(got, "failsim: error: check interrupted by SIGTERM: the output above is incomplete\n") {
		t.Errorf("stderr:\n%s", got)
	}
}

// watch's documented way to end is a signal: it prints its verdict, waits for a running
// --on-failover command, and exits 0.
func TestSignalStopsWatch(t *testing.T) {
	dir := t.TempDir()
	p := start(t, dir, ` db1 FAILED: master `, "watch", "--interval", "100ms", "--timeout", "100ms",
		"--on-failover", "sleep 0.3; echo done > hook.txt",
		"--node", "db1:master=probe:pw@tcp(127.0.0.1:1)/", "--node", "db2:replica=probe:pw@tcp(127.0.0.1:2)/")
	expectStop(t, p, syscall.SIGINT, 0)
	if !regexp.MustCompile(`(?m)^verdict: no failover: master db1 failed at .* and no replica was eligible; the cluster has no master$`).MatchString(p.out()) {
		t.Errorf("stdout:\n%s", p.out())
	}
	if b, err := os.ReadFile(filepath.Join(dir, "hook.txt")); err != nil || string(b) != "done\n" {
		t.Errorf("the --on-failover command did not finish before failsim exited: %q, %v", b, err)
	}
}

// The proxy serves until a signal, then closes everything and exits 0.
func TestSignalStopsProxy(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			p := start(t, t.TempDir(), `^control: http://127\.0\.0\.1:\d+$`, "proxy", "--node", "db1=127.0.0.1:0,127.0.0.1:1", "--control", "127.0.0.1:0")
			expectStop(t, p, sig, 0)
		})
	}
}

// A live replay is a replay: a signal stops it with 130 or 143, not with the exit 1 of a
// replay that failed.
func TestSignalStopsLiveReplay(t *testing.T) {
	srv := fakemysql.Start(t, fakemysql.Config{})
	dir := t.TempDir()
	tl := "cluster db1:master db2:replica\n00:10:00 db1 freeze\n"
	if err := os.WriteFile(filepath.Join(dir, "slow.timeline"), []byte(tl), 0o644); err != nil {
		t.Fatal(err)
	}
	p := start(t, dir, `^live replay of slow.timeline at 10x`, "replay", "--live", "--mysql", "probe:pw@tcp("+srv.Addr()+")/", "slow.timeline")
	expectStop(t, p, syscall.SIGINT, 130)
	if got := p.errOut(); !strings.Contains(got, "failsim: error: live replay interrupted by SIGINT: the output above is incomplete\n") {
		t.Errorf("stderr:\n%s", got)
	}
}

// watch reads its statemap before it starts; a FIFO no one writes to does not hold it past a
// signal. It had not started, so there is no verdict to print.
func TestSignalStopsWatchReadingStatemap(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "statemap.properties"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	p := start(t, dir, `DBG reading statemap=statemap.properties`, "watch", "--log-level", "debug", "--statemap", "statemap.properties",
		"--node", "db1:master=probe:pw@tcp(127.0.0.1:1)/")
	time.Sleep(100 * time.Millisecond) // from the line to the open; not measured
	expectStop(t, p, syscall.SIGTERM, 0)
}
