package timeline_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

func TestParseReplication(t *testing.T) {
	tl, err := timeline.Parse("r.timeline", []byte(`cluster db1:master db2:replica:3 db3:replica
workload writes=5/100ms deadline=1500ms near db2
replication semisync timeout=4s lag-cap=60s apply-wait=30s
00:00:10 db2 lag 5s
00:00:10 db1 freeze
00:00:20 db3 apply-lag 1m
+10s db2 link freeze
+0s db2 link heal
00:01:00 db3 replicator stop
00:01:00 db3 replicator start
expect outage at most 90s
expect unavailable at most 2m
expect lost writes 0
expect lost writes at most 12
`))
	if err != nil {
		t.Fatal(err)
	}
	r := tl.Repl
	want := repl.Config{Nodes: 3, Master: 0, Rate: repl.Rate{Writes: 5, Per: 100 * time.Millisecond}, Deadline: 1500 * time.Millisecond,
		Mode: repl.Semisync, Timeout: 4 * time.Second, LagCap: time.Minute, ApplyWait: 30 * time.Second, Precedence: []int{1, 3, 3}}
	if r == nil || !reflect.DeepEqual(r.Config, want) || !r.Workload || r.WorkloadLine != 2 || r.Near != 1 {
		t.Fatalf("replication %+v", r)
	}
	s := time.Second
	wantEv := []timeline.ReplEvent{
		{At: 10 * s, Line: 4, Input: repl.SetLag{Node: 1, Lag: 5 * s}},
		{At: 20 * s, Line: 6, Input: repl.SetApplyLag{Node: 2, Lag: time.Minute}},
		{At: 30 * s, Line: 7, Input: repl.SetStream{Node: 1, Frozen: true}},
		{At: 30 * s, Line: 8, Input: repl.SetStream{Node: 1}},
		{At: 60 * s, Line: 9, Input: repl.SetReplicator{Node: 2}},
		{At: 60 * s, Line: 10, Input: repl.SetReplicator{Node: 2, Running: true}},
	}
	if !reflect.DeepEqual(r.Events, wantEv) {
		t.Errorf("events:\n got  %+v\n want %+v", r.Events, wantEv)
	}
	if len(tl.Events) != 1 || tl.Events[0].At != 10*s {
		t.Errorf("the engine's events %+v: want the freeze alone", tl.Events)
	}
	if tl.End != 60*s+timeline.DefaultTail {
		t.Errorf("end %v: want the last event, a replication one, plus %v", tl.End, timeline.DefaultTail)
	}
	x := tl.Expects
	if x[0].Kind != timeline.ExpectOutage || x[0].Max != 90*s || x[1].Kind != timeline.ExpectUnavailable || x[1].Max != 2*time.Minute ||
		x[2].Kind != timeline.ExpectLostWrites || x[2].Count != 0 || x[2].AtMost || x[3].Count != 12 || !x[3].AtMost {
		t.Errorf("expects %+v", x)
	}

	// An expectation may come before the workload statement.
	if _, err := timeline.Parse("e.timeline", []byte("cluster a:master\nexpect lost writes 0\nworkload writes=1/s\n")); err != nil {
		t.Errorf("expect before workload: %v", err)
	}
	// A timeline that says nothing of replication has none: its replay runs no model.
	plain, err := timeline.Parse("p.timeline", []byte("cluster a:master b:replica\n00:00:01 a freeze\n"))
	if err != nil || plain.Repl != nil {
		t.Errorf("plain timeline: %v, %+v", err, plain.Repl)
	}
	// A precedence alone makes one: the ranking then decides.
	prec, err := timeline.Parse("p.timeline", []byte("cluster a:master b:replica c:replica:1\n"))
	if err != nil || prec.Repl == nil || !reflect.DeepEqual(prec.Repl.Config.Precedence, []int{1, 2, 1}) || prec.Repl.Workload {
		t.Errorf("precedence: %v, %+v", err, prec.Repl)
	}
	// The defaults: async, a 2s deadline, the first node of the cluster line.
	def, err := timeline.Parse("d.timeline", []byte("cluster a:replica b:master\nworkload writes=200/s\n"))
	if err != nil || !reflect.DeepEqual(def.Repl.Config, repl.Config{Nodes: 2, Master: 1, Rate: repl.PerSecond(200), Deadline: timeline.DefaultDeadline}) || def.Repl.Near != 0 {
		t.Errorf("defaults: %v, %+v", err, def.Repl)
	}
}

