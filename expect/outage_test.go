package expect_test

import (
	"testing"

	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// The client's expectations: exact and bounded lost writes, outage and unavailable bounds, each
// judged on the summary the replay tells at its end.
func TestExpectClient(t *testing.T) {
	text := "cluster db1:master db2:replica db3:replica\nworkload writes=10/s\n00:00:00 db3 lag 5s\n00:00:10 db2 link freeze\n" +
		"00:01:01 db1 refuse\n00:02:00 cluster end\n" +
		"expect lost writes 29\nexpect lost writes 28\nexpect lost writes at most 29\nexpect lost writes at most 30\nexpect lost writes at most 28\n" +
		"expect outage at most 2s\nexpect outage at most 1999ms\nexpect unavailable at most 2s\nexpect unavailable at most 1s\n"
	want := map[string]string{
		"expect lost writes 28":         "29 acknowledged writes were lost; at 00:01:03 lost 29 acknowledged writes (positions 582..610)",
		"expect lost writes at most 28": "29 acknowledged writes were lost; at 00:01:03 lost 29 acknowledged writes (positions 582..610)",
		"expect outage at most 1999ms":  "the longest outage was 2s, from 00:01:01 to 00:01:03",
		"expect unavailable at most 1s": "the writes were unavailable for 2s (20 failed)",
	}
	for _, r := range judge(t, text) {
		why, bad := want[r.Text]
		if r.Held == bad || r.Why != why {
			t.Errorf("%s: held %v (%s), want held %v (%s)", r.Text, r.Held, r.Why, !bad, why)
		}
	}
}

// A replay that never reached its end (stopped) told no summary: the client's expectations do
// not hold.
func TestExpectClientStopped(t *testing.T) {
	tl, err := timeline.Parse("t.timeline", []byte("cluster db1:master\nworkload writes=1/s\n00:10:00 cluster end\nexpect lost writes 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := statemap.Default()
	r := expect.NewSet(tl, m).Results()
	if len(r) != 1 || r[0].Held || r[0].Why != "the replay ended with no summary of the workload" {
		t.Errorf("stopped replay: %+v", r)
	}
}
