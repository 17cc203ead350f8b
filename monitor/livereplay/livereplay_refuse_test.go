package livereplay

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/timeline"
)

// WireOnly passes a workload and replication statements (LiveReplication plays them) and still
// refuses the managers' group; LiveReplay refuses the workload, naming its line, before it
// reaches any server; ReplicationActions turns the statements into actions, refusing a link
// with no links' proxy and an apply lag in fractions of a second.
func TestLiveRefusals(t *testing.T) {
	parse := func(src string) *timeline.Timeline {
		tl, err := timeline.Parse("t.timeline", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return tl
	}
	w := parse("cluster db1:master db2:replica\nworkload writes=10/s\n00:00:01 db2 replicator stop\n00:00:02 db2 link freeze\n00:00:03 db2 lag 2s\n00:00:04 db2 apply-lag 3s\n00:00:10 cluster end\n")
	if err := WireOnly(w); err != nil {
		t.Errorf("WireOnly(a workload): %v", err)
	}
	if line := ReplLine(w); line != 2 {
		t.Errorf("ReplLine = %d, want 2 (the workload)", line)
	}
	_, err := LiveReplay(context.Background(), LiveConfig{Timeline: w, DSN: "probe@tcp(127.0.0.1:1)/"})
	if err == nil || err.Error() != "t.timeline:2: a workload and replication statements need a real server for each node: LiveReplication plays them, LiveReplay does not" {
		t.Errorf("LiveReplay(a workload) = %v", err)
	}
	g := parse("cluster db1:master db2:replica w1:witness\n00:00:05 partition db1 | db2 w1\n00:00:20 cluster end\n")
	if err := WireOnly(g); err == nil || !strings.HasPrefix(err.Error(), "t.timeline:1: witnesses") {
		t.Errorf("WireOnly(a group) = %v", err)
	}
	acts, err := ReplicationActions(w, true)
	if err != nil {
		t.Fatal(err)
	}
	want := []ReplicationAction{{At: time.Second, Node: 1, Kind: ReplicatorStop}, {At: 2 * time.Second, Node: 1, Kind: LinkFreeze},
		{At: 3 * time.Second, Node: 1, Kind: StreamLag, Lag: 2 * time.Second}, {At: 4 * time.Second, Node: 1, Kind: ApplyLag, Lag: 3 * time.Second}}
	if len(acts) != len(want) {
		t.Fatalf("ReplicationActions = %+v", acts)
	}
	for i := range want {
		if a := acts[i]; a.At != want[i].At || a.Node != want[i].Node || a.Kind != want[i].Kind || a.Lag != want[i].Lag || a.Input == nil {
			t.Errorf("action %d = %+v, want %+v with its input", i, a, want[i])
		}
	}
	if _, err := ReplicationActions(w, false); err == nil || !strings.HasPrefix(err.Error(), "t.timeline:4: a replication link or lag") {
		t.Errorf("ReplicationActions with no links = %v", err)
	}
}
