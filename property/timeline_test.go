package property_test

import (
	"strings"
	"testing"

	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// judge replays a timeline text under the defaults and returns each expectation's verdict.
func judge(t *testing.T, text string) []expect.Result {
	t.Helper()
	tl, err := timeline.Parse("t.timeline", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	m := statemap.Default()
	xs := expect.NewSet(tl, m)
	sim.Replay(tl, m, xs)
	return xs.Results()
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

// TestDeadlineBeforeFirstAlarm: a fault's deadline comes from the statemap's rule for its
// condition, known from the start, not from the first alarm of that condition any node
// raises. A freeze changed after a 1 s deadline, before its first probe ended, was fenced
// late whether or not another node had frozen before. (When the rule was learned from the
// alarms, the first timeline held and the second did not.)
func TestDeadlineBeforeFirstAlarm(t *testing.T) {
	const late = "00:01:01: master db1 has had fault freeze (login_response_timeout) since 00:01:00 and was not fenced by 00:01:01, 1s after it"
	for _, before := range []string{"", "00:00:10 db2 freeze\n00:00:30 db2 heal\n"} {
		text := "cluster db1:master db2:replica\n" + before + "00:01:00 db1 freeze\n00:01:03 db1 heal\n00:02:00 cluster end\nexpect property detects-death-within 1s\n"
		if r := judge(t, text); r[0].Held || r[0].Why != late {
			t.Errorf("%q: held %v (%s), want %s", before, r[0].Held, r[0].Why, late)
		}
	}
}
