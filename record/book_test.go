package record

import (
	"testing"
	"time"

	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

func testHeader() Header {
	return Header{
		Nodes:    []fence.NodeConfig{{Name: "db1", Role: fence.Master}, {Name: "db2", Role: fence.Replica}},
		Interval: 3 * time.Second, Timeout: 5 * time.Second,
		Start: time.Date(2026, 12, 6, 21, 0, 0, 0, time.UTC),
	}
}

// TestBookOutcomes: only changes are events, each at its probe's start, in time order though
// told in the order they count.
func TestBookOutcomes(t *testing.T) {
	b := NewBook(testHeader(), "")
	s := time.Second
	ms := time.Millisecond
	told := []struct {
		start, end time.Duration
		node       int
		c          statemap.Condition
		event      bool
	}{
		{0, 0, 0, statemap.OK, false},                            // a timeline's probes yield ok until told otherwise
		{0, 25 * ms, 1, statemap.OK, true},                       // the first probe's time shows: its state changes when it ends
		{3 * s, 3 * s, 1, statemap.OK, false},                    // ok after ok, within the interval: no matter when
		{6 * s, 6 * s, 1, statemap.SocketIOError, true},          // counts at 6s
		{3 * s, 8 * s, 0, statemap.LoginResponseTimeout, true},   // started before, counts at 8s
		{9 * s, 9 * s, 1, statemap.SocketIOError, false},         // no change
		{8 * s, 13 * s, 0, statemap.LoginResponseTimeout, false}, // no change
		{12 * s, 12 * s, 1, statemap.OK, true},                   // the first ok after a bad probe
		{13 * s, 13*s + 499*ms, 0, statemap.OK, true},            // ... that took 499ms
		{15 * s, 19 * s, 1, statemap.OK, true},                   // an ok that outlasted the interval
		{19 * s, 19 * s, 1, statemap.OK, true},                   // ... and then one at once
	}
	for _, x := range told {
		if got := b.Outcome(x.start, x.end, x.node, x.c); got != x.event {
			t.Errorf("Outcome(%v, %v, %d, %v) = %v, want %v", x.start, x.end, x.node, x.c, got, x.event)
		}
	}
	got := string(testHeader().Text("000000-x.timeline", b.Open(), 20*s))
	want := `cluster db1:master db2:replica
checker interval=3s timeout=5s
start 2026-12-06T21:00:00Z

21:00:00 db2 slow 25ms
21:00:03 db1 probe login_response_timeout
21:00:06 db2 probe socket_io_error
21:00:12 db2 probe ok
21:00:13 db1 slow 499ms
21:00:15 db2 slow 4s
21:00:19 db2 probe ok
21:00:20 cluster end

`
	if got != want {
		t.Errorf("text:\n%s\nwant:\n%s", got, want)
	}
}

// TestBookDecisions: the decisions become expectations at their instant, and the cut pins each
// node's state and role.
func TestBookDecisions(t *testing.T) {
	b := NewBook(testHeader(), "statemap-abc.properties")
	s := time.Second
	b.Decide(&fence.StateChanged{At: 3 * s, Node: 0, To: statemap.Timeout}) // no expectation of its own
	b.Decide(&fence.Failover{At: 80 * s, Node: 0, To: 1, Condition: statemap.LoginResponseTimeout})
	b.Decide(&fence.NodeFailed{At: 90 * s, Node: 1})
	b.Decide(&fence.NoCandidate{At: 100 * s, Node: 1})
	nodes := []fence.NodeView{
		{Name: "db1", Role: fence.Master, Failed: true, State: statemap.Timeout},
		{Name: "db2", Role: fence.Master, State: statemap.Online},
	}
	seg := b.Cut(100*s, nodes, "statemap-def.properties")
	got := string(testHeader().Text("000000-x.timeline", seg, 100*s))
	want := `cluster db1:master db2:replica
checker interval=3s timeout=5s
start 2026-12-06T21:00:00Z
statemap statemap-abc.properties

21:01:40 cluster end

expect failover of db1 to db2 after 21:01:20 by 21:01:20
expect db2 failed after 21:01:30 by 21:01:30
expect no master after 21:01:40 by 21:01:40
expect db2 failed after 21:01:40 by 21:01:40
expect db1 timeout at 21:01:40
expect db1 failed at 21:01:40
expect db2 online at 21:01:40
expect db2 master at 21:01:40
`
	if got != want {
		t.Errorf("text:\n%s\nwant:\n%s", got, want)
	}
	next := b.Open()
	if next.From != 100*s || next.Statemap != "statemap-def.properties" || len(next.Events) != 0 || len(next.Expects) != 0 {
		t.Errorf("the next segment: %+v, want an empty one from 1m40s under statemap-def.properties", next)
	}
	// The outcomes carry over the cut: the book knows what the replay's probes yield.
	if b.Outcome(103*s, 103*s, 0, statemap.OK) != false {
		t.Error("an ok probe after the cut is a change, want none: the node was ok before")
	}
}

// TestBookParses: what the book writes, the parser reads back as the same events and
// expectations.
func TestBookParses(t *testing.T) {
	b := NewBook(testHeader(), "")
	b.Outcome(1500*time.Millisecond, 6500*time.Millisecond, 0, statemap.QueryResultsTimeout)
	b.Outcome(7*time.Second+123456789, 7*time.Second+123456789, 0, statemap.OK) // not a whole millisecond: "+DURATION"
	b.Decide(&fence.Failover{At: 90 * time.Second, Node: 0, To: 1})
	seg := b.Cut(95*time.Second+1, []fence.NodeView{{State: statemap.Online}, {State: statemap.Online, Role: fence.Master}}, "")
	data := testHeader().Text("x.timeline", seg, 95*time.Second+1)
	tl, err := timeline.Parse("x.timeline", data)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, data)
	}
	if len(tl.Events) != 3 || tl.Events[0].At != 1500*time.Millisecond || tl.Events[1].At != 7*time.Second+123456789 {
		t.Errorf("events read back: %+v\n%s", tl.Events, data)
	}
	if tl.End != 95*time.Second+1 || len(tl.Expects) != 5 || tl.Expects[4].At != 95*time.Second+1 {
		t.Errorf("end %v, expects %+v\n%s", tl.End, tl.Expects, data)
	}
}
