package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/internal/mariadb"
	"github.com/failsim/failsim/proxy"
	"github.com/failsim/failsim/record"
)

// liveTwoNodes is a real MariaDB behind two proxy nodes, db1 and db2 (closed at cleanup), and
// the DSN of each node's proxy; it fails rather than skips under CI=true without MariaDB.
func liveTwoNodes(t *testing.T) (*proxy.Proxy, func(name string) string) {
	t.Helper()
	srv := mariadb.Need(t)
	px, err := proxy.New(proxy.Config{Nodes: []proxy.NodeConfig{
		{Name: "db1", Listen: "127.0.0.1:0", Upstream: srv.Addr},
		{Name: "db2", Listen: "127.0.0.1:0", Upstream: srv.Addr},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { px.Close() })
	return px, func(name string) string {
		n, _ := px.Node(name)
		return srv.DSN(n.Addr())
	}
}

// fastStatemap fails a node after two ticks of login_response_timeout, so that a freeze fails
// the master within the test's half minute.
const fastStatemap = `login_response_timeout.state=timeout
login_response_timeout.threshold=2
login_response_timeout.action=fail
`

// eventLog is the event log of failsim's output: the lines before the first blank one, less
// the fault lines a replay prints for each event of its timeline (a watch plays none).
func eventLog(out string) []string {
	head, _, _ := strings.Cut(out, "\n\n")
	var lines []string
	for _, l := range strings.Split(head, "\n") {
		if _, rest, _ := strings.Cut(l, " "); strings.Contains(rest, " fault ") {
			continue
		}
		lines = append(lines, l)
	}
	return lines
}

// TestWatchRecordReplays runs failsim watch --record on a real MariaDB through failsim's proxy
// while faults are played (db2 frozen from 3.5 s to 7.5 s, which its alarm rides out, then db1
// frozen for good from 8.5 s: the probe started at 9 s runs out of time on the tick at 10 s,
// and counts before it, as in the simulator, so db1 fails over to db2 at 20 s), then replays
// the recording: the same event log, byte for byte, and every expectation the recording wrote
// holds. A small size bound makes several files,
// so the replay joins them. It takes about 40 s, is left out by -short, and fails rather than
// skips under CI=true without MariaDB.
func TestWatchRecordReplays(t *testing.T) {
	if testing.Short() {
		t.Skip("a live run of 34 s")
	}
	px, dsn := liveTwoNodes(t)
	dir := t.TempDir()
	sm, rec := filepath.Join(dir, "fast.properties"), filepath.Join(dir, "rec")
	if err := os.WriteFile(sm, []byte(fastStatemap), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	played := make(chan error, 1)
	go func() {
		set := func(wait time.Duration, node string, k fault.Kind) error {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return ctx.Err()
			}
			return px.SetMode(node, proxy.Mode{Fault: fault.Fault{Kind: k}})
		}
		err := set(3500*time.Millisecond, "db2", fault.Freeze)
		if err == nil {
			err = set(4*time.Second, "db2", fault.Heal)
		}
		if err == nil {
			err = set(time.Second, "db1", fault.Freeze)
		}
		played <- err
	}()
	var live, liveErr bytes.Buffer
	code := (&Main{Stdin: bytes.NewReader(nil), Stdout: &live, Stderr: &liveErr}).Exit(ctx, []string{"watch",
		"--node", "db1:master=" + dsn("db1"), "--node", "db2:replica=" + dsn("db2"),
		"--interval", "1s", "--timeout", "1s", "--for", "34s", "--statemap", sm,
		"--record", rec, "--record-max-size", "300"})
	if err := <-played; err != nil {
		t.Fatal(err)
	}
	if code != 0 {
		t.Fatalf("watch: exit %d\n%s\n%s", code, live.String(), liveErr.String())
	}
	if strings.Contains(liveErr.String(), "recording:") {
		t.Errorf("the recorder complained:\n%s", liveErr.String())
	}
	if !strings.Contains(live.String(), " db1 FAILOVER: master db1 failed (login_response_timeout), db2 is master") ||
		!strings.Contains(live.String(), " db1 alarm expired: login_response_timeout after 2 ticks") {
		t.Fatalf("the live run did not fail db1 over: the scenario did not play\n%s", live.String())
	}

	files, err := record.Files(rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 {
		t.Errorf("%d recording files, want several under a size bound of 300 bytes", len(files))
	}
	if open, _ := filepath.Glob(filepath.Join(rec, "*"+record.OpenExt)); len(open) > 0 {
		t.Errorf("an open file left behind: %v", open)
	}
	if maps, _ := filepath.Glob(filepath.Join(rec, "statemap-*.properties")); len(maps) != 1 {
		t.Errorf("statemap copies %v, want one", maps)
	}

	var replayed, replayErr bytes.Buffer
	code = (&Main{Stdin: bytes.NewReader(nil), Stdout: &replayed, Stderr: &replayErr}).Exit(context.Background(), []string{"replay", rec})
	if code != 0 {
		t.Errorf("replay of the recording: exit %d, want 0 (every expectation held)\n%s\n%s", code, replayed.String(), replayErr.String())
	}
	want, got := strings.Join(eventLog(live.String()), "\n"), strings.Join(eventLog(replayed.String()), "\n")
	if got != want {
		t.Errorf("the replay's event log differs from the live one\nlive:\n%s\n\nreplayed:\n%s", want, got)
	}
	if !strings.Contains(replayed.String(), " held, 0 failed") {
		t.Errorf("the replay judged no expectation, or one failed:\n%s", replayed.String())
	}
	t.Logf("live:\n%s\nreplayed:\n%s", live.String(), replayed.String())
}

// fastShadow fails a node after two ticks of query_results_timeout, where the defaults never
// do: beside the live defaults, the shadow that fails over a stalled master.
const fastShadow = `query_results_timeout.state=timeout
query_results_timeout.threshold=2
query_results_timeout.action=fail
`

// TestWatchRecordShadowReplays: failsim watch --record --shadow on a real MariaDB through
// failsim's proxy, db1 stalled from 2.5 s on: the live defaults ride the stall out, the
// shadow would have failed db1 over, and watch logs that divergence; failsim replay --shadow
// of the recording prints the same divergence, at the same second. About 30 s; left out by
// -short; fails rather than skips under CI=true without MariaDB.
func TestWatchRecordShadowReplays(t *testing.T) {
	if testing.Short() {
		t.Skip("a live run of 30 s")
	}
	px, dsn := liveTwoNodes(t)
	dir := t.TempDir()
	sh, rec := filepath.Join(dir, "fast.properties"), filepath.Join(dir, "rec")
	if err := os.WriteFile(sh, []byte(fastShadow), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-time.After(2500 * time.Millisecond):
			px.SetMode("db1", proxy.Mode{Fault: fault.Fault{Kind: fault.Stall}})
		case <-ctx.Done():
		}
	}()
	var live, liveErr bytes.Buffer
	code := (&Main{Stdin: bytes.NewReader(nil), Stdout: &live, Stderr: &liveErr}).Exit(ctx, []string{"watch",
		"--node", "db1:master=" + dsn("db1"), "--node", "db2:replica=" + dsn("db2"),
		"--interval", "1s", "--timeout", "1s", "--for", "30s",
		"--record", rec, "--shadow", "fast=" + sh})
	if code != 0 {
		t.Fatalf("watch: exit %d\n%s\n%s", code, live.String(), liveErr.String())
	}
	const said = "shadow fast would have failed master db1 over to db2 (query_results_timeout for 2 ticks, threshold 2); the live engine did not"
	logged := ""
	for _, l := range strings.Split(liveErr.String(), "\n") {
		if strings.Contains(l, said) {
			logged = l
		}
	}
	if logged == "" || strings.Contains(live.String(), "FAILOVER") {
		t.Fatalf("the live run: want no failover and the shadow's divergence logged\n%s\n%s", live.String(), liveErr.String())
	}
	_, at, ok := strings.Cut(logged, "at=")
	at, _, _ = strings.Cut(at, " ")
	when, err := time.Parse(time.RFC3339Nano, strings.Trim(at, `"`))
	if !ok || err != nil {
		t.Fatalf("the divergence's time in %q: %v", logged, err)
	}

	var replayed, replayErr bytes.Buffer
	code = (&Main{Stdin: bytes.NewReader(nil), Stdout: &replayed, Stderr: &replayErr}).Exit(context.Background(),
		[]string{"replay", "--shadow", "fast=" + sh, rec})
	if code != 0 {
		t.Fatalf("replay --shadow of the recording: exit %d\n%s\n%s", code, replayed.String(), replayErr.String())
	}
	var printed string
	for _, l := range strings.Split(replayed.String(), "\n") {
		if clock, rest, ok := strings.Cut(strings.TrimPrefix(l, "  "), " "); ok && rest == said {
			printed = clock
		}
	}
	// The replay writes the clock to the millisecond; the two agree to the second at least.
	if want := when.UTC().Format("15:04:05"); !strings.HasPrefix(printed, want) || !strings.Contains(replayed.String(), "shadow fast ("+sh+"): 1 divergence") {
		t.Errorf("the replay of the recording does not print the live divergence at %s (printed at %q)\n%s", want, printed, replayed.String())
	}
}
