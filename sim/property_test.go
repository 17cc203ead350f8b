package sim_test

import (
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
)

func TestPropertyErrors(t *testing.T) {
	c2 := "cluster db1:master db2:replica\n"
	for _, c := range []struct{ in, want string }{
		{c2 + "expect property\n", "t.timeline:2: expect property: which? want one of no-false-failover, detects-death-within, single-master, no-fence-in-maintenance, only-coordinator-fences, self-heal-resets"},
		{c2 + "expect property split-brain\n", `t.timeline:2: unknown property "split-brain": want one of no-false-failover, detects-death-within`},
		{c2 + "expect property single-master now\n", `t.timeline:2: single-master takes no argument, got "now"`},
		{c2 + "expect property detects-death-within soon\n", `t.timeline:2: detects-death-within: "soon" is not a positive duration such as 90s or 2m`},
		{c2 + "expect property detects-death-within 1m 2m\n", `t.timeline:2: detects-death-within takes at most one duration, got "1m 2m"`},
		{c2 + "expect property detects-death-within=1m 2m\n", `t.timeline:2: detects-death-within takes at most one duration, got "1m 2m"`},
		{c2 + "expect property detects-death-within=soon\n", `t.timeline:2: detects-death-within: "soon" is not a positive duration such as 90s or 2m`},
		{c2 + "expect property single-master=3\n", `t.timeline:2: single-master takes no argument, got "3"`},
	} {
		_, err := sim.Parse("t.timeline", []byte(c.in))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %s", c.in, err, c.want)
		}
	}
	if _, err := sim.NewPropertySet(&sim.Timeline{}, []string{"single-master"}, []string{"single-master"}); err == nil || err.Error() != "property single-master is named twice" {
		t.Errorf("a property named twice: %v", err)
	}
}

