package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/timeline"
)

// A live replay with no --mysql stops its built-in server (the failsim-mysqld child) when the replay is cancelled
// (Ctrl-C): runReplayLive returns soon after, and the server's port refuses.
func TestReplayLiveEmbeddedStopsOnCancel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.timeline")
	if err := os.WriteFile(path, []byte("cluster db1:master db2:replica\n00:01:00 db1 stall\n00:10:00 cluster end\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tl, sm, err := timeline.LoadFile(path, "")
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancelled once the replay runs: its first line is printed after the server answered.
	stdout := &cancelOnWrite{after: 500 * time.Millisecond, cancel: cancel}
	m := &Main{Stdin: bytes.NewReader(nil), Stdout: stdout, Stderr: &bytes.Buffer{}}
	err = m.runReplayLive(ctx, path, tl, sm, "", 10, report.Text, zerolog.New(&logs).Level(zerolog.InfoLevel), "")
	if took := stdout.sinceCancel(); took > 5*time.Second {
		t.Errorf("runReplayLive returned %v after the cancellation: want it to stop at once", took)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("runReplayLive: %v; want the cancellation", err)
	}
	if out := stdout.String(); !strings.Contains(out, "against the built-in server") {
		t.Errorf("stdout does not say which server:\n%s", out)
	}
	var addr string
	for _, line := range strings.Split(logs.String(), "\n") {
		var rec struct{ Addr string }
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Addr != "" {
			addr = rec.Addr
		}
	}
	if host, _, _ := net.SplitHostPort(addr); host != "127.0.0.1" {
		t.Fatalf("no 127.0.0.1 address of the built-in server in the log:\n%s", logs.String())
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("the built-in server at %s still accepts after the replay returned", addr)
	}
}

// With no failsim-mysqld beside failsim and no go command to build one, a live replay without
// --mysql is exit 2 (live_builtin.txtar pins the words).
func TestReplayLiveNoServerProgram(t *testing.T) {
	path := filepath.Join(t.TempDir(), "short.timeline")
	if err := os.WriteFile(path, []byte("cluster db1:master db2:replica\n00:00:05 db1 refuse\n00:00:20 cluster end\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	var stdout, stderr bytes.Buffer
	m := &Main{Stdin: bytes.NewReader(nil), Stdout: &stdout, Stderr: &stderr}
	if code := m.Exit(context.Background(), []string{"replay", "--live", path}); code != 2 || stdout.Len() > 0 ||
		!strings.Contains(stderr.String(), "no failsim-mysqld beside") || !strings.Contains(stderr.String(), "failsim: hint: put it beside failsim: cd ") {
		t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2, nothing on stdout, the error and the go build hint", code, stdout.String(), stderr.String())
	}
}

// cancelOnWrite is a stdout that calls cancel a while after its first write.
type cancelOnWrite struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	after  time.Duration
	cancel func()
	at     time.Time // when cancel was called
}

func (w *cancelOnWrite) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.buf.Len() == 0 {
		time.AfterFunc(w.after, func() {
			w.mu.Lock()
			w.at = time.Now()
			w.mu.Unlock()
			w.cancel()
		})
	}
	return w.buf.Write(b)
}

func (w *cancelOnWrite) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// sinceCancel is the time since cancel was called (0 if it was not).
func (w *cancelOnWrite) sinceCancel() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.at.IsZero() {
		return 0
	}
	return time.Since(w.at)
}
