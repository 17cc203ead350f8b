package sim_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/failsim/failsim/orchestrator"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/timeline"
)

// replayOrchestrator replays the timeline at path under Orchestrator's settings c and returns
// its output, an error ending it in a line of its own.
func replayOrchestrator(t *testing.T, path string, c orchestrator.Config) []byte {
	t.Helper()
	tl, _, err := timeline.LoadFile(path, "")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := sim.RunOrchestrator(&out, tl, c); err != nil {
		out.WriteString("error: " + err.Error() + "\n")
	}
	return out.Bytes()
}

// TestIncidentsOrchestrator replays every shipped incident under Orchestrator's defaults (no
// RecoverMasterClusterFilters: it detects and recovers nothing) and under
// testdata/orchestrator/recover.conf.json (every cluster recovered): both outputs are golden.
func TestIncidentsOrchestrator(t *testing.T) {
	data, err := os.ReadFile("../testdata/orchestrator/recover.conf.json")
	if err != nil {
		t.Fatal(err)
	}
	rec, unknown, err := orchestrator.Parse("recover.conf.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(unknown, ",") != "Debug,BackendDB" {
		t.Errorf("unknown keys %q", unknown)
	}
	files, _ := filepath.Glob("../testdata/incidents/*.timeline")
	if len(files) < 10 {
		t.Fatalf("want the shipped incidents, found %d", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".timeline")
		t.Run(name, func(t *testing.T) {
			golden(t, filepath.Join("..", "testdata", "golden", "orchestrator", name+".txt"), replayOrchestrator(t, f, orchestrator.Defaults()))
			golden(t, filepath.Join("..", "testdata", "golden", "orchestrator", name+".recover.txt"), replayOrchestrator(t, f, rec))
		})
	}
}

// TestOrchestratorIncidentsSayWhatTheyShow pins the two figures the issue names: the EBS stall
// is UnreachableMaster and no failover, a hard death DeadMaster within a poll of 6 s.
func TestOrchestratorIncidentsSayWhatTheyShow(t *testing.T) {
	c := orchestrator.Defaults()
	c.RecoverMasterClusterFilters = []string{"*"}
	ebs := string(replayOrchestrator(t, "../testdata/incidents/ebs-stall.timeline", c))
	if !strings.Contains(ebs, "21:11:01 orchestrator: db1 UnreachableMaster") || strings.Contains(ebs, "DeadMaster") ||
		!strings.Contains(ebs, "verdict: orchestrator: no failover") {
		t.Errorf("ebs-stall:\n%s", ebs)
	}
	hard := string(replayOrchestrator(t, "../testdata/incidents/hard-death.timeline", c))
	if !strings.Contains(hard, "03:14:12 orchestrator: db1 DeadMaster (") || !strings.Contains(hard, "recovery promotes db2") {
		t.Errorf("hard-death:\n%s", hard)
	}
}

// TestReplayOrchestratorDeterministic replays every incident twice: byte-identical output.
func TestReplayOrchestratorDeterministic(t *testing.T) {
	files, _ := filepath.Glob("../testdata/incidents/*.timeline")
	for _, f := range files {
		if a, b := replayOrchestrator(t, f, orchestrator.Defaults()), replayOrchestrator(t, f, orchestrator.Defaults()); !bytes.Equal(a, b) {
			t.Errorf("%s: two replays differ", f)
		}
	}
}
