package shadow

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
)

// Decision is one decision about a node's service, as a shadow and the live engine are compared
// on: a node failed, a master failed over, or a master failed with no replica promoted.
type Decision struct {
	// At is the virtual time since the start at which it was decided.
	At time.Duration
	// Kind is fence.KindNodeFailed, fence.KindFailover or fence.KindNoCandidate.
	Kind fence.Kind
	// Node is the node failed (for a failover, the master), by its index in cluster order.
	Node int
	// To is the replica a failover promoted; -1 for the other kinds.
	To int
	// Condition is the probe condition whose alarm expired (host_is_down for a host failure).
	Condition statemap.Condition
	// Host says the decision came of a host failure (the node's host did not answer), not of
	// an alarm.
	Host bool
	// Ticks and Threshold are the expired alarm's count of ticks and its threshold, when the
	// batch that decided it told the expiry; 0 and 0 otherwise.
	Ticks, Threshold int
}

// Of returns the decision ev is, and whether it is one of those compared: a *fence.NodeFailed,
// *fence.Failover or *fence.NoCandidate. The Decision is a copy: it stays valid after ev is
// reused.
func Of(ev act.Event) (Decision, bool) {
	switch ev := ev.(type) {
	case *fence.NodeFailed:
		return Decision{At: ev.At, Kind: fence.KindNodeFailed, Node: ev.Node, To: -1, Condition: ev.Condition, Host: ev.Host}, true
	case *fence.Failover:
		return Decision{At: ev.At, Kind: fence.KindFailover, Node: ev.Node, To: ev.To, Condition: ev.Condition, Host: ev.Host}, true
	case *fence.NoCandidate:
		return Decision{At: ev.At, Kind: fence.KindNoCandidate, Node: ev.Node, To: -1, Condition: ev.Condition, Host: ev.Host}, true
	}
	return Decision{}, false
}

// same reports whether a and b are the same decision: kind, node, replica promoted, time.
func same(a, b Decision) bool {
	return a.At == b.At && a.Kind == b.Kind && a.Node == b.Node && a.To == b.To
}

// Cause says why the decision was made, in words: the condition, and the alarm's ticks when
// known ("query_results_timeout for 8 ticks, threshold 8"), or a host failure.
func (d Decision) Cause() string {
	switch {
	case d.Host:
		return "host failure: its host did not answer the coordinator's ping"
	case d.Threshold > 0:
		return fmt.Sprintf("%s for %d ticks, threshold %d", d.Condition, d.Ticks, d.Threshold)
	}
	return d.Condition.String()
}

// what says what the decision did, to node names: "fail master db1 over to db2".
func (d Decision) what(names []string) string {
	switch d.Kind {
	case fence.KindFailover:
		return fmt.Sprintf("failed master %s over to %s", names[d.Node], names[d.To])
	case fence.KindNoCandidate:
		return fmt.Sprintf("failed master %s with no replica to promote", names[d.Node])
	}
	return fmt.Sprintf("failed %s", names[d.Node])
}
