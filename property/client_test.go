package property_test

import (
	"strings"
	"testing"

	"github.com/failsim/failsim/timeline"
)

// The client's properties on a timeline with a workload: a lagging replica promoted loses
// writes and the failover leaves a short outage.
func TestClientProperties(t *testing.T) {
	text := "cluster db1:master db2:replica\nworkload writes=10/s\n00:00:00 db2 lag 5s\n00:01:01 db1 refuse\n00:02:00 cluster end\n" +
		"expect property no-acked-write-lost\nexpect property max-outage=2s\nexpect property max-outage 1s\n"
	want := map[string]string{
		"expect property no-acked-write-lost": "00:01:03: lost 29 acknowledged writes of db1 (positions 582..610) when db2 was promoted",
		"expect property max-outage 1s":       "00:01:01: no write was acknowledged for 2s, until 00:01:03 (20 writes failed): longer than 1s",
	}
	for _, r := range judge(t, text) {
		why, bad := want[r.Text]
		if r.Held == bad || r.Why != why {
			t.Errorf("%s: held %v (%s), want held %v (%s)", r.Text, r.Held, r.Why, !bad, why)
		}
	}
	// A partition: the application, beside the isolated master db1, writes to it until it shuns
	// itself; the merge keeps the majority's copy and loses what db1 acknowledged in the split.
	text = "cluster db1:master db2:replica db3:replica\nworkload writes=10/s\n00:00:05 partition db1 | db2 db3\n00:01:00 partition heal\n00:01:30 cluster end\n" +
		"expect property no-acked-write-lost\nexpect property max-outage=30s\nexpect property max-outage 29s\n"
	want = map[string]string{
		"expect property no-acked-write-lost": "00:01:00: lost 250 acknowledged writes of db1 (positions 51..300) when the sides merged and db2's copy was kept",
		"expect property max-outage 29s":      "00:00:30: no write was acknowledged for 30s, until 00:01:00 (300 writes failed): longer than 29s",
	}
	for _, r := range judge(t, text) {
		why, bad := want[r.Text]
		if r.Held == bad || r.Why != why {
			t.Errorf("%s: held %v (%s), want held %v (%s)", r.Text, r.Held, r.Why, !bad, why)
		}
	}
	// Without a workload they mean nothing: refused.
	_, err := timeline.Parse("t.timeline", []byte("cluster db1:master\nexpect property max-outage=1m\n"))
	if err == nil || !strings.HasPrefix(err.Error(), `t.timeline:2: "expect property max-outage=1m" needs a workload`) {
		t.Errorf("no workload: %v", err)
	}
}
