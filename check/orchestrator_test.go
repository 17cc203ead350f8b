package check_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/check"
	"github.com/failsim/failsim/orchestrator"
	"github.com/failsim/failsim/property"
	"github.com/failsim/failsim/repl"
)

func orchRecover() orchestrator.Config {
	c := orchestrator.Defaults()
	c.RecoverMasterClusterFilters = []string{"*"}
	return c
}

// TestCheckOrchestratorHolds: with every cluster recovered, no benign trace fails over, and
// every fatal one is DeadMaster within the closed form's bound for its fault; the client's
// properties are judged over the same replays.
func TestCheckOrchestratorHolds(t *testing.T) {
	w := &check.Workload{Rate: repl.Rate{Writes: 10, Per: time.Second}, Deadline: 2 * time.Second}
	for _, f := range []check.Family{check.Benign, check.Fatal} {
		res, err := check.RunOrchestrator(context.Background(), check.OrchConfig{Orchestrator: orchRecover(), Family: f, Nodes: 3, Length: 30 * time.Minute, Traces: 200, Seed: 1, Workload: w})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Properties) != 2 {
			t.Fatalf("%s: properties %v, want the family's and no-acked-write-lost", f, res.Properties)
		}
		if res.Violated[0] != 0 {
			t.Errorf("%s: %s violated by %d traces, first %d: %s", f, res.Properties[0], res.Violated[0], res.First[0], res.Why[0])
		}
	}
}

// TestCheckOrchestratorFinds: properties that fail are found. A fatal trace with a deadline
// of 1s is DeadMaster too late for any silent death (31 s at the least); with recovery off, no
// fatal death is recovered, so the writes fail for longer than a minute.
func TestCheckOrchestratorFinds(t *testing.T) {
	within, _ := property.ParseSpec("detects-death-within=1s")
	outage, _ := property.ParseSpec("max-outage=1m")
	w := &check.Workload{Rate: repl.Rate{Writes: 10, Per: time.Second}, Deadline: 2 * time.Second}
	res, err := check.RunOrchestrator(context.Background(), check.OrchConfig{Orchestrator: orchestrator.Defaults(), Family: check.Fatal, Nodes: 3,
		Length: 30 * time.Minute, Traces: 100, Seed: 1, Workload: w, Properties: []property.Spec{within, outage}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Violated[0] == 0 || !strings.Contains(res.Why[0], "analysed DeadMaster only at") {
		t.Errorf("detects-death-within 1s: %d violations, first %q", res.Violated[0], res.Why[0])
	}
	if res.Violated[1] != res.Traces || res.Trace[1] == nil {
		t.Errorf("max-outage 1m without recovery: %d of %d traces violate it, want all", res.Violated[1], res.Traces)
	}
	again, _ := check.RunOrchestrator(context.Background(), check.OrchConfig{Orchestrator: orchestrator.Defaults(), Family: check.Fatal, Nodes: 3,
		Length: 30 * time.Minute, Traces: 100, Seed: 1, Workload: w, Properties: []property.Spec{within, outage}})
	if again.First[0] != res.First[0] || again.Why[0] != res.Why[0] {
		t.Error("two runs of one seed differ")
	}
}

// TestCheckOrchestratorMeaningless: a property of the Tungsten managers is refused with why.
func TestCheckOrchestratorMeaningless(t *testing.T) {
	for _, name := range []string{property.SingleMaster, property.OnlyCoordinatorFences, property.NoSplitBrain, property.SelfHealResets} {
		s, err := property.ParseSpec(name)
		if err != nil {
			t.Fatal(err)
		}
		_, err = check.RunOrchestrator(context.Background(), check.OrchConfig{Orchestrator: orchestrator.Defaults(), Family: check.Benign, Nodes: 3, Length: time.Hour, Traces: 1, Properties: []property.Spec{s}})
		if err == nil || !strings.Contains(err.Error(), "means nothing under orchestrator: ") || check.OrchMeaningless(name) == "" {
			t.Errorf("%s: %v", name, err)
		}
	}
	if check.OrchMeaningless(property.MaxOutage) != "" {
		t.Error("max-outage is judged under orchestrator")
	}
}
