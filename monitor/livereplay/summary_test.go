package livereplay

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/repl"
)

// The typed JSON of a live replay marshals to the very bytes of the map form the command
// printed before it (json.Marshal of a map sorts its keys): nil and empty lists, a skipped
// expectation, fractional seconds and a link name with "<-" included.
func TestOutputBytes(t *testing.T) {
	same := func(name string, typed, mapped any) {
		t.Helper()
		a, err := json.Marshal(typed)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(mapped)
		if err != nil {
			t.Fatal(err)
		}
		if string(a) != string(b) {
			t.Errorf("%s:\n typed %s\n   map %s", name, a, b)
		}
	}
	results := []ExpectResult{{Result: expect.Result{Line: 4, Text: "failover db1 -> db2 by 00:01:00", Held: true}},
		{Result: expect.Result{Line: 5, Text: "lost writes 0", Why: "not judged live: the client's view is compared with the simulated one instead"}, Skipped: true},
		{Result: expect.Result{Line: 6, Text: "db2 online at 00:02:00", Why: "db2 is offline"}}}
	for _, c := range []struct {
		name                     string
		decisions, states, notes []string
		expectations             []ExpectResult
		speed                    float64
		server                   string
		agree                    bool
	}{
		{"agreeing", []string{"agree   00:00:40 failover db1 -> db2 (live +0.3s)"}, []string{"agree   db1: 00:00:30 stopped (live +0.2s)", "agree   db2: no change"},
			nil, results, 10, "127.0.0.1:3306", true},
		{"gaps", []string{"DIFFER  simulated 00:00:40 failover db1 -> db2; live: nothing"}, nil,
			[]string{"not exercised: the runtime did not run for 12s of real time from 00:01:10: its own clock jumped past the instant it had planned"},
			[]ExpectResult{}, 2.5, "built-in", false},
	} {
		typed := Output[Summary]{Summary{Agree: c.agree, Decisions: c.decisions, Expectations: c.expectations, File: "incidents/x.timeline",
			Notes: c.notes, Server: c.server, Speed: c.speed, States: c.states}}
		mapped := map[string]any{"live_summary": map[string]any{"file": "incidents/x.timeline", "speed": c.speed, "server": c.server, "agree": c.agree,
			"decisions": c.decisions, "states": c.states, "notes": c.notes, "expectations": c.expectations}}
		same("summary "+c.name, typed, mapped)
	}

	for _, notes := range [][]string{nil, {"interrupted: db2's replication links healed (they were in freeze)", "interrupted: db3's replicator left stopped: run START SLAVE on it"}} {
		same("interrupted", Output[Interrupted]{Interrupted{File: "w.timeline", Interrupted: true, Notes: notes}},
			map[string]any{"live_summary": map[string]any{"file": "w.timeline", "interrupted": true, "notes": notes}})
	}

	availabilityMap := func(s repl.Summary, lost int64) map[string]any {
		return map[string]any{"offered": s.Offered, "acknowledged": s.Acknowledged, "failed": s.Failed, "lost": lost,
			"longest_outage_s": s.Outage.Length().Seconds(), "outage_from_s": s.Outage.From.Seconds(), "outage_to_s": s.Outage.To.Seconds(),
			"unavailable_s": s.Unavailable.Seconds()}
	}
	simulated := repl.Summary{Offered: 1700, Acknowledged: 1500, Failed: 200, Lost: 3, Unavailable: 2 * time.Second,
		Outage: repl.Outage{From: 7 * time.Second, To: 9 * time.Second, Writes: 200}}
	live := repl.Summary{Offered: 1701, Acknowledged: 1493, Failed: 208, Unavailable: 2080 * time.Millisecond,
		Outage: repl.Outage{From: 7010 * time.Millisecond, To: 9090 * time.Millisecond, Writes: 208}}
	for _, c := range []struct {
		name                             string
		decisions, states, client, notes []string
		expectations                     []ExpectResult
		simulated, live                  repl.Summary
		liveLost                         int64
		agree                            bool
	}{
		{"agreeing", []string{"agree   00:00:07 failover db1 -> db3 (live +0.0s)"}, []string{"agree   db1: 00:00:07 stopped (live +0.0s)"},
			[]string{"simulated  offered 1700", "agree   lost writes: live 0, simulated 0 (within 200, one deadline's worth)"},
			[]string{"live promotion at 00:00:07: db1 -> db3, writable 18ms after the failover was told; db2 repointed"},
			results, simulated, live, 2, true},
		{"nothing", nil, nil, nil, nil, []ExpectResult{}, repl.Summary{}, repl.Summary{}, 0, false},
	} {
		typed := Output[ReplSummary]{ReplSummary{Agree: c.agree, Client: c.client, Decisions: c.decisions, Expectations: c.expectations,
			File: "w.timeline", Live: NewAvailability(c.live, c.liveLost), Notes: c.notes, Servers: 3,
			Simulated: NewAvailability(c.simulated, c.simulated.Lost), Speed: 1, States: c.states}}
		mapped := map[string]any{"live_summary": map[string]any{"file": "w.timeline", "speed": 1, "servers": 3,
			"agree": c.agree, "decisions": c.decisions, "states": c.states, "client": c.client, "notes": c.notes, "expectations": c.expectations,
			"simulated": availabilityMap(c.simulated, c.simulated.Lost), "live": availabilityMap(c.live, c.liveLost)}}
		same("repl summary "+c.name, typed, mapped)
	}
}
