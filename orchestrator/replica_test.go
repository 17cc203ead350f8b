package orchestrator

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/fault"
)

func sp(at time.Duration, k fault.Kind) Span { return Span{At: at, Fault: fault.Fault{Kind: k}} }

func show(cs []Change) string {
	var b []string
	for _, c := range cs {
		w := "stops"
		if c.Running {
			w = "runs"
		}
		b = append(b, fmt.Sprintf("%v %s", c.At, w))
	}
	return strings.Join(b, ", ")
}

// TestIOChanges pins each fault's rule under MariaDB's defaults (slave_net_timeout 60 s,
// heartbeat 30 s, connect retry 60 s), with exact times.
func TestIOChanges(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		name  string
		spans []Span
		want  string
	}{
		{"no fault", nil, ""},
		{"refuse breaks at once, retries every 60 s, back at the first attempt after heal",
			[]Span{sp(10*s, fault.Refuse), sp(100*s, fault.Heal)}, "10s stops, 2m10s runs"},
		{"reset and close as refuse", []Span{sp(10*s, fault.Reset), sp(20*s, fault.Close), sp(65*s, fault.Heal)}, "10s stops, 1m10s runs"},
		{"freeze breaks 60 s after the last heartbeat (at 0)", []Span{sp(10*s, fault.Freeze)}, "1m0s stops"},
		{"freeze after the heartbeat at 30 s", []Span{sp(35*s, fault.Freeze)}, "1m30s stops"},
		{"freeze healed before the timeout breaks nothing", []Span{sp(10*s, fault.Freeze), sp(59*s, fault.Heal)}, ""},
		{"freeze healed at the timeout: the timeout wins", []Span{sp(10*s, fault.Freeze), sp(60*s, fault.Heal)}, "1m0s stops, 1m0s runs"},
		{"a hung attempt succeeds at heal", []Span{sp(10*s, fault.Freeze), sp(100*s, fault.Heal)}, "1m0s stops, 1m40s runs"},
		{"a hung attempt fails at 60 s, the next 60 s later", []Span{sp(10*s, fault.Blackhole), sp(150*s, fault.Heal)}, "1m0s stops, 3m0s runs"},
		{"stall keeps the link up (the EBS case)", []Span{sp(10*s, fault.Stall), sp(1000*s, fault.Heal)}, ""},
		{"error keeps the open link", []Span{sp(10*s, fault.Error)}, ""},
		{"error refuses a reconnect", []Span{sp(10*s, fault.Refuse), sp(20*s, fault.Error), sp(100*s, fault.Heal)}, "10s stops, 2m10s runs"},
		{"stall hangs a reconnect until heal", []Span{sp(10*s, fault.Refuse), sp(20*s, fault.Stall), sp(100*s, fault.Heal)}, "10s stops, 1m40s runs"},
		{"hostdown is silent, then refuses", []Span{sp(10*s, fault.HostDown), sp(100*s, fault.Heal)}, "1m0s stops, 2m0s runs"},
		{"freeze then refuse drops at the refuse", []Span{sp(10*s, fault.Freeze), sp(20*s, fault.Refuse)}, "20s stops"},
		{"silence goes on across a freeze then a blackhole", []Span{sp(10*s, fault.Freeze), sp(20*s, fault.Blackhole)}, "1m0s stops"},
		{"heartbeats count from the reconnect", []Span{sp(10*s, fault.Refuse), sp(15*s, fault.Heal), sp(95*s, fault.Freeze)}, "10s stops, 1m10s runs, 2m10s stops"},
		{"slow and delay keep it up", []Span{sp(10*s, fault.Slow), sp(20*s, fault.Delay)}, ""},
	} {
		got, err := IOChanges(DefaultReplica(), tc.spans, time.Hour)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if show(got) != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, show(got), tc.want)
		}
	}
}

func TestIOChangesUntil(t *testing.T) {
	got, _ := IOChanges(DefaultReplica(), []Span{sp(10*time.Second, fault.Freeze)}, 59*time.Second)
	if len(got) != 0 {
		t.Errorf("changes after until: %s", show(got))
	}
}

func TestIOChangesShorterTimeout(t *testing.T) {
	// Orchestrator's advice (docs/configuration-failure-detection.md:35): slave_net_timeout 4,
	// a heartbeat every 2 s.
	r := Replica{NetTimeout: 4 * time.Second, HeartbeatPeriod: 2 * time.Second, ConnectRetry: time.Second}
	got, _ := IOChanges(r, []Span{sp(5*time.Second, fault.Freeze)}, time.Hour)
	if show(got) != "8s stops" {
		t.Errorf("got %q, want 8s stops (last heartbeat at 4 s)", show(got))
	}
}

func TestIOChangesErrors(t *testing.T) {
	if _, err := IOChanges(DefaultReplica(), []Span{{At: 0, Fault: fault.Fault{Kind: fault.Slicer}}}, time.Hour); err == nil || !strings.Contains(err.Error(), "slicer") {
		t.Errorf("slicer: err = %v, want one naming it", err)
	}
	if _, err := IOChanges(Replica{}, nil, time.Hour); err == nil {
		t.Error("zero settings: no error")
	}
}

func TestRunningAt(t *testing.T) {
	cs := []Change{{10 * time.Second, false}, {70 * time.Second, true}}
	for _, tc := range []struct {
		t    time.Duration
		want bool
	}{{0, true}, {10 * time.Second, false}, {69 * time.Second, false}, {70 * time.Second, true}} {
		if got := RunningAt(cs, tc.t); got != tc.want {
			t.Errorf("at %v: %t, want %t", tc.t, got, tc.want)
		}
	}
}

func TestLagOf(t *testing.T) {
	if got := LagOf(fault.Fault{Kind: fault.Delay, Delay: 3 * time.Second}); got != 3*time.Second {
		t.Errorf("delay 3s adds %v", got)
	}
	if got := LagOf(fault.Fault{Kind: fault.Stall}); got != 0 {
		t.Errorf("stall adds %v", got)
	}
}

func TestIOChangesFromRestart(t *testing.T) {
	// A restart of the I/O thread (START SLAVE) while the master stalls: the attempt logs in
	// and its first command hangs until heal.
	got, err := IOChangesFrom(DefaultReplica(), []Span{sp(0, fault.Stall), sp(30*time.Second, fault.Heal)}, time.Hour, false)
	if err != nil || show(got) != "0s stops, 30s runs" {
		t.Errorf("restart under a stall: %q %v, want 0s stops, 30s runs", show(got), err)
	}
	if RunningAt(got, 29*time.Second) {
		t.Error("running before the attempt succeeds")
	}
	got, _ = IOChangesFrom(DefaultReplica(), nil, time.Hour, false)
	if show(got) != "0s stops, 0s runs" {
		t.Errorf("restart, no fault: %q, want 0s stops, 0s runs", show(got))
	}
}
