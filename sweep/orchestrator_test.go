package sweep_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/orchestrator"
	"github.com/failsim/failsim/sweep"
	"github.com/failsim/failsim/timeline"
)

// TestParseOrchVary: a key of Orchestrator's over a range, and each way to get it wrong.
func TestParseOrchVary(t *testing.T) {
	a, err := sweep.ParseOrchVary("InstancePollSeconds=1..10:3")
	if err != nil || a != (sweep.OrchAxis{Key: "InstancePollSeconds", From: 1, To: 10, Step: 3}) {
		t.Errorf("got %+v, %v", a, err)
	}
	for in, want := range map[string]string{
		"InstancePollSeconds=0..10":  "Orchestrator refuses a value under 1",
		"InstancePollSeconds=5..1":   "runs backwards",
		"InstancePollSeconds=1..x":   `TO "x": want a whole number`,
		"InstancePollSeconds=1..5:0": `STEP "0"`,
		"InstancePollSeconds=7":      "want FROM..TO",
		"HealthPollSeconds=1..2":     "KEY one of InstancePollSeconds,",
	} {
		if _, err := sweep.ParseOrchVary(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to say %q", in, err, want)
		}
	}
	if !sweep.IsOrchKey("InstancePollSeconds=1..3") || sweep.IsOrchKey("interval=1s..3s") {
		t.Error("IsOrchKey tells Orchestrator's keys from the Tungsten sweep's wrongly")
	}
}

// TestOrchestratorSweep varies InstancePollSeconds over 1..10: a refused master is DeadMaster
// within a read cycle (InstancePollSeconds + 1 s, less a millisecond) at every point; a
// frozen one waits for the replicas' slave_net_timeout whatever the poll (31.001 to 61 s);
// a stall is never DeadMaster. The hard death's replay finds DeadMaster at every point, the
// EBS stall's at none; the CSV is the same bytes twice.
func TestOrchestratorSweep(t *testing.T) {
	var ins []sweep.Incident
	for _, f := range []string{"hard-death", "ebs-stall-workload"} {
		tl, _, err := timeline.LoadFile("../testdata/incidents/"+f+".timeline", "")
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, sweep.Incident{Timeline: tl})
	}
	cfg := sweep.OrchConfig{Base: orchestrator.Defaults(), Axes: []sweep.OrchAxis{{Key: "InstancePollSeconds", From: 1, To: 10, Step: 1}}, Incidents: ins}
	res, err := sweep.Orchestrator(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 10 {
		t.Fatalf("%d points, want 10", len(res.Points))
	}
	for _, p := range res.Points {
		poll := time.Duration(p.Values[0]) * time.Second
		refuse, freeze, stall := p.Faults[0], p.Faults[1], p.Faults[4]
		if !refuse.DeadEver || refuse.DeadMin != 0 || refuse.DeadMax != poll+time.Second-time.Millisecond {
			t.Errorf("poll %s: refuse %+v, want DeadMaster 0 to %s", poll, refuse, poll+time.Second-time.Millisecond)
		}
		if !freeze.DeadEver || freeze.DeadMin != 31001*time.Millisecond || freeze.DeadMax != 61*time.Second {
			t.Errorf("poll %s: freeze %+v, want DeadMaster 31.001s to 61s", poll, freeze)
		}
		if stall.DeadEver {
			t.Errorf("poll %s: stall %+v, want never DeadMaster", poll, stall)
		}
		if hd, ebs := p.Incidents[0], p.Incidents[1]; !hd.DeadOK || ebs.DeadOK || ebs.Client == nil || ebs.Client.Lost != 0 || ebs.Client.Unavailable != 24*time.Minute+30*time.Second {
			t.Errorf("poll %s: hard death %+v, ebs stall %+v", poll, hd, ebs)
		}
	}
	again, err := sweep.Orchestrator(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(res.CSV(), again.CSV()) {
		t.Error("two sweeps' CSV differ")
	}
	if !strings.HasPrefix(string(res.CSV()), "InstancePollSeconds,subject,") || !strings.Contains(string(res.CSV()), "\n1,fault refuse,0,1.999,0,1.999,,,,,\n") {
		t.Errorf("CSV:\n%s", res.CSV())
	}
	if _, err := sweep.Orchestrator(context.Background(), sweep.OrchConfig{Base: orchestrator.Defaults()}); err == nil {
		t.Error("a sweep of no axis ran")
	}
}

// FuzzParseOrchVary: whatever the input, no panic; what parses is a forward range of a key
// Orchestrator accepts, and its own words parse back to it.
func FuzzParseOrchVary(f *testing.F) {
	for _, s := range []string{"InstancePollSeconds=1..10", "RecoveryPeriodBlockSeconds=60..3600:60", "InstancePollSeconds=0..1", "x=1..2", "InstancePollSeconds=1..", "=..:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := sweep.ParseOrchVary(s)
		if err != nil {
			return
		}
		if a.From > a.To || a.Step < 1 || !sweep.IsOrchKey(s) {
			t.Fatalf("%q parsed to %+v", s, a)
		}
		back, err := sweep.ParseOrchVary(fmt.Sprintf("%s=%d..%d:%d", a.Key, a.From, a.To, a.Step))
		if err != nil || back != a {
			t.Fatalf("%q: %+v does not parse back: %+v, %v", s, a, back, err)
		}
	})
}
