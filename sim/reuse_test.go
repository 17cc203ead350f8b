package sim_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// TestReplayerReuses replays every rule timeline and shipped incident, those with a workload or
// replication among them, through one Replayer, twice over in orders that change the cluster's
// size and replication from one to the next: each replay's whole output (events with all their
// fields, verdict, expectations), in text and JSON, is byte-identical to a fresh sim.Replay's.
func TestReplayerReuses(t *testing.T) {
	rules, _ := filepath.Glob("testdata/rules/*.timeline")
	incidents, _ := filepath.Glob("../testdata/incidents/*.timeline")
	files := append(rules, incidents...)
	withRepl := 0
	type loaded struct {
		tl *timeline.Timeline
		sm *statemap.Map
	}
	var tls []loaded
	for _, f := range files {
		tl, sm, err := timeline.LoadFile(f, "")
		if err != nil {
			t.Fatal(err)
		}
		if tl.Repl != nil {
			withRepl++
		}
		tls = append(tls, loaded{tl, sm})
	}
	if withRepl < 10 {
		t.Fatalf("want the rule timelines and incidents with replication, found %d", withRepl)
	}
	var r sim.Replayer
	reversed := slices.Clone(tls)
	slices.Reverse(reversed)
	for _, x := range append(tls, reversed...) {
		for _, f := range []report.Format{report.Text, report.JSON} {
			want := replayWith(x.tl, x.sm, f, func(tl *timeline.Timeline, m *statemap.Map, obs ...drive.Observer) *fence.Engine {
				return sim.Replay(tl, m, obs...)
			})
			got := replayWith(x.tl, x.sm, f, r.Replay)
			if !bytes.Equal(got, want) {
				t.Errorf("%s: a Replayer's replay differs from a fresh one's:\n%s", x.tl.File, firstDiff(string(want), string(got)))
			}
		}
	}
}

// replayWith replays tl as sim.Run does, through replay, and returns the output in format f,
// with every event's every field (recorder) besides.
func replayWith(tl *timeline.Timeline, m *statemap.Map, f report.Format, replay func(*timeline.Timeline, *statemap.Map, ...drive.Observer) *fence.Engine) []byte {
	var out bytes.Buffer
	verdict := report.New(tl, m)
	printer := report.NewPrinter(&out, f, tl.Start, tl.Names())
	expects := expect.NewSet(tl, m)
	replay(tl, m, printer, verdict, expects, recorder{&out})
	if err := printer.Summary(tl.File, verdict, expects.Results()); err != nil {
		panic(err)
	}
	return out.Bytes()
}

// recorder writes every event with all its fields, those no output shows included (a
// summary's every outage, say).
type recorder struct{ w *bytes.Buffer }

func (r recorder) Event(ev act.Event) { fmt.Fprintf(r.w, "%T %+v\n", ev, ev) }