// Every replication error names the file and line and what was expected.
func TestReplicationErrors(t *testing.T) {
	c2 := "cluster db1:master db2:replica\n"
	w := "workload writes=10/s\n"
	for _, c := range []struct{ in, want string }{
		{"cluster db1:master db2:replica:\n", `t.timeline:1: node "db2": precedence "": want a whole number from 1 to 1000000 (the lowest wins a tie)`},
		{"cluster db1:master db2:replica:0\n", `t.timeline:1: node "db2": precedence "0"`},
		{"cluster db1:master db2:replica:first\n", `t.timeline:1: node "db2": precedence "first"`},
		{"cluster db1:master db2:primary:2\n", `t.timeline:1: node "db2": role "primary": want master, replica or witness`},
		{"cluster db1:master db2:replica w1:witness:2\n", `t.timeline:1: node "w1": a witness has no database, so no precedence`},
		{"cluster db1:master db2:replica w1:witness\n00:00:01 w1 lag 10s\n", `t.timeline:2: w1 is a witness: a manager with no database; want "w1 manager down|up" or "w1 host down|up"`},
		{c2 + "workload\n", `t.timeline:2: workload without writes=: want "workload writes=N/s|N/DURATION [deadline=DURATION] [near NODE]"`},
		{c2 + "workload writes=0/s\n", `t.timeline:2: workload writes=0/s: want a positive number of writes per time, such as 200/s or 5/100ms`},
		{c2 + "workload writes=10\n", `t.timeline:2: workload writes=10: want a positive number of writes per time`},
		{c2 + "workload writes=10/fortnight\n", `t.timeline:2: workload writes=10/fortnight: "1fortnight" is not a positive period of at most 24h0m0s, such as s or 100ms`},
		{c2 + "workload writes=10/48h\n", `t.timeline:2: workload writes=10/48h: "48h" is not a positive period`},
		{c2 + "workload writes=2000000/s\n", `t.timeline:2: workload writes=2000000/s: more than 1000000 writes a second`},
		{c2 + "workload writes=2/1us\n", `t.timeline:2: workload writes=2/1us: more than 1000000 writes a second`},
		{c2 + "workload writes=10/s deadline=0s\n", `t.timeline:2: workload deadline: "0s" is not a positive duration such as 2s`},
		{c2 + "workload writes=10/s deadline=25h\n", `t.timeline:2: workload deadline: 25h is longer than 24h0m0s`},
		{c2 + "workload writes=10/s near\n", `t.timeline:2: workload: near needs a node`},
		{c2 + "workload writes=10/s near db9\n", `t.timeline:2: unknown node "db9": the cluster has db1, db2`},
		{c2 + "workload writes=10/s rate=3\n", `t.timeline:2: workload setting "rate=3": want "workload writes=N/s|N/DURATION`},
		{c2 + w + w, `t.timeline:3: "workload" is already set at line 2`},
		{c2 + "00:00:01 db1 freeze\n" + w, `t.timeline:3: "workload" must come before the first event`},
		{c2 + "replication\n", `t.timeline:2: replication takes a mode: want "replication async|semisync [timeout=DURATION] [lag-cap=DURATION] [apply-wait=DURATION]"`},
		{c2 + "replication sync\n", `t.timeline:2: replication mode "sync": want async or semisync`},
		{c2 + "replication semisync wait=3s\n", `t.timeline:2: replication setting "wait=3s": want "replication async|semisync`},
		{c2 + "replication semisync timeout\n", `t.timeline:2: replication setting "timeout": want`},
		{c2 + "replication semisync timeout=-1s\n", `t.timeline:2: replication timeout: "-1s" is not a positive duration such as 2s`},
		{c2 + "replication async lag-cap=0s\n", `t.timeline:2: replication lag-cap: "0s" is not a positive duration`},
		{c2 + "replication async apply-wait=30h\n", `t.timeline:2: replication apply-wait: 30h is longer than 24h0m0s`},
		{c2 + "00:00:01 db2 lag\n", `t.timeline:2: lag takes one duration: "db2 lag 5s"`},
		{c2 + "00:00:01 db2 lag 5s 6s\n", `t.timeline:2: lag takes one duration: "db2 lag 5s"`},
		{c2 + "00:00:01 db2 apply-lag soon\n", `t.timeline:2: apply-lag: "soon" is not a duration such as 5s (0s for none)`},
		{c2 + "00:00:01 db2 lag -5s\n", `t.timeline:2: lag: "-5s" is not a duration such as 5s (0s for none)`},
		{c2 + "00:00:01 db2 lag 25h\n", `t.timeline:2: lag: 25h is longer than 24h0m0s`},
		{c2 + "00:00:01 db2 link down\n", `t.timeline:2: want "db2 link freeze" or "db2 link heal" (its replication stream)`},
		{c2 + "00:00:01 db2 replicator pause\n", `t.timeline:2: want "db2 replicator stop" or "db2 replicator start"`},
		{c2 + "00:00:02 db2 freeze\n00:00:01 db2 link freeze\n", `t.timeline:3: events must not go back in time: 00:00:01 is before the previous event at 00:00:02`},
		{c2 + "00:00:01 db2 link freeze\n00:00:00 db2 freeze\n", `t.timeline:3: events must not go back in time`},
		{c2 + "00:00:02 cluster end\n00:00:03 db2 link freeze\n", `t.timeline:3: event after "cluster end"`},
		{c2 + "expect outage\n", `t.timeline:2: outage: want "expect outage at most DURATION"`},
		{c2 + "expect unavailable at least 3s\n", `t.timeline:2: unavailable: want "expect unavailable at most DURATION"`},
		{c2 + "expect outage at most long\n", `t.timeline:2: outage: "long" is not a duration such as 90s; want "expect outage at most DURATION"`},
		{c2 + "expect lost writes\n", `t.timeline:2: lost writes: want "expect lost writes N" or "expect lost writes at most N"`},
		{c2 + "expect lost writes none\n", `t.timeline:2: lost writes: "none" is not a count of writes`},
		{c2 + "expect lost writes at most -1\n", `t.timeline:2: lost writes: "-1" is not a count of writes`},
		{c2 + "expect outage at most 90s\n", `t.timeline:2: "expect outage at most 90s" needs a workload: add "workload writes=N/s" before the first event`},
		{c2 + "replication semisync\nexpect lost writes 0\n", `t.timeline:3: "expect lost writes 0" needs a workload`},
	} {
		_, err := timeline.Parse("t.timeline", []byte(c.in))
		var pe *fileline.Error
		if err == nil || !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("timeline.Parse(%q):\n got  %v\n want %s", c.in, err, c.want)
		}
	}
}

