package check

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/orchestrator"
	"github.com/failsim/failsim/property"
	"github.com/failsim/failsim/timeline"
)

// TestOrchFamilyOfGenerated: every trace the generator makes under Orchestrator is of its own
// family as shrinking holds its candidates to (orchFamily), with the death it drew; a benign
// trace whose heal is dropped, or a fatal one whose death is healed, is not.
func TestOrchFamilyOfGenerated(t *testing.T) {
	for _, f := range []Family{Benign, Fatal} {
		cfg := OrchConfig{Orchestrator: orchestrator.Defaults(), Family: f, Nodes: 3, Length: 30 * time.Minute, Traces: 1}
		for i := range 300 {
			tl, death, err := orchTrace(TraceRand(1, i), cfg)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := orchFamily(tl, f)
			if !ok || got != death {
				t.Fatalf("%s trace %d: of its family %v, death %+v, drawn %+v:\n%s", f, i, ok, got, death, timeline.Format(tl))
			}
			for k, e := range tl.Events {
				if e.Node != 0 || (f == Benign) != (e.Fault.Kind == fault.Heal) {
					continue
				}
				// Benign: drop a heal of db1's; fatal: heal the death (its last event on db1).
				c := clone(tl)
				if f == Benign {
					c.Events = slices.Delete(c.Events, k, k+1)
				} else if k == lastOn(tl, 0) {
					c.Events = slices.Insert(c.Events, k+1, timeline.Event{At: e.At + time.Second, Kind: timeline.SetFault, Node: 0})
				} else {
					continue
				}
				if _, ok := orchFamily(c, f); ok {
					t.Fatalf("%s trace %d with event %d changed still of the family:\n%s", f, i, k, timeline.Format(c))
				}
			}
		}
	}
}

// lastOn is the index of node j's last event in tl, -1 for none.
func lastOn(tl *timeline.Timeline, j int) int {
	k := -1
	for i, e := range tl.Events {
		if e.Node == j {
			k = i
		}
	}
	return k
}

// TestCheckOrchestratorShrinks: a violation is shrunk to the trace's death alone, on two
// nodes, and the shrunk trace still violates the property when replayed.
func TestCheckOrchestratorShrinks(t *testing.T) {
	within, _ := property.ParseSpec("detects-death-within=1s")
	cfg := OrchConfig{Orchestrator: orchestrator.Defaults(), Family: Fatal, Nodes: 3, Length: 30 * time.Minute, Traces: 50, Seed: 1, Properties: []property.Spec{within}}
	res, err := RunOrchestrator(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Shrunk[0]
	if s == nil || res.Replays[0] == 0 {
		t.Fatalf("not shrunk: %+v", res)
	}
	if len(s.Nodes) != 2 || len(s.Events) != 1 || s.Events[0].Node != 0 || len(s.Events) >= len(res.Trace[0].Events) {
		t.Errorf("shrunk to %d nodes, events %+v (from %d events)", len(s.Nodes), s.Events, len(res.Trace[0].Events))
	}
	death, ok := orchFamily(s, Fatal)
	whys, err := judgeOrch(s, death, cfg, cfg.Properties)
	if !ok || err != nil || whys[0] == "" || whys[0] != res.ShrunkWhy[0] {
		t.Errorf("the shrunk trace judged again: family %v, %v, %q; the run said %q", ok, err, whys, res.ShrunkWhy[0])
	}
}
