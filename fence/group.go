package fence

import (
	"fmt"
	"slices"

	"github.com/failsim/failsim/statemap"
)

// The managers as a group (package group decides it; package cluster tells the engine) give the
// engine these inputs. Until the first SetCoordinators the engine is in single-view mode and
// every decision is exactly what it was before the group existed: one copy of the cluster's
// state, and the coordinator chosen by Config.Coordinator whenever a manager goes down or up.
// From the first SetCoordinators on (group mode) the group says who coordinates for whom, and
// which copy of the cluster's state each manager holds.

// SetCoordinators tells the engine, per node in cluster order, the coordinator of the node's
// manager's view: a node index, or -1 when its view is not primary or its manager is down.
// From then on (group mode): an alarm of node j expires only when j's view has a coordinator
// (for a node whose manager is down, the cluster's coordinator: the first primary view's), who
// acts in its own copy of the cluster's state; a failover promotes only a replica of the
// coordinator's view; a manager going down or up no longer chooses a coordinator; and recover
// is refused for a node whose view is not primary. The cluster's coordinator (Coordinator) is
// the first primary view's, the least index given; a change of it is told (CoordinatorChanged).
// A node whose view gains a coordinator has its waiting alarms expire at once. A coordinator
// whose manager is down, or one out of range, panics.
type SetCoordinators struct {
	Coordinators []int
}

// Fork makes copy Copy of the cluster's state a clone of copy From: the managers of a side
// whose views split from the other holders of From take it along (group.Forked). Copies are
// numbered from 0, the one copy of the start; Copy is new (at most one more than the highest
// so far) or a copy no manager holds any longer.
type Fork struct {
	Copy, From int
}

// MergeCopies makes copy Copy the merge of copies Sources, whose views merged: the copy of
// Sources[Adopted] (package group's choice: group.Adopt), keeping each node's own FAILSAFE-SHUN
// (merge), with every conflict it overwrote told (CopiesMerged).
type MergeCopies struct {
	Copy    int
	Sources []int
	Adopted int
}

// SetCopies tells the engine, per node in cluster order, which copy of the cluster's state its
// manager holds: the one it reads (Node, Writable) and its coordinator changes.
type SetCopies struct {
	CopyOf []int
}

// HostFailed is coordinator Coordinator finding that node Node's host does not answer its ping
// (Node having left its view): Node is failed in the coordinator's copy, a replica out of
// service, a master failed over to a replica of the coordinator's view (decisions with Host
// set, Condition host_is_down).
type HostFailed struct {
	Coordinator, Node int
}

// FailsafeShun is node Node's own manager shunning its datasource after Ticks non-primary
// ticks in a row (FAILSAFE-SHUN): in its own side's copy the node is failed and shunned, and
// only the operator's recover returns it. Already shunned by failsafe: nothing.
type FailsafeShun struct {
	Node  int
	Ticks int
}

func (SetCoordinators) input() {}
func (Fork) input()            {}
func (MergeCopies) input()     {}
func (SetCopies) input()       {}
func (HostFailed) input()      {}
func (FailsafeShun) input()    {}

// coordinatorOf is the coordinator that fences node i's expired alarms: the cluster's outside
// group mode; in group mode that of i's view, or the cluster's (the first primary view's) when
// i's manager is down.
func (e *Engine) coordinatorOf(i int) int {
	if e.coords == nil || !e.up[i] {
		return e.coordinator
	}
	return e.coords[i]
}

// stepCoordinators is SetCoordinators.
func (e *Engine) stepCoordinators(coords []int) {
	if len(coords) != len(e.nodes) {
		panic(fmt.Sprintf("fence: %d coordinators for %d nodes", len(coords), len(e.nodes)))
	}
	if e.coords == nil {
		e.coords = make([]int, len(e.nodes))
	}
	first, anyUp := -1, false
	for i, k := range coords {
		if k != -1 && (k < 0 || k >= len(e.nodes) || !e.up[k]) {
			panic(fmt.Sprintf("fence: node %d's coordinator %d is not a manager that is up", i, k))
		}
		if k >= 0 && (first < 0 || k < first) {
			first = k
		}
		anyUp = anyUp || e.up[i]
	}
	copy(e.coords, coords)
	if first != e.coordinator {
		e.coordinator = first
		emit(e, &e.dec.coordinatorChanged, CoordinatorChanged{At: e.now, Coordinator: first, NoPrimary: first < 0 && anyUp})
	}
	if e.policy == Maintenance {
		return
	}
	for j := range e.nodes {
		if e.coordinatorOf(j) < 0 {
			continue
		}
		for _, a := range e.nodes[j].alarms {
			if a.waiting {
				e.expireDue(j)
				break
			}
		}
	}
}

