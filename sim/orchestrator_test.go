package sim_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/act"
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
	if !strings.Contains(ebs, "21:11:10 orchestrator: db1 UnreachableMaster") || strings.Contains(ebs, "DeadMaster") ||
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

// TestOrchestratorPromotionRules: the timeline's promotion rules and data centres decide the
// candidate: db2 must_not leaves db3; with PreventCrossDataCenterMasterFailover and db3 in
// another data centre, nobody.
func TestOrchestratorPromotionRules(t *testing.T) {
	run := func(text string, c orchestrator.Config) string {
		tl, err := timeline.Parse("p.timeline", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := sim.RunOrchestrator(&out, tl, c); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	c := orchestrator.Defaults()
	c.RecoverMasterClusterFilters = []string{"*"}
	const head = "cluster db1:master db2:replica db3:replica\n"
	got := run(head+"promotion db2=must_not\n\n00:00:10 db1 refuse\n00:01:00 cluster end\n", c)
	if !strings.Contains(got, "00:00:12 orchestrator: db1 DeadMaster: recovery promotes db3, repoints db2\n") {
		t.Errorf("must_not:\n%s", got)
	}
	c.PreventCrossDataCenter = true
	got = run(head+"promotion db2=must_not\ndatacenter db1=east db2=east db3=west\n\n00:00:10 db1 refuse\n00:01:00 cluster end\n", c)
	if !strings.Contains(got, `recovery found no replica to promote: PreventCrossDataCenterMasterFailover: will not promote a replica in "west" when the failed master is in "east"`) {
		t.Errorf("cross data centre:\n%s", got)
	}
}

// whenOrder records whether the events it is told come in time order.
type whenOrder struct {
	last time.Duration
	bad  string
}

func (w *whenOrder) Event(ev act.Event) {
	if ev.When() < w.last && w.bad == "" {
		w.bad = fmt.Sprintf("%T at %v after %v", ev, ev.When(), w.last)
	}
	w.last = max(w.last, ev.When())
}

// TestOrchestratorEventsInOrder: every replay under Orchestrator's rules, shipped or
// disagreeing, with recovery on, tells its events in time order.
func TestOrchestratorEventsInOrder(t *testing.T) {
	c := orchestrator.Defaults()
	c.RecoverMasterClusterFilters = []string{"*"}
	files, _ := filepath.Glob("../testdata/incidents/*.timeline")
	more, _ := filepath.Glob("../testdata/disagree/*.timeline")
	for _, f := range append(files, more...) {
		tl, _, err := timeline.LoadFile(f, "")
		if err != nil {
			t.Fatal(err)
		}
		w := &whenOrder{}
		if _, err := sim.ReplayOrchestrator(tl, c, w); err != nil {
			t.Fatal(err)
		}
		if w.bad != "" {
			t.Errorf("%s: %s", f, w.bad)
		}
	}
}

// TestOrchestratorClientView: the replication model follows Orchestrator's recoveries. A
// master refused with writes of 100/s: with every cluster recovered, the writes fail from the
// fault until the recovery promotes (03:14:07 to 03:14:31); with no recovery, to the end. A
// host down under the master takes its writes with it until it is up again, Orchestrator or
// not.
func TestOrchestratorClientView(t *testing.T) {
	c := orchestrator.Defaults()
	c.RecoverMasterClusterFilters = []string{"*"}
	got := string(replayOrchestrator(t, "../testdata/incidents/lagging-replica.timeline", c))
	for _, want := range []string{
		"03:14:31 db3 promoted at position 84700;",
		"\nreplication: async; workload 100 writes/s, deadline 2s\n",
		"\n  longest outage: 24s, from 03:14:07 to 03:14:31 (2400 writes failed)\n",
		"\n  acknowledged writes lost: 0\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("recovered: want %q in\n%s", want, got)
		}
	}
	got = string(replayOrchestrator(t, "../testdata/incidents/lagging-replica.timeline", orchestrator.Defaults()))
	if !strings.Contains(got, "\n  longest outage: 15m53.01s, from 03:14:07 to 03:30:00.010 (95301 writes failed)\n") || strings.Contains(got, "promoted at position") {
		t.Errorf("not recovered:\n%s", got)
	}
	tl, err := timeline.Parse("h.timeline", []byte("cluster db1:master db2:replica\nworkload writes=10/s\n\n00:00:10 db1 host down\n00:00:30 db1 host up\n00:01:00 cluster end\n"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := sim.RunOrchestrator(&out, tl, orchestrator.Defaults()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "\n  longest outage: 20s, from 00:00:10 to 00:00:30 (200 writes failed)\n") {
		t.Errorf("host down:\n%s", out.String())
	}
}
