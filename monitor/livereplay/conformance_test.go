package livereplay

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/failsim/failsim/faultmodel"
	"github.com/failsim/failsim/internal/liveservers"
	"github.com/failsim/failsim/monitor"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/proxy"
	"github.com/failsim/failsim/sim"
)

// TestConformanceFaults: for every fault a proxy can make on loopback, the real checker
// probing a real server through the proxy ends in exactly the condition the simulator's fault
// model predicts, within the predicted time +-500 ms. One harness, two servers: MariaDB and
// the in-process go-mysql-server (subtests "mariadb" and "embedded").
func TestConformanceFaults(t *testing.T) {
	liveservers.Each(t, conformFaults)
}

// conformFaults runs every fault case through one proxy in front of s.
func conformFaults(t *testing.T, s liveservers.Server) {
	px, err := proxy.New(proxy.Config{Nodes: []proxy.NodeConfig{{Name: "db1", Listen: "127.0.0.1:0", Upstream: s.Addr}}})
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	node, _ := px.Node("db1")
	const budget = 1500 * time.Millisecond
	c, err := monitor.NewChecker(monitor.CheckerConfig{DSN: s.DSN(node.Addr()), Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	faults := []string{"heal", "refuse", "reset", "close", "freeze", "blackhole", "stall",
		"slow 300ms", "slow 2s", "delay 100ms", "delay 400ms", "delay 600ms", "error 1040", "error 1045", "error 1130",
		// Toxiproxy's toxics (docs/engine.md, "The checker"), each on its stream: latency's three
		// trips downstream and two upstream, ok and timing out waiting for the verdict or the
		// result; bandwidth at its lowest rate; slow-close; timeout closing within the budget and
		// never, both ways; reset-peer at once and after its time; slicer; limit-data cutting
		// the greeting, the result, the login and the query, and letting the probe through.
		"latency 100ms jitter 50ms", "latency 600ms", "latency 1s", "latency 400ms upstream", "latency 800ms upstream",
		"bandwidth 1KB/s", "bandwidth 1KB/s upstream", "slow-close 1s", "slow-close 1s upstream",
		"timeout 0", "timeout 500ms", "timeout 0 upstream", "timeout 500ms upstream",
		"reset-peer", "reset-peer 500ms", "reset-peer 500ms upstream",
		"slicer 16 variation 4 delay 100us", "slicer 1 delay 1ms", "slicer 1 delay 1ms upstream",
		"limit-data 50", "limit-data 120", "limit-data 4096", "limit-data 100 upstream", "limit-data 190 upstream", "limit-data 300 upstream",
		"limit-data 110", "limit-data 103", "limit-data 104", "limit-data 114", "limit-data 115", "limit-data 164", "limit-data 165",
	}
	// The login's verdict is bytes 105-115 of MariaDB's downstream (faultmodel.GreetingBytes),
	// 79-89 of the in-process server's, whose greeting is shorter: a limit-data that cuts it on
	// one server cuts the greeting or the result on the other, so that case is MariaDB's alone.
	// The edges of the greeting, the verdict and the result, to the byte, are MariaDB's alike.
	// The login's are not held to the byte on either: its connection attributes carry the test
	// binary's pid, a byte shorter for each digit fewer (faultmodel.LoginBytes).
	only := map[string]string{}
	for _, spec := range []string{"limit-data 110", "limit-data 103", "limit-data 104", "limit-data 114", "limit-data 115", "limit-data 164", "limit-data 165"} {
		only[spec] = "mariadb"
	}
	server := path.Base(t.Name())
	covered := map[fault.Kind]bool{}
	for _, spec := range faults {
		if o, ok := only[spec]; ok && o != server {
			continue
		}
		f, err := fault.Parse(strings.Fields(spec))
		if err != nil {
			t.Fatal(err)
		}
		covered[f.Kind] = true
		t.Run(spec, func(t *testing.T) {
			if err := px.SetMode("db1", proxy.Mode{Fault: f}); err != nil {
				t.Fatal(err)
			}
			defer px.SetMode("db1", proxy.Mode{})
			want := faultmodel.Predict(f, budget)
			start := time.Now()
			r := c.Probe(context.Background())
			took := time.Since(start)
			t.Logf("live %s in phase %s after %v; predicted %s after %v", r.Condition, r.Phase, took.Round(time.Millisecond), want.Condition, want.Took)
			if r.Condition != want.Condition {
				t.Errorf("%s: live probe ended %s in phase %s (%v) after %v; the simulator predicts %s", spec, r.Condition, r.Phase, r.Err, took, want.Condition)
			}
			if d := took - want.Took; d > 500*time.Millisecond || d < -500*time.Millisecond {
				t.Errorf("%s: live probe took %v; the simulator predicts %v (+-500ms)", spec, took, want.Took)
			}
			// The budget holds every phase together: a probe that ignored it would hang on
			// freeze, blackhole and stall for good. The margin is the prediction's (500 ms):
			// at 100 ms a loaded two-core machine failed it once (blackhole, 1.72 s).
			if took > budget+500*time.Millisecond {
				t.Errorf("%s: probe took %v, budget %v: want at most budget+500ms", spec, took, budget)
			}
		})
	}
	for _, k := range fault.Kinds() {
		if k.Wire() && !covered[k] {
			t.Errorf("wire fault %s has no conformance case", k)
		}
	}
}

// trim cuts the quiet lead-in of a timeline, and its tail two minutes after the last event,
// so a live replay at 10x spends its time around the events. The cut is a whole number of
// lcm(interval, tick) before the first event, at least a minute before it: probes and ticks
// keep their phase, and before the first event every node is healthy with no alarm, so the
// cut changes nothing. The caller checks that with the simulator. It returns the cut.
func trim(tl *timeline.Timeline) time.Duration {
	if len(tl.Events) == 0 {
		return 0
	}
	step := lcm(tl.Interval, statemap.TickInterval)
	first, last := tl.Events[0].At, tl.Events[len(tl.Events)-1].At
	if tl.Events[len(tl.Events)-1].Kind == timeline.End && len(tl.Events) > 1 {
		last = tl.Events[len(tl.Events)-2].At
	}
	cut := max(0, (first-time.Minute)/step*step)
	tl.Start = tl.Start.Add(cut)
	for i := range tl.Events {
		tl.Events[i].At -= cut
	}
	tl.End = min(tl.End, last+2*time.Minute) - cut
	return cut
}

func lcm(a, b time.Duration) time.Duration {
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	return a / x * b
}

// wireOnly drops the events of faults a proxy cannot make (unreachable, hostdown, probe):
// they exist only in the simulator. It returns what it dropped.
func wireOnly(tl *timeline.Timeline) []string {
	var dropped []string
	keep := tl.Events[:0]
	for _, ev := range tl.Events {
		if ev.Kind == timeline.SetFault && !ev.Fault.Kind.Wire() {
			dropped = append(dropped, fmt.Sprintf("line %d: %s %s", ev.Line, tl.Nodes[ev.Node].Name, ev.Fault))
			continue
		}
		keep = append(keep, ev)
	}
	tl.Events = keep
	return dropped
}

// simulate replays tl in the simulator and returns its decisions.
func simulate(tl *timeline.Timeline, m *statemap.Map) []Decision {
	rec := &Recorder{Names: tl.Names()}
	sim.Replay(tl, m, rec)
	return rec.Decisions
}

func shift(ds []Decision, by time.Duration) []Decision {
	out := make([]Decision, len(ds))
	for i, d := range ds {
		d.At += by
		out[i] = d
	}
	return out
}

// TestConformanceIncidents replays every shipped incident live at 10x, through one proxy per
// node in front of the real MariaDB, and checks that the live run reaches the simulator's
// decisions (failover or not, which nodes) and each node's state changes, each within one tick.
func TestConformanceIncidents(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the live incidents take minutes")
	}
	s := liveservers.MariaDB(t)
	files, _ := filepath.Glob("../../testdata/incidents/*.timeline")
	if len(files) == 0 {
		t.Fatal("no incidents in ../../testdata/incidents")
	}
	// Concurrently, each with its own proxies: the runs mostly wait, and t.Parallel would be
	// limited to GOMAXPROCS at once (two on CI).
	var wg sync.WaitGroup
	for _, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(filepath.Base(f), func(t *testing.T) { conformIncident(t, s.DSN(""), f) })
		}()
	}
	wg.Wait()
}

