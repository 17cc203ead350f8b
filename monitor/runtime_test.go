package monitor

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/faultmodel"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// predicted is a prober that answers what the simulator's fault model predicts for the node's
// current fault, at once: the runtime applies it at start+Took on its clock. It stands in for
// the wire only in these mock-clock tests; the conformance tests use the real checker.
type predicted struct {
	mu      sync.Mutex
	f       fault.Fault
	timeout time.Duration
}

func (p *predicted) set(f fault.Fault) { p.mu.Lock(); p.f = f; p.mu.Unlock() }

func (p *predicted) Probe(ctx context.Context) Result {
	p.mu.Lock()
	o := faultmodel.Predict(p.f, p.timeout)
	p.mu.Unlock()
	return Result{Condition: o.Condition, Took: o.Took}
}

// sync runs on the loop once everything due is done and returns the loop's next due time.
// It reports false when Run has returned.
func (r *Runtime) sync(done <-chan error) (time.Duration, bool) {
	reply := make(chan time.Duration, 1)
	select {
	case r.cmds <- func() { reply <- r.nextDue() }:
		return <-reply, true
	case <-done:
		return 0, false
	}
}

// settle waits until no probe result is on its way and the loop has done all that is due,
// then returns the loop's next due time (virtual).
func settle(r *Runtime, done <-chan error) (time.Duration, bool) {
	for {
		for r.inflight.Load() > 0 {
			select {
			case <-done: // Run returned with a result it never took
				return 0, false
			default:
			}
			runtime.Gosched()
		}
		next, ok := r.sync(done)
		if !ok || r.inflight.Load() == 0 {
			return next, ok
		}
	}
}

// edit is something a test does from outside the runtime at virtual time at, while the runtime
// waits: an operator editing a file.
type edit struct {
	at time.Duration
	do func()
}

// runMock runs r on mock until Run returns, moving the clock straight to each due time, and
// stopping at each edit's time to make it.
func runMock(t *testing.T, r *Runtime, mock *clock.Mock, edits ...edit) {
	t.Helper()
	if err := playMock(r, mock, edits...); err != nil {
		t.Fatal(err)
	}
}

// playMock is runMock for any goroutine: it returns Run's error.
func playMock(r *Runtime, mock *clock.Mock, edits ...edit) error {
	done := make(chan error)
	var runErr error
	go func() { runErr = r.Run(context.Background()); close(done) }()
	for {
		next, ok := settle(r, done)
		if !ok {
			break
		}
		if len(edits) > 0 && edits[0].at <= next {
			if d := time.Duration(float64(edits[0].at)/r.speed) - r.clk.Since(r.t0); d > 0 {
				mock.Add(d)
				continue
			}
			edits[0].do()
			edits = edits[1:]
			continue
		}
		d := r.realUntil(next)
		if d <= 0 {
			d = time.Microsecond
		}
		mock.Add(d)
	}
	return runErr
}

// liveLines runs the timeline through the runtime on a mock clock with predicted probers and
// returns the printed events and the verdict.
func liveLines(t *testing.T, tl *timeline.Timeline, smPath string) (string, []string) {
	t.Helper()
	m, err := statemap.Load(smPath)
	if err != nil {
		t.Fatal(err)
	}
	probers := make([]*predicted, len(tl.Nodes))
	nodes := make([]Node, len(tl.Nodes))
	for i, n := range tl.Nodes {
		probers[i] = &predicted{timeout: tl.Timeout}
		nodes[i] = Node{Name: n.Name, Role: n.Role, Prober: probers[i]}
	}
	var out bytes.Buffer
	printer := report.NewPrinter(&out, report.Text, tl.Start, tl.Names())
	report := report.New(tl, m)
	mock := clock.NewMock()
	r, err := New(Config{
		Nodes: nodes, Statemap: smPath, Policy: tl.Policy, Interval: tl.Interval, Clock: mock,
		Observers: []drive.Observer{printer, report}, ReloadEvery: time.Hour,
	}, timelineScript(tl, func(i int, f fault.Fault) { probers[i].set(f) }))
	if err != nil {
		t.Fatal(err)
	}
	runMock(t, r, mock)
	printer.Summary(tl.File, report, nil)
	return out.String(), report.Verdict()
}

func simLines(tl *timeline.Timeline, m *statemap.Map) (string, []string) {
	var out bytes.Buffer
	printer := report.NewPrinter(&out, report.Text, tl.Start, tl.Names())
	report := report.New(tl, m)
	sim.Replay(tl, m, printer, report)
	printer.Summary(tl.File, report, nil)
	return out.String(), report.Verdict()
}

// TestRuntimeMatchesSimulator drives every shipped incident through the real-time runtime on
// a mock clock, with probers that answer the fault model's prediction: the runtime's probe
// loops, timekeeper, fencing and policy must print exactly what the simulator prints.
func TestRuntimeMatchesSimulator(t *testing.T) {
	files, _ := filepath.Glob("../testdata/incidents/*.timeline")
	if len(files) == 0 {
		t.Fatal("no incidents in ../testdata/incidents")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			tl, err := timeline.Parse(f, data)
			if err != nil {
				t.Fatal(err)
			}
			if tl.Repl != nil {
				t.Skip("replication and the workload run beside the simulator's engine only: the runtime does not model them yet")
			}
			if tl.Group > 0 {
				t.Skipf("line %d needs the managers' group, which the live runtime does not run", tl.Group)
			}
			m, err := statemap.Load(tl.Statemap)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := simLines(tl, m)
			got, _ := liveLines(t, tl, tl.Statemap)
			if got != want {
				t.Errorf("runtime and simulator differ:\n%s", lineDiff(want, got))
			}
		})
	}
}

// lineDiff shows the first lines where want and got part.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			lo := max(0, i-3)
			var sb strings.Builder
			for j := lo; j < i+5; j++ {
				if j < len(w) {
					sb.WriteString("  sim:  " + w[j] + "\n")
				}
				if j < len(g) {
					sb.WriteString("  live: " + g[j] + "\n")
				}
			}
			return sb.String()
		}
	}
	return "(no difference)"
}