// judge replays a timeline text under the defaults and returns each expectation's verdict.
func judge(t *testing.T, text string) []sim.ExpectResult {
	t.Helper()
	tl, err := sim.Parse("t.timeline", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	var obs []sim.Observer
	for _, x := range tl.Expects {
		obs = append(obs, x)
	}
	sim.Replay(tl, statemap.Default(), obs...)
	return sim.Judge(tl.Expects)
}

func TestPropertiesOnTimelines(t *testing.T) {
	all := "expect property no-false-failover\nexpect property detects-death-within\nexpect property detects-death-within 30s\n" +
		"expect property single-master\nexpect property no-fence-in-maintenance\nexpect property only-coordinator-fences\nexpect property self-heal-resets\n"
	for _, c := range []struct {
		name, events string
		failed       map[string]string // expect text -> why
	}{
		{"quiet", "00:10:00 cluster end\n", nil},
		{"freeze on the master: fenced at 80 s, within the promise of 90 s, not within 30 s; a true fence",
			"00:01:00 db1 freeze\n00:05:00 cluster end\n", map[string]string{
				"expect property detects-death-within 30s": "00:01:30: master db1 has had fault freeze (login_response_timeout) since 00:01:00 and was not fenced by 00:01:30, 30s after it",
			}},
		{"a freeze turned stall is fenced while the database is alive: a false fence",
			"00:01:00 db1 freeze\n00:02:00 db1 stall\n00:05:00 cluster end\n", map[string]string{
				"expect property no-false-failover":        "00:02:20: master db1 was fenced (failover, login_response_timeout) while its database was alive (fault stall)",
				"expect property detects-death-within 30s": "00:01:30: master db1 has had fault freeze (login_response_timeout) since 00:01:00 and was not fenced by 00:01:30, 30s after it",
			}},
		{"turned slow at the instant of the fence: alive (the fault at that moment decides)",
			"00:01:00 db1 freeze\n00:02:20 db1 slow 2s\n00:05:00 cluster end\n", map[string]string{
				"expect property no-false-failover":        "00:02:20: master db1 was fenced (failover, login_response_timeout) while its database was alive (fault slow 2s)",
				"expect property detects-death-within 30s": "00:01:30: master db1 has had fault freeze (login_response_timeout) since 00:01:00 and was not fenced by 00:01:30, 30s after it",
			}},
		{"a forced dead condition is death; the host down too",
			"00:01:00 db1 probe socket_io_error\n00:01:30 db1 recover\n00:01:30 db2 hostdown\n00:05:00 cluster end\n", nil},
		{"on a benign trace every fence is false, even of a dead database",
			"family benign\n00:01:00 db1 refuse\n00:05:00 cluster end\n", map[string]string{
				"expect property no-false-failover": "00:01:00: master db1 was fenced (failover, socket_io_error) on a trace with no fatal fault",
			}},
		{"a fatal trace is judged by its faults",
			"family fatal\n00:01:00 db1 refuse\n00:05:00 cluster end\n", nil},
		{"freeze healed before the deadline is not judged", "00:01:00 db1 freeze\n00:01:25 db1 heal\n00:05:00 cluster end\n", nil},
		{"a stall never fences: not a death", "00:01:00 db1 stall\n00:30:00 cluster end\n", nil},
		{"manual policy is not judged for detection; the master is fenced, truly",
			"00:00:30 cluster policy manual\n00:01:00 db1 refuse\n00:05:00 cluster end\n", nil},
		{"a master failed under manual policy while alive is a false fence",
			"00:00:30 cluster policy manual\n00:01:00 db1 freeze\n00:02:00 db1 error 1040\n00:05:00 cluster end\n", map[string]string{
				"expect property no-false-failover": "00:02:20: master db1 was fenced (failed, login_response_timeout) while its database was alive (fault error 1040)",
			}},
		{"the master's manager down is not judged", "00:00:30 db1 manager down\n00:01:00 db1 freeze\n00:05:00 cluster end\n", nil},
		{"maintenance, managers, recovers: the safety properties hold",
			"00:00:30 cluster policy maintenance\n00:01:00 db2 refuse\n00:02:00 cluster policy automatic\n00:02:30 db1 manager down\n00:02:40 db2 manager down\n" +
				"00:03:00 db2 manager up\n00:03:10 db2 recover\n00:03:20 db2 heal\n00:03:30 db1 manager up\n00:05:00 cluster end\n", nil},
	} {
		text := "cluster db1:master db2:replica db3:replica\n" + c.events + all + "expect property detects-death-within=30s\n"
		for _, r := range judge(t, text) {
			want, bad := c.failed[strings.Replace(r.Text, "=", " ", 1)]
			if r.Held == bad || (bad && r.Why != want) {
				t.Errorf("%s: %s: held %v (%s), want held %v (%s)", c.name, r.Text, r.Held, r.Why, !bad, want)
			}
		}
	}
}

// TestPropertyViolations feeds a property events no correct engine emits, to check that each
// says what went wrong.
func TestPropertyViolations(t *testing.T) {
	tl, err := sim.Parse("t.timeline", []byte("cluster db1:master db2:replica\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		evs  []fence.Event
		want string
	}{
		{sim.NoFenceInMaintenance, []fence.Event{&fence.PolicyChanged{At: 5e9, Policy: fence.Maintenance}, &fence.AlarmRaised{At: 6e9, Node: 1, Condition: statemap.SocketIOError}},
			"00:00:06: in maintenance: db2 alarm raised: socket_io_error (threshold 0, action none)"},
		{sim.OnlyCoordinatorFences, []fence.Event{&fence.AlarmExpired{At: 7e9, Node: 1, Condition: statemap.SocketIOError, Coordinator: 1}},
			`00:00:07: db2's socket_io_error alarm was acted on by "db2", but the coordinator is db1`},
		{sim.OnlyCoordinatorFences, []fence.Event{&fence.ManagerDown{Node: 0}, &fence.ManagerDown{Node: 1}, &fence.NodeFailed{At: 8e9, Node: 1, Condition: statemap.SocketIOError}},
			"00:00:08: failed with no manager up: db2 FAILED: replica out of service (socket_io_error)"},
		{sim.NoFalseFailover, []fence.Event{&fence.NoCandidate{At: 9e9, Node: 0, Condition: statemap.NoRouteToHost}},
			"00:00:09: master db1 was fenced (no-candidate, no_route_to_host) while its database was alive (no fault)"},
		{sim.NoFalseFailover, []fence.Event{&sim.FaultSet{At: 9e9, Node: 0, Fault: fault.Fault{Kind: fault.Unreachable}}, &sim.FaultSet{At: 10e9, Node: 0, Fault: fault.Fault{Kind: fault.Slow, Delay: 2 * time.Second}}, &fence.Failover{At: 10e9, Node: 0, Condition: statemap.NoRouteToHost, To: 1}},
			"00:00:10: master db1 was fenced (failover, no_route_to_host) while its database was alive (fault slow 2s)"},
		{"benign " + sim.NoFalseFailover, []fence.Event{&sim.FaultSet{At: 8e9, Node: 0, Fault: fault.Fault{Kind: fault.Refuse}}, &fence.NoCandidate{At: 9e9, Node: 0, Condition: statemap.SocketIOError}},
			"00:00:09: master db1 was fenced (no-candidate, socket_io_error) on a trace with no fatal fault"},
	} {
		tl := tl
		if name, ok := strings.CutPrefix(c.name, "benign "); ok {
			c.name = name
			b := *tl
			b.Family = sim.FamilyBenign
			tl = &b
		}
		p, err := sim.NewProperty(tl, c.name, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range c.evs {
			p.Event(ev)
		}
		held, why := p.Verdict()
		if held || why != c.want || !p.Violated() || p.Name() != c.name {
			t.Errorf("%s: held %v, %q; want %q", c.name, held, why, c.want)
		}
	}
}

// expect no master holds when, at some moment of its window, no master is in service.
func TestExpectNoMaster(t *testing.T) {
	text := "cluster db1:master db2:replica\n00:00:30 db2 refuse\n00:01:00 db1 refuse\n00:02:00 cluster end\n" +
		"expect no master\nexpect no master after 00:01:00 by 00:01:00\nexpect no master after 00:01:30\nexpect no master by 00:00:59\n" +
		"expect no master after 00:00:10 by 00:00:59\nexpect no master after 00:00:10\nexpect no master after 00:02:01\n" +
		"expect no failover\nexpect failover\nexpect db1 failed after 00:01:00 by 00:01:00\n"
	want := map[string]string{
		"expect no master by 00:00:59":                "a master was in service all along until 00:00:59",
		"expect no master after 00:00:10 by 00:00:59": "a master was in service all along from 00:00:10 to 00:00:59",
		"expect no master after 00:02:01":             "the replay ended before the window",
		"expect failover":                             "no failover happened: master db1 failed at 00:01:00 and no replica was eligible",
	}
	for _, r := range judge(t, text) {
		why, bad := want[r.Text]
		if r.Held == bad || r.Why != why {
			t.Errorf("%s: held %v (%s), want held %v (%s)", r.Text, r.Held, r.Why, !bad, why)
		}
	}
	// Under manual policy a failed master leaves no master until the operator's recover.
	manual := "cluster db1:master db2:replica\npolicy manual\n00:01:00 db1 refuse\n00:01:29 db1 heal\n00:01:30 db1 recover\n00:02:00 cluster end\n" +
		"expect no master after 00:01:00 by 00:01:29\nexpect no master after 00:01:30\n"
	for _, r := range judge(t, manual) {
		if r.Held != (r.Text == "expect no master after 00:01:00 by 00:01:29") {
			t.Errorf("manual: %s: held %v (%s)", r.Text, r.Held, r.Why)
		}
	}
}
