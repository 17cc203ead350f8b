package expect_test

import (
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

// A timeline with no expectation has no verdict to give: an empty list, which the JSON summary
// writes as [], not null.
func TestNoExpectations(t *testing.T) {
	tl, err := timeline.Parse("t.timeline", []byte("cluster db1:master\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r := expect.NewSet(tl, statemap.Default()).Results(); r == nil || len(r) != 0 {
		t.Errorf("Results() = %#v, want an empty list", r)
	}
	if r := (&expect.Set{}).Results(); r == nil || len(r) != 0 {
		t.Errorf("the zero Set's Results() = %#v, want an empty list", r)
	}
}

// expect NODE shunned takes both meanings of the word: a master failed (over, with no
// candidate, or under manual policy) is shunned, as is a node its own manager shuns
// (FAILSAFE-SHUN); a failed replica is not.
func TestExpectShunnedEitherWay(t *testing.T) {
	text := "cluster db1:master db2:replica db3:replica\n00:00:30 db3 refuse\n00:01:00 db1 refuse\n00:02:00 cluster end\n" +
		"expect db1 shunned after 00:01:00 by 00:01:00\nexpect db1 shunned by 00:00:59\nexpect db3 shunned\nexpect db3 failed after 00:00:30 by 00:00:30\n"
	want := map[string]string{
		"expect db1 shunned by 00:00:59": "db1 was shunned at 00:01:00 (failed over), outside the window",
		"expect db3 shunned":             "db3 was never shunned",
	}
	for _, r := range judge(t, text) {
		why, bad := want[r.Text]
		if r.Held == bad || r.Why != why {
			t.Errorf("%s: held %v (%s), want held %v (%s)", r.Text, r.Held, r.Why, !bad, why)
		}
	}
	manual := "cluster db1:master db2:replica\npolicy manual\n00:01:00 db1 refuse\n00:02:00 cluster end\nexpect db1 shunned after 00:01:00 by 00:01:00\n"
	for _, r := range judge(t, manual) {
		if !r.Held {
			t.Errorf("manual: %s: %s", r.Text, r.Why)
		}
	}
	alone := "cluster db1:master db2:replica db3:replica\n00:00:05 db2 manager down\n00:00:05 db3 manager down\n00:01:00 cluster end\n" +
		"expect db1 shunned after 00:00:30 by 00:00:30\nexpect db1 shunned after 00:00:40\n"
	for _, r := range judge(t, alone) {
		if r.Held != (r.Text == "expect db1 shunned after 00:00:30 by 00:00:30") {
			t.Errorf("alone: %s: held %v (%s)", r.Text, r.Held, r.Why)
		}
		if !r.Held && r.Why != "db1 was shunned at 00:00:30 (FAILSAFE-SHUN), outside the window" {
			t.Errorf("alone: %s: %s", r.Text, r.Why)
		}
	}
}
