package core

import (
	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
)

// Role is what a node is to the replication topology the manager keeps, as its decisions made
// it (docs/engine.md, "Replication and the client's view", rules 57-63).
type Role uint8

const (
	Replica Role = iota // replicates a master (a failed replica too: it replicated all along)
	Writer              // a master that takes the application's writes
	Out                 // a master failed over or failed: out of the topology until recovered
)

// Topology is each node's Role. A simulator's replication model and a live run's promotions
// both follow it, so that a failover repoints the same nodes in both.
type Topology []Role

// NewTopology returns the topology of n nodes whose master is master at the start (-1 for
// none), reusing old's space.
func NewTopology(n, master int, old Topology) Topology {
	t := old[:0]
	for range n {
		t = append(t, Replica)
	}
	if master >= 0 {
		t[master] = Writer
	}
	return t
}

// Writes reports whether node i takes writes: a writer; -1 does not.
func (t Topology) Writes(i int) bool { return i >= 0 && t[i] == Writer }

// Promote is a failover of from to to: from is -1 unless it took writes; the new master is
// to; every other replica that follows it (follows(j): on its side, holding its copy of the
// cluster's state; every one without a partition) is repointed to it, appended to repoint.
// From leaves the topology unless it goes on taking its side's writes (goesOn: a partition's
// other side, where the merge decides).
func (t Topology) Promote(from, to int, goesOn bool, follows func(j int) bool, repoint []int) (int, []int) {
	if from >= 0 && t[from] != Writer {
		from = -1
	}
	for j, x := range t {
		if x == Replica && j != to && (follows == nil || follows(j)) {
			repoint = append(repoint, j)
		}
	}
	t[to] = Writer
	if from >= 0 && !goesOn {
		t[from] = Out
	}
	return from, repoint
}

// Fail is master node failed with none promoted: it reports whether it took writes (it leaves
// the topology).
func (t Topology) Fail(node int) bool {
	if t[node] != Writer {
		return false
	}
	t[node] = Out
	return true
}

// Recover is node returned to service as role: a node out of the topology comes back as a
// writer (a master) or a replica; it reports whether it was out.
func (t Topology) Recover(node int, role fence.Role) bool {
	if t[node] != Out {
		return false
	}
	t[node] = Replica
	if role == fence.Master {
		t[node] = Writer
	}
	return true
}

// Decided follows one decision of a run with no partition (the live runtime's): a failover,
// a master failed or shunned with none promoted, a recovery. For a failover it returns whom
// to repoint, appended to repoint; ok is false for any other event.
func (t Topology) Decided(ev act.Event, repoint []int) (out []int, ok bool) {
	switch ev := ev.(type) {
	case *fence.Failover:
		_, repoint = t.Promote(ev.Node, ev.To, false, nil, repoint)
		return repoint, true
	case *fence.NoCandidate:
		t.Fail(ev.Node)
	case *fence.NodeFailed:
		if ev.Role == fence.Master {
			t.Fail(ev.Node)
		}
	case *fence.FailsafeShunned:
		if ev.Role == fence.Master {
			t.Fail(ev.Node)
		}
	case *fence.NodeRecovered:
		t.Recover(ev.Node, ev.Role)
	}
	return repoint, false
}
