package livereplay

import (
	"slices"
	"testing"
	"time"

	"github.com/failsim/failsim/repl"
)

func TestCompareReplication(t *testing.T) {
	start := time.Date(2026, 1, 1, 21, 0, 0, 0, time.UTC)
	rate, deadline := repl.PerSecond(100), 2*time.Second
	sim := repl.Summary{Offered: 3200, Acknowledged: 3000, Failed: 200, Lost: 2000, Unavailable: 2 * time.Second,
		Outage: repl.Outage{From: 22 * time.Second, To: 24 * time.Second, Writes: 200}}
	live := repl.Summary{Offered: 3201, Acknowledged: 2998, Failed: 203, Unavailable: 2030 * time.Millisecond,
		Outage: repl.Outage{From: 22010 * time.Millisecond, To: 24040400 * time.Microsecond, Writes: 203}}
	got, ok := CompareReplication(start, sim, live, 2001, rate, deadline, 1)
	want := []string{
		"simulated  offered 3200, acknowledged 3000, failed 200, lost 2000; longest outage 2s (21:00:22 to 21:00:24); unavailable 2s",
		"live       offered 3201, acknowledged 2998, failed 203, lost 2001; longest outage 2.03s (21:00:22.010 to 21:00:24.040); unavailable 2.03s",
		"agree   lost writes: live 2001, simulated 2000 (within 200, one deadline's worth)",
		"agree   longest outage: live 2.03s, simulated 2s (within one tick)",
		"agree   failed writes: live 203, simulated 200 (within 1200, one deadline and 1 tick's worth)",
		"agree   unavailable: live 2.03s, simulated 2s (within 12s, one deadline and 1 tick)",
	}
	if !ok || !slices.Equal(got, want) {
		t.Fatalf("CompareReplication = %v\n%q\nwant\n%q", ok, got, want)
	}
	// 201 writes apart, and 10.001 s: both differ.
	live.Outage.To = live.Outage.From + 12001*time.Millisecond
	got, ok = CompareReplication(start, sim, live, 2201, rate, deadline, 1)
	if ok || got[2] != "DIFFER  lost writes: live 2201, simulated 2000 (within 200, one deadline's worth)" ||
		got[3] != "DIFFER  longest outage: live 12.001s, simulated 2s (within one tick)" {
		t.Fatalf("CompareReplication = %v\n%q", ok, got)
	}
	// No outage at all reads "none".
	got, _ = CompareReplication(start, repl.Summary{}, repl.Summary{}, 0, rate, deadline, 0)
	if got[0] != "simulated  offered 0, acknowledged 0, failed 0, lost 0; longest outage none; unavailable 0s" {
		t.Fatalf("no outage: %q", got[0])
	}
}

// Writes that failed live with no cause in the timeline make the run differ even when nothing
// was lost and the longest outage stays within a tick: a master frozen five times for 4 s
// (532 of 1,501 writes failed live, none simulated), or failsim itself stopped for 12 s (370).
func TestCompareReplicationFailedWrites(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rate, deadline := repl.PerSecond(50), 2*time.Second
	sim := repl.Summary{Offered: 1501, Acknowledged: 1501}
	for _, c := range []struct {
		name   string
		failed int64
		unav   time.Duration
		outage time.Duration
		lines  [2]string
	}{
		{"master frozen 5 x 4 s", 532, 20 * time.Second, 4 * time.Second, [2]string{
			"DIFFER  failed writes: live 532, simulated 0 (within 100, one deadline's worth)",
			"DIFFER  unavailable: live 20s, simulated 0s (within 2s, one deadline)"}},
		{"failsim stopped 12 s", 370, 7400 * time.Millisecond, 7400 * time.Millisecond, [2]string{
			"DIFFER  failed writes: live 370, simulated 0 (within 100, one deadline's worth)",
			"DIFFER  unavailable: live 7.4s, simulated 0s (within 2s, one deadline)"}},
		{"a deadline's worth", 100, 2 * time.Second, 2 * time.Second, [2]string{
			"agree   failed writes: live 100, simulated 0 (within 100, one deadline's worth)",
			"agree   unavailable: live 2s, simulated 0s (within 2s, one deadline)"}},
	} {
		live := repl.Summary{Offered: 1501, Acknowledged: 1501 - c.failed, Failed: c.failed, Unavailable: c.unav,
			Outage: repl.Outage{From: time.Second, To: time.Second + c.outage}}
		got, ok := CompareReplication(start, sim, live, 0, rate, deadline, 0)
		want := c.lines[0][:5] == "agree"
		if ok != want || got[2] != "agree   lost writes: live 0, simulated 0 (within 100, one deadline's worth)" ||
			got[3] != "agree   longest outage: live "+c.outage.String()+", simulated 0s (within one tick)" || got[4] != c.lines[0] || got[5] != c.lines[1] {
			t.Errorf("%s: %v\n%q", c.name, ok, got)
		}
	}
}