// copyNumber makes room for copy c.
func (e *Engine) copyNumber(c int) {
	if c < 0 || c > len(e.copies) {
		panic(fmt.Sprintf("fence: copy %d of %d", c, len(e.copies)))
	}
	if c == len(e.copies) {
		e.copies = append(e.copies, nil)
	}
}

// stepFork is Fork.
func (e *Engine) stepFork(c, from int) {
	e.copyNumber(c)
	e.copies[c] = e.copies[from].Clone()
}

// stepMerge is MergeCopies.
func (e *Engine) stepMerge(in MergeCopies) {
	e.copyNumber(in.Copy)
	sides := make([]Cluster, len(in.Sources))
	for k, src := range in.Sources {
		sides[k] = e.copies[src]
	}
	merged, shuns, conflicts := merge(sides, in.Adopted, func(i int) int { return slices.Index(in.Sources, e.copyOf[i]) })
	adopted := in.Sources[in.Adopted]
	if len(shuns) == 0 && in.Copy != adopted {
		merged = merged.Clone()
	}
	for k := range conflicts {
		conflicts[k].Side = in.Sources[conflicts[k].Side]
	}
	e.copies[in.Copy] = merged
	emit(e, &e.dec.copiesMerged, CopiesMerged{At: e.now, Copy: in.Copy, Adopted: adopted, Conflicts: conflicts, KeptShuns: shuns})
}

// stepCopies is SetCopies.
func (e *Engine) stepCopies(copyOf []int) {
	if len(copyOf) != len(e.nodes) {
		panic(fmt.Sprintf("fence: %d copies for %d nodes", len(copyOf), len(e.nodes)))
	}
	for i, c := range copyOf {
		if c < 0 || c >= len(e.copies) || e.copies[c] == nil {
			panic(fmt.Sprintf("fence: node %d holds copy %d, which does not exist", i, c))
		}
	}
	copy(e.copyOf, copyOf)
}

// stepHostFailed is HostFailed.
func (e *Engine) stepHostFailed(coord, i int) {
	if coord < 0 || coord >= len(e.nodes) || !e.up[coord] {
		panic(fmt.Sprintf("fence: host ping by %d, which is not a manager that is up", coord))
	}
	if e.policy == Maintenance {
		return // nothing is fenced in maintenance
	}
	e.fail(i, statemap.HostIsDown, coord, true)
}

// stepFailsafe is FailsafeShun.
func (e *Engine) stepFailsafe(i, ticks int) {
	m := &e.copies[e.copyOf[i]][i]
	if m.Failsafe {
		return
	}
	m.Failed, m.Shunned, m.Failsafe = true, true, true
	emit(e, &e.dec.failsafeShunned, FailsafeShunned{At: e.now, Node: i, Role: m.Role, Ticks: ticks})
}

// Writable reports whether node i takes writes: it is master and, in its own side's copy of
// the cluster's state, neither failed nor shunned. (Whether its host is up is the caller's to
// know: a node whose host is down takes nothing.)
func (e *Engine) Writable(i int) bool {
	m := &e.copies[e.copyOf[i]][i]
	return m.Role == Master && !m.Failed && !m.Shunned
}

// WritableIn reports whether copy c of the cluster's state has node i master and neither failed
// nor shunned: writable as the managers holding c believe.
func (e *Engine) WritableIn(c, i int) bool {
	m := &e.copies[c][i]
	return m.Role == Master && !m.Failed && !m.Shunned
}

// CoordinatorOf returns the coordinator that fences node i's alarms: the cluster's coordinator
// outside group mode; in group mode that of i's view (-1 when it is not primary), or the
// cluster's when i's manager is down.
func (e *Engine) CoordinatorOf(i int) int { return e.coordinatorOf(i) }

// CopyOf returns the number of the copy of the cluster's state node i's manager holds: 0 until
// the group forks one.
func (e *Engine) CopyOf(i int) int { return e.copyOf[i] }

// MasterOf returns the master in service (master, not failed) in node i's copy of the cluster's
// state, or -1 when that copy has none: the master i's side believes in.
func (e *Engine) MasterOf(i int) int { return e.copies[e.copyOf[i]].Master() }
