package sim_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/failsim/failsim/orchestrator"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/timeline"
)

// TestDisagree replays each incident of testdata/disagree under both managers, Tungsten's
// (its expectations must hold) and Orchestrator's with the timeline's manager config: both
// outputs are golden, and the verdicts differ (one fails over, the other does not).
func TestDisagree(t *testing.T) {
	files, _ := filepath.Glob("../testdata/disagree/*.timeline")
	if len(files) < 2 {
		t.Fatalf("want the incidents the managers disagree on, found %d", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".timeline")
		t.Run(name, func(t *testing.T) {
			tung, ok := replay(t, f, report.Text)
			if !ok {
				t.Errorf("an expectation failed:\n%s", tung)
			}
			golden(t, filepath.Join("..", "testdata", "golden", "disagree", name+".tungsten.txt"), tung)
			tl, _, err := timeline.LoadFile(f, "")
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(tl.ManagerConfig)
			if err != nil {
				t.Fatal(err)
			}
			c, _, err := orchestrator.Parse(tl.ManagerConfig, data)
			if err != nil {
				t.Fatal(err)
			}
			orch := replayOrchestrator(t, f, c)
			golden(t, filepath.Join("..", "testdata", "golden", "disagree", name+".orchestrator.txt"), orch)
			tungFails := strings.Contains(string(tung), "verdict: failover")
			orchFails := !strings.Contains(string(orch), "verdict: orchestrator: no failover")
			if tungFails == orchFails {
				t.Errorf("the managers agree (failover: %t):\n%s\n%s", tungFails, tung, orch)
			}
		})
	}
}
