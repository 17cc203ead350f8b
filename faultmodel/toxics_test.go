package faultmodel

import (
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/statemap"
)

// Every toxiproxy toxic's outcome and death, to exact values, each rule at its edges: the
// budget is 5 s unless a case says otherwise.
func TestPredictToxics(t *testing.T) {
	const (
		ms = time.Millisecond
		s  = time.Second
	)
	type out = act.Outcome
	ok := func(took time.Duration) out { return out{Condition: statemap.OK, Took: took} }
	late := func(c statemap.Condition) out { return out{Condition: c, Took: 5 * s} }
	at := func(c statemap.Condition, took time.Duration) out { return out{Condition: c, Took: took} }
	for _, c := range []struct {
		words  string
		budget time.Duration // 0: 5 s
		want   out
		dead   bool
	}{
		// latency: three trips downstream, two upstream, each L+J late at worst.
		{"latency 1s", 0, ok(3 * s), false},
		{"latency 1s jitter 600ms", 0, ok(4800 * ms), false},
		{"latency 1s jitter 700ms", 0, late(statemap.QueryResultsTimeout), false},
		{"latency 1666ms", 0, ok(4998 * ms), false},
		{"latency 1667ms", 0, late(statemap.QueryResultsTimeout), false},
		{"latency 2500ms", 0, late(statemap.QueryExecTimeout), false},
		{"latency 4s jitter 1s", 0, late(statemap.LoginResponseTimeout), false},
		{"latency 2499ms upstream", 0, ok(4998 * ms), false},
		{"latency 2500ms upstream", 0, late(statemap.QueryResultsTimeout), false},
		{"latency 5s upstream", 0, late(statemap.QueryExecTimeout), false},
		{"latency 8760h jitter 8760h", 0, late(statemap.LoginResponseTimeout), false},
		// bandwidth: each trip held for its bytes, 1 ms a byte at 1 KB/s.
		{"bandwidth 1KB/s", 0, ok(165 * ms), false},
		{"bandwidth 1KB/s upstream", 0, ok(196 * ms), false},
		{"bandwidth 1000KB/s", 0, ok(165 * time.Microsecond), false},
		{"bandwidth 1KB/s", 104 * ms, at(statemap.LoginResponseTimeout, 104*ms), false},
		{"bandwidth 1KB/s", 105 * ms, at(statemap.QueryExecTimeout, 105*ms), false},
		{"bandwidth 1KB/s", 165 * ms, at(statemap.QueryResultsTimeout, 165*ms), false},
		{"bandwidth 1KB/s upstream", 183 * ms, at(statemap.QueryExecTimeout, 183*ms), false},
		{"bandwidth 3KB/s", 0, ok(54999998), false}, // each trip truncated to the nanosecond, as toxiproxy does
		// slicer: (pieces-1) pauses within a trip, and the last pause of the trip before it.
		{"slicer 64 variation 16 delay 10us", 0, ok(30 * time.Microsecond), false}, // 104 in 2, 11 in 1, 50 in 1
		{"slicer 1 delay 10ms", 0, ok(1640 * ms), false},                           // 103, then 10+1, then 49+1 pauses
		{"slicer 1 delay 10ms upstream", 0, ok(1950 * ms), false},                  // 182, then 12+1
		{"slicer 1 delay 10ms", s, at(statemap.LoginResponseTimeout, s), false},
		{"slicer 64", 0, ok(0), false},
		// slow-close: only the FIN, after the probe's end.
		{"slow-close 2s", 0, ok(0), false},
		{"slow-close 1h upstream", 0, ok(0), false},
		// timeout: the stream's first trip never comes; closed after T, never for 0.
		{"timeout 0", 0, late(statemap.LoginResponseTimeout), true},
		{"timeout 0 upstream", 0, late(statemap.QueryExecTimeout), true},
		{"timeout 2s", 0, at(statemap.SocketIOError, 2*s), true},
		{"timeout 2s upstream", 0, at(statemap.MySQLPrematureEOF, 2*s), true},
		{"timeout 4999ms", 0, at(statemap.SocketIOError, 4999*ms), true},
		{"timeout 5s", 0, late(statemap.LoginResponseTimeout), true},
		{"timeout 5s upstream", 0, late(statemap.QueryExecTimeout), true},
		// reset-peer: RST T after the stream's first bytes.
		{"reset-peer", 0, at(statemap.SocketIOError, 0), true},
		{"reset-peer upstream", 0, at(statemap.SocketIOError, 0), true},
		{"reset-peer 2s upstream", 0, at(statemap.SocketIOError, 2*s), true},
		{"reset-peer 5s", 0, late(statemap.LoginResponseTimeout), true},
		{"reset-peer 5s upstream", 0, late(statemap.QueryExecTimeout), true},
		// limit-data downstream: greeting 104, verdict 11, result 50 bytes.
		{"limit-data 1", 0, at(statemap.SocketIOError, 0), true},
		{"limit-data 103", 0, at(statemap.SocketIOError, 0), true},
		{"limit-data 104", 0, at(statemap.MySQLPrematureEOF, 0), true},
		{"limit-data 114", 0, at(statemap.MySQLPrematureEOF, 0), true},
		{"limit-data 115", 0, at(statemap.SocketIOError, 0), true},
		{"limit-data 164", 0, at(statemap.SocketIOError, 0), true},
		{"limit-data 165", 0, ok(0), false},
		{"limit-data 4096", 0, ok(0), false},
		// limit-data upstream: login 183, query 13 bytes; the trip that reaches N gets no answer.
		{"limit-data 1 upstream", 0, at(statemap.MySQLPrematureEOF, 0), true},
		{"limit-data 183 upstream", 0, at(statemap.MySQLPrematureEOF, 0), true},
		{"limit-data 184 upstream", 0, at(statemap.SocketIOError, 0), true},
		{"limit-data 196 upstream", 0, at(statemap.SocketIOError, 0), true},
		{"limit-data 197 upstream", 0, ok(0), false},
	} {
		f, err := fault.Parse(strings.Fields(c.words))
		if err != nil {
			t.Fatal(err)
		}
		budget := c.budget
		if budget == 0 {
			budget = 5 * s
		}
		if got := Predict(f, budget); got != c.want {
			t.Errorf("Predict(%s, %s) = %+v, want %+v", c.words, budget, got, c.want)
		}
		if got := DatabaseDead(f); got != c.dead {
			t.Errorf("DatabaseDead(%s) = %v, want %v", c.words, got, c.dead)
		}
	}
}

