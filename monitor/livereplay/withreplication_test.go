package livereplay

import (
	"testing"
	"time"

	"github.com/failsim/failsim/act"
)

// TestWithReplication: a live replay's replication actions join the script as the driver's
// act.Replicate actions, in time order, the script's own first among equal times, each
// carrying its node and statement.
func TestWithReplication(t *testing.T) {
	s := time.Second
	script := []act.Action{{At: 0, Kind: act.SetFault, Node: 0}, {At: 2 * s, Kind: act.SetFault, Node: 1}, {At: 5 * s, Kind: act.End, Node: -1}}
	rs := []ReplicationAction{{At: s, Node: 2, Kind: ReplicatorStop}, {At: 2 * s, Node: 1, Kind: LinkFreeze}, {At: 9 * s, Node: 2, Kind: ReplicatorStart}}
	got := withReplication(script, rs)
	want := []struct {
		at   time.Duration
		kind act.Kind
		node int
	}{{0, act.SetFault, 0}, {s, act.Replicate, 2}, {2 * s, act.SetFault, 1}, {2 * s, act.Replicate, 1}, {5 * s, act.End, -1}, {9 * s, act.Replicate, 2}}
	if len(got) != len(want) {
		t.Fatalf("%d actions, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if g := got[i]; g.At != w.at || g.Kind != w.kind || g.Node != w.node {
			t.Errorf("action %d is %v %v node %d, want %v %v node %d", i, g.At, g.Kind, g.Node, w.at, w.kind, w.node)
		}
	}
	if len(withReplication(script, nil)) != len(script) {
		t.Error("no replication action changed the script")
	}
}