// FuzzParseReplication: no input with replication statements panics, in the parser or in a
// replay of what parses (the model's panics are bugs in how the replay drives it). A semisync
// replay is only run over a span of at most two days: a replica whose stream lags more than
// the timeout makes the master fall back and return once a lag, and each is a decision the
// replay tells, so its cost follows that span (a day at a lag of 11s: 17,000 decisions).
func FuzzParseReplication(f *testing.F) {
	f.Add([]byte("cluster db1:master db2:replica db3:replica\nworkload writes=100/s\n00:00:00 db3 lag 5s\n00:00:40 db2 link freeze\n00:01:00 db1 refuse\nexpect lost writes at most 500\n"))
	f.Add([]byte("cluster a:master b:replica:2 c:replica:1\nreplication semisync timeout=1s\nworkload writes=7/3s deadline=1s\n+1s b replicator stop\n+1s c link freeze\n+5s a stall\n+1m a heal\n+1s a recover\nexpect outage at most 1m\n"))
	f.Add([]byte("cluster a:master b:replica\npolicy manual\nworkload writes=1000/s deadline=10ms\nreplication async apply-wait=1s\n00:00:01 b apply-lag 10s\n00:00:30 a refuse\n00:01:00 a recover\n00:02:00 a heal\n00:02:00 b refuse\nexpect unavailable at most 1s\n"))
	f.Add([]byte("cluster a:master b:replica c:replica\nworkload writes=1/24h\nstart 2000-01-01T00:00:00Z\n2200-01-01T00:00:00Z a freeze\n2200-01-01T00:10:00Z b lag 24h\n2289-01-01T00:00:00Z cluster end\n"))
	f.Add([]byte("cluster a:master b:replica\nworkload writes=1000000/s\nreplication semisync\n00:00:01 b link freeze\n00:00:30 a refuse\n00:00:31 a recover\n00:00:31 b recover\n+1m b link heal\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tl, err := timeline.Parse("fuzz.timeline", data)
		if err != nil {
			var pe *fileline.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error without a file: %v", err)
			}
			return
		}
		if tl.Repl != nil && tl.Repl.Config.Mode == repl.Semisync && tl.End > 48*time.Hour {
			return
		}
		m := statemap.Default()
		xs := expect.NewSet(tl, m)
		sim.Replay(tl, m, report.New(tl, m), xs)
		xs.Results()
	})
}
