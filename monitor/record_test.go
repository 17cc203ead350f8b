package monitor

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/internal/output"
	"github.com/failsim/failsim/record"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// booked feeds a record.Book from the runtime's loop, as record.Recorder does, without files.
type booked struct {
	b      *record.Book
	lastAt time.Duration
	nodes  []fence.NodeView
}

func (k *booked) Event(ev act.Event) {
	if record.Recorded(ev) {
		k.b.Decide(ev)
	}
}

func (k *booked) Instant(at time.Duration, e fence.View) {
	k.lastAt, k.nodes = at, k.nodes[:0]
	for i := range e.Len() {
		k.nodes = append(k.nodes, e.Node(i))
	}
}

// slack is a predicted prober whose timed-out probes return late, as the real checker's do (it
// closes the socket past its budget): the runtime must count them at the budget all the same.
type slack struct {
	*predicted
	by time.Duration
}

func (s slack) Probe(ctx context.Context) Result {
	r := s.predicted.Probe(ctx)
	if r.Condition.IsTimeout() {
		r.Took += s.by
	}
	return r
}

// withoutFaults drops the fault lines of an event log: the runtime's come from its script,
// the replay's from the recording's probe events.
func withoutFaults(log string) string {
	var keep []string
	for _, l := range strings.Split(log, "\n") {
		if _, rest, _ := strings.Cut(l, " "); !strings.Contains(rest, " fault ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// TestRecordingReplays drives every shipped incident the runtime runs through it on a mock
// clock with the fault model's probers (their timeouts 80 ms late, as the checker's are: the
// runtime counts them at the budget, which the test fails without), records it as failsim watch --record does (the
// outcomes with their probes' starts and ends, the decisions, the statemap's copy), and replays
// the recording in the simulator: the same event log, byte for byte, and every expectation the
// recording wrote holds. It is the recorder's claim without a server: the live test
// (cmd/failsim TestWatchRecordReplays) makes it on MariaDB.
func TestRecordingReplays(t *testing.T) {
	files, _ := filepath.Glob("../testdata/incidents/*.timeline")
	if len(files) == 0 {
		t.Fatal("no incidents in ../testdata/incidents")
	}
	ran := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tl, err := timeline.Parse(f, data)
		if err != nil {
			t.Fatal(err)
		}
		if tl.Repl != nil || tl.Group > 0 {
			continue // the runtime runs neither replication nor the managers' group for watch
		}
		ran++
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			m, err := statemap.Load(tl.Statemap)
			if err != nil {
				t.Fatal(err)
			}
			probers := make([]*predicted, len(tl.Nodes))
			nodes := make([]Node, len(tl.Nodes))
			for i, n := range tl.Nodes {
				probers[i] = &predicted{timeout: tl.Timeout}
				nodes[i] = Node{Name: n.Name, Role: n.Role, Prober: slack{probers[i], 80 * time.Millisecond}}
			}
			h := record.Header{Nodes: tl.Nodes, Interval: tl.Interval, Timeout: tl.Timeout, Start: tl.Start, Policy: tl.Policy}
			copyName := record.StatemapName(record.Properties(m))
			k := &booked{b: record.NewBook(h, copyName)}
			var live bytes.Buffer
			printer := report.NewPrinter(&live, report.Text, tl.Start, tl.Names())
			mock := clock.NewMock()
			r, err := New(Config{
				Nodes: nodes, Map: m, Policy: tl.Policy, Interval: tl.Interval, Clock: mock, Budget: tl.Timeout,
				Observers: []drive.Observer{printer, k},
				OnOutcome: func(start, end time.Duration, i int, c statemap.Condition) { k.b.Outcome(start, end, i, c) },
			}, timelineScript(tl, func(i int, f fault.Fault) { probers[i].set(f) }))
			if err != nil {
				t.Fatal(err)
			}
			runMock(t, r, mock)
			if err := printer.Flush(); err != nil {
				t.Fatal(err)
			}
			end := max(k.lastAt, k.b.Last())
			seg := k.b.Cut(end, k.nodes, copyName)
			dir := t.TempDir()
			name := "000000-x" + record.Ext
			if err := output.WriteFile(filepath.Join(dir, copyName), record.Properties(m)); err != nil {
				t.Fatal(err)
			}
			if err := output.WriteFile(filepath.Join(dir, name), h.Text(name, seg, end)); err != nil {
				t.Fatal(err)
			}
			rec, rm, err := record.LoadDir(context.Background(), dir, "")
			if err != nil {
				t.Fatal(err)
			}
			var replayed bytes.Buffer
			results, err := sim.Run(context.Background(), &replayed, report.Text, rec, rm)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range results {
				if !x.Held {
					t.Errorf("the recording's %s failed: %s", x.Text, x.Why)
				}
			}
			want := withoutFaults(live.String())
			got, _, _ := strings.Cut(replayed.String(), "\n\n")
			if got = withoutFaults(got + "\n"); got != want {
				t.Errorf("the replay of the recording differs from the run:\n%s", lineDiff(want, got))
			}
		})
	}
	if ran < 10 {
		t.Errorf("%d incidents run, want the shipped ones the runtime runs", ran)
	}
}
