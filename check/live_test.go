package check

import (
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/failsim/failsim/core"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/faultmodel"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// liveReplay drives tl through a drive.Driver as the live runtime (monitor.Runtime) does, with
// no goroutine and no clock: nothing is foreseen and every tick is made; each probe the driver
// hands out ends as the fault model predicts for the fault its node had when it started, and
// its outcome is reported only when its time comes, before the driver's instant at that time
// runs (a live result arrives when its probe ends), or within its own instant when it ends at
// once, as the runtime's 20 ms grace does.
func liveReplay(tl *timeline.Timeline, m *statemap.Map, obs ...drive.Observer) {
	e := fence.New(fence.Config{Nodes: tl.Nodes, Map: m, Policy: tl.Policy})
	d := drive.New(core.New(e, nil), drive.Config{Interval: tl.Interval, Script: tl.Events, End: tl.End, EveryTick: true}, obs...)
	type running struct {
		s  drive.Start
		at time.Duration
		c  statemap.Condition
	}
	faults := make([]fault.Fault, len(tl.Nodes))
	var under []running // probes under way, by the time they end
	for !d.Ended() {
		t := d.Next()
		for len(under) > 0 && under[0].at <= t {
			p := under[0]
			under = under[1:]
			d.Report(p.s, p.at, p.c) // false for a probe whose manager stopped: lost
			t = d.Next()
		}
		w := d.Begin(t)
		for _, f := range w.Faults {
			faults[f.Node] = f.Fault
		}
		for _, s := range w.Starts {
			o := faultmodel.Predict(faults[s.Node], tl.Timeout)
			if o.Took == 0 {
				d.Report(s, t, o.Condition)
				continue
			}
			r := running{s: s, at: t + o.Took, c: o.Condition}
			i, _ := slices.BinarySearchFunc(under, r.at, func(p running, at time.Duration) int {
				if p.at <= at {
					return -1
				}
				return 1
			})
			under = slices.Insert(under, i, r)
		}
		d.Close()
	}
}

// diffLive replays tl the live way and with the reference model, one second at a time, and
// fails on the first event where they differ.
func diffLive(t interface{ Fatalf(string, ...any) }, tl *timeline.Timeline, m *statemap.Map) {
	var rec eventRecorder
	liveReplay(tl, m, &rec)
	want := refReplay(tl, m, false) // the live runtime runs no group
	if i, ok := firstDiff(rec.evs, want); !ok {
		lo := max(0, i-5)
		t.Fatalf("the live schedule and the reference differ at event %d:\nlive:      %s\nreference: %s\ntimeline:\n%s",
			i, describe(tl.Names(), rec.evs[lo:min(i+3, len(rec.evs))]), describe(tl.Names(), want[lo:min(i+3, len(want))]), Timeline(tl, nil, ""))
	}
}

// TestLiveScheduleMatchesReference: the driver as the live runtime runs it (nothing foreseen,
// every tick made, outcomes reported when their probes end) decides exactly the events the
// reference model decides, on every family's generated traces under the shipped and the
// example statemaps. With TestReplayMatchesReference it pins that the live runtime and the
// simulator share one schedule; monitor's TestRuntimeMatchesSimulatorOnTraces runs the
// runtime itself, goroutines and clock, against the simulator.
func TestLiveScheduleMatchesReference(t *testing.T) {
	n := 150
	if testing.Short() {
		n = 20
	}
	for _, path := range []string{"", "../conf/examples/aggressive.properties", "../conf/examples/tolerant.properties"} {
		m := loadMap(t, path)
		for _, f := range []Family{Benign, Fatal, Mixed} {
			g, err := NewGenerator(f, DefaultShape(), m, 0)
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				diffLive(t, g.Trace(TraceRand(23, i)), m)
			}
		}
	}
}

// TestLiveScheduleMatchesReferenceRapid: the same on timelines rapid draws freely under a
// drawn statemap, shrunk by rapid on failure.
func TestLiveScheduleMatchesReferenceRapid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tl, m := drawPlainTimeline(t), drawMap(t)
		diffLive(t, tl, m)
	})
}
