package htmlreport_test

import (
	"strings"
	"testing"
)

// TestReplicationRow: lagging-replica's lanes show db2's frozen link and db3's late stream, and
// the ranking at the failover on each node's row; partition-master-workload's show the streams
// cut by the partition until the promotion repoints them; a timeline that says nothing of
// replication has no such row.
func TestReplicationRow(t *testing.T) {
	tl, m := load(t, "../testdata/incidents/lagging-replica.timeline")
	page, _ := render(t, tl, m)
	s := string(page.HTML)
	for _, want := range []string{
		`class="rl">replication</text>`,
		`class="rf"><title>db2 from 03:13:47 to 03:30:00: link frozen: stores nothing new, its replicator runs (still a candidate) (03:13:47 db2 link freeze)`,
		`class="rg"><title>db3 from 03:00:00 to 03:30:00: stream 5s late: stores each commit 5s after the master made it`,
		`>1st: stored 84401, lag 4.99s<title>03:14:09 db3 promoted at position 84401`,
		`>2nd: stored 82700, lag 22s<title>`,
		`>not-eligible<title>`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("lagging-replica's page lacks %s", want)
		}
	}
	tl, m = load(t, "../testdata/incidents/partition-master-workload.timeline")
	page, _ = render(t, tl, m)
	for _, want := range []string{
		`class="rf"><title>db2 from 14:02:05 to 14:02:30: stream cut by the partition`,
		`class="rf"><title>db3 from 14:02:05 to 14:02:30: stream cut by the partition`,
	} {
		if !strings.Contains(string(page.HTML), want) {
			t.Errorf("partition-master-workload's page lacks %s", want)
		}
	}
	tl, m = load(t, "../testdata/incidents/ebs-stall.timeline")
	if page, _ := render(t, tl, m); strings.Contains(string(page.HTML), `class="rl">replication</text>`) {
		t.Error("ebs-stall, which says nothing of replication, has a replication row")
	}
}
