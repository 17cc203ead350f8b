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
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/timeline"
)

// A live replay with no --mysql stops its in-process server when the replay is cancelled
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
	var stdout, logs bytes.Buffer
	m := &Main{Stdin: bytes.NewReader(nil), Stdout: &stdout, Stderr: &bytes.Buffer{}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(1500*time.Millisecond, cancel)
	start := time.Now()
	err = m.runReplayLive(ctx, path, tl, sm, "", 10, report.Text, zerolog.New(&logs).Level(zerolog.InfoLevel), "")
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("runReplayLive returned %v after the start, cancelled at 1.5s: want it to stop at once", took)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("runReplayLive: %v; want the cancellation", err)
	}
	if !strings.Contains(stdout.String(), "against the in-process server") {
		t.Errorf("stdout does not say which server:\n%s", stdout.String())
	}
	var addr string
	for _, line := range strings.Split(logs.String(), "\n") {
		var rec struct{ Addr string }
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Addr != "" {
			addr = rec.Addr
		}
	}
	if host, _, _ := net.SplitHostPort(addr); host != "127.0.0.1" {
		t.Fatalf("no 127.0.0.1 address of the in-process server in the log:\n%s", logs.String())
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("the in-process server at %s still accepts after the replay returned", addr)
	}
}
