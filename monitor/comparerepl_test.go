package monitor

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
	got, ok := CompareReplication(start, sim, live, 2001, rate, deadline)
	want := []string{
		"simulated  offered 3200, acknowledged 3000, failed 200, lost 2000; longest outage 2s (21:00:22 to 21:00:24); unavailable 2s",
		"live       offered 3201, acknowledged 2998, failed 203, lost 2001; longest outage 2.03s (21:00:22.010 to 21:00:24.040); unavailable 2.03s",
		"agree   lost writes: live 2001, simulated 2000 (within 200, one deadline's worth)",
		"agree   longest outage: live 2.03s, simulated 2s (within one tick)",
	}
	if !ok || !slices.Equal(got, want) {
		t.Fatalf("CompareReplication = %v\n%q\nwant\n%q", ok, got, want)
	}
	// 201 writes apart, and 10.001 s: both differ.
	live.Outage.To = live.Outage.From + 12001*time.Millisecond
	got, ok = CompareReplication(start, sim, live, 2201, rate, deadline)
	if ok || got[2] != "DIFFER  lost writes: live 2201, simulated 2000 (within 200, one deadline's worth)" ||
		got[3] != "DIFFER  longest outage: live 12.001s, simulated 2s (within one tick)" {
		t.Fatalf("CompareReplication = %v\n%q", ok, got)
	}
	// No outage at all reads "none".
	got, _ = CompareReplication(start, repl.Summary{}, repl.Summary{}, 0, rate, deadline)
	if got[0] != "simulated  offered 0, acknowledged 0, failed 0, lost 0; longest outage none; unavailable 0s" {
		t.Fatalf("no outage: %q", got[0])
	}
}