// Every toxic under every budget ends within it: a probe never outlasts the checker.
func TestToxicsWithinBudget(t *testing.T) {
	for _, words := range []string{"latency 8760h jitter 8760h", "bandwidth 1KB/s upstream", "slicer 1 delay 8760h", "timeout 8760h", "reset-peer 8760h upstream", "limit-data 1"} {
		f, err := fault.Parse(strings.Fields(words))
		if err != nil {
			t.Fatal(err)
		}
		for _, budget := range []time.Duration{1, time.Millisecond, 5 * time.Second, 24 * time.Hour, 1<<63 - 1} {
			if o := Predict(f, budget); o.Took > budget || o.Took < 0 {
				t.Errorf("Predict(%s, %v) took %v", words, budget, o.Took)
			}
		}
	}
}

// FuzzPredict: any fault a timeline can name, under any budget, ends within the budget, a
// timeout after the whole of it, and no fault panics.
func FuzzPredict(f *testing.F) {
	for _, s := range []string{"latency 200ms jitter 50ms upstream", "bandwidth 10KB/s", "slow-close 2s", "timeout 0",
		"timeout 5s upstream", "reset-peer", "slicer 64 variation 16 delay 10us", "limit-data 4096", "freeze", "delay 1s"} {
		f.Add(s, int64(5*time.Second))
	}
	f.Fuzz(func(t *testing.T, words string, budget int64) {
		flt, err := fault.Parse(strings.Fields(words))
		if err != nil || budget <= 0 {
			return
		}
		o := Predict(flt, time.Duration(budget))
		if o.Took < 0 || o.Took > time.Duration(budget) || (o.Condition.IsTimeout() && o.Took != time.Duration(budget)) {
			t.Errorf("Predict(%s, %v) = %+v", flt, time.Duration(budget), o)
		}
		DatabaseDead(flt)
	})
}
