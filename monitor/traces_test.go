package monitor

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/check"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/narrate"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// events is an observer that keeps every event. The runtime calls it from its loop alone.
type events struct {
	evs     []act.Event
	grouped bool // the group decided something a runtime with no group cannot
}

// keep returns a copy of ev that outlives the observer's call: the engine and the driver reuse
// what they hand out.
func keep(ev act.Event) act.Event {
	switch ev := ev.(type) {
	case fence.Decision:
		return fence.Clone(ev)
	case *act.FaultSet:
		c := *ev
		return &c
	}
	panic(fmt.Sprintf("an event of an unknown type %T", ev))
}

// Event keeps the engine's decisions and the driver's fault notes. The simulator also tells
// the group's events (package cluster's), which the runtime, running no group, has not: they
// are left out, and a trace on which the group decided something the runtime cannot (a
// majority of managers down: no primary view) is marked grouped.
func (r *events) Event(ev act.Event) {
	switch ev := ev.(type) {
	case *fence.CoordinatorChanged:
		r.grouped = r.grouped || ev.NoPrimary
	case *fence.FailsafeShunned, *fence.RecoverRefused:
		r.grouped = true
	}
	switch ev.(type) {
	case fence.Decision, *act.FaultSet:
		r.evs = append(r.evs, keep(ev))
	}
}

// liveEvents runs tl through the runtime on a mock clock, with probers that answer the fault
// model's prediction for the fault their node has when they start, and returns its events.
func liveEvents(tl *timeline.Timeline, m *statemap.Map) ([]act.Event, error) {
	probers := make([]*predicted, len(tl.Nodes))
	nodes := make([]Node, len(tl.Nodes))
	for i, n := range tl.Nodes {
		probers[i] = &predicted{timeout: tl.Timeout}
		nodes[i] = Node{Name: n.Name, Role: n.Role, Prober: probers[i]}
	}
	rec := &events{}
	mock := clock.NewMock()
	r, err := New(Config{Nodes: nodes, Map: m, Policy: tl.Policy, Interval: tl.Interval, Clock: mock, Observers: []drive.Observer{rec}},
		timelineScript(tl, func(i int, f fault.Fault) { probers[i].set(f) }))
	if err != nil {
		return nil, err
	}
	err = playMock(r, mock)
	return rec.evs, err
}

// TestRuntimeMatchesSimulatorOnTraces: on failsim check's generated traces of every family
// (ten-minute, five-node ones: faults and heals, and in the mixed family manager outages,
// policy changes and operator recovers), the runtime itself, its goroutines, its clock's timers
// and its grace for probes that end at once, on a mock clock with probers that answer the
// fault model's prediction, decides exactly the events sim.Replay decides. check's
// TestLiveScheduleMatchesReference pins the driver's live path against the reference model;
// this pins the runtime around it.
func TestRuntimeMatchesSimulatorOnTraces(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 20
	}
	shape := check.Shape{Nodes: 5, Length: 10 * time.Minute, Interval: act.DefaultInterval, Timeout: timeline.DefaultTimeout}
	m := statemap.Default()
	// The mock clock sleeps a millisecond at every move: the traces wait far more than they
	// work, so many run at once.
	sem := make(chan struct{}, 64)
	for _, f := range []check.Family{check.Benign, check.Fatal, check.Mixed} {
		t.Run(f.String(), func(t *testing.T) {
			g, err := check.NewGenerator(f, shape, m, 0)
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			var mu sync.Mutex
			var failed []string
			for i := range n {
				tl := g.Trace(check.TraceRand(41, i))
				wg.Add(1)
				sem <- struct{}{}
				go func() {
					defer func() { <-sem; wg.Done() }()
					var rec events
					sim.Replay(tl, m, &rec)
					if rec.grouped {
						return // a majority of managers down: the live runtime runs no group
					}
					live, err := liveEvents(tl, m)
					if err != nil {
						t.Error(err)
						return
					}
					if d := eventDiff(tl.Names(), rec.evs, live); d != "" {
						mu.Lock()
						failed = append(failed, fmt.Sprintf("trace %d of seed 41: runtime and simulator differ:\n%s\ntimeline:\n%s", i, d, check.Timeline(tl, nil, "")))
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			for k, why := range failed {
				if k == 2 {
					t.Errorf("... and %d more traces", len(failed)-2)
					break
				}
				t.Error(why)
			}
		})
	}
}

// eventDiff shows the first events where the simulator's and the runtime's part, "" if none.
func eventDiff(names []string, simulated, live []act.Event) string {
	i := 0
	for i < len(simulated) && i < len(live) && reflect.DeepEqual(simulated[i], live[i]) {
		i++
	}
	if i == len(simulated) && i == len(live) {
		return ""
	}
	var b []byte
	for j := max(0, i-3); j < i+3; j++ {
		if j < len(simulated) {
			b = fmt.Appendf(b, "  sim:  %v %s\n", simulated[j].When(), narrate.Describe(names, simulated[j]))
		}
		if j < len(live) {
			b = fmt.Appendf(b, "  live: %v %s\n", live[j].When(), narrate.Describe(names, live[j]))
		}
	}
	return string(b)
}