// conformIncident replays one incident live and compares it with the simulator.
func conformIncident(t *testing.T, dsn, f string) {
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	full, err := timeline.Parse(f, data)
	if err != nil {
		t.Fatal(err)
	}
	if full.Repl != nil {
		t.Skip("replication and the workload are simulated only: a live replay of them needs one replicated server per node")
	}
	if full.Group > 0 {
		t.Skipf("line %d needs a witness, a partition or a host event, which replay --live refuses", full.Group)
	}
	m, err := statemap.Load(full.Statemap)
	if err != nil {
		t.Fatal(err)
	}
	tl, _ := timeline.Parse(f, data)
	if dropped := wireOnly(tl); len(dropped) > 0 {
		t.Logf("simulator-only faults left out of the live run (and of its simulated twin): %s", strings.Join(dropped, "; "))
		full, _ = timeline.Parse(f, data)
		wireOnly(full)
	}
	cut := trim(tl)
	want := simulate(full, m)
	if got := shift(simulate(tl, m), cut); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("trimming by %v changed the simulated decisions:\nfull    %v\ntrimmed %v", cut, want, got)
	}
	simulated := simulate(tl, m)
	simStates := &Recorder{Names: tl.Names()}
	sim.Replay(tl, m, simStates)
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(float64(tl.End)/DefaultSpeed)+time.Minute)
	defer cancel()
	start := time.Now()
	live, err := LiveReplay(ctx, LiveConfig{Timeline: tl, Map: m, DSN: dsn, Speed: DefaultSpeed, Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	lines, ok := Compare(tl.Start, simulated, live.Decisions)
	states, statesOK := CompareStates(tl.Start, tl.Names(), simStates.States, live.States)
	for _, g := range live.Gaps {
		t.Logf("not exercised: %s", DescribeGap(tl.Start, g)) // the machine was overloaded: say so beside a difference
	}
	if !ok || !statesOK {
		t.Errorf("live and simulated differ (%s of timeline from %s, at %dx, took %v):\n%s\n%s",
			tl.End, tl.Start.Format("15:04:05"), DefaultSpeed, time.Since(start).Round(time.Second), strings.Join(lines, "\n"), strings.Join(states, "\n"))
	} else {
		t.Logf("%s of timeline in %v: %s; %s", tl.End, time.Since(start).Round(time.Second), strings.Join(lines, "; "), strings.Join(states, "; "))
	}
}
