package sim

import (
	"slices"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/core"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/group"
	"github.com/failsim/failsim/repl"
)

// sides is what the replication model is told of a partition (docs/engine.md, "The client's
// view during a partition"; rules 57-63). Until the first partition it costs a flag: a timeline
// without one is replayed as it always was. From the first partition on, at the end of every
// instant the observers are told of:
//
//   - the copies of the cluster's state that merged at the instant are told to the model
//     (repl.Merge): the master in service of the merged copy is kept; every other master of
//     the model now holding it (a writer, or a master failed over while it went on on its
//     side) is overwritten, and loses what the kept history does not hold; the replicas of an
//     overwritten history are repointed to the kept one; a node the model holds as failed and
//     the merged copy as a replica in service replicates the kept master again;
//   - each replica's stream is cut while the replica is on another segment than the master it
//     replicates (it stores nothing new, as a frozen link), and restored when they reach each
//     other again; the timeline's own "link freeze" is kept apart and combined with it;
//   - the application, beside node near, writes to a writable master on its own segment: the
//     one it wrote to while that stays so, else the first in cluster order; none: its writes
//     fail.
//
// A failover whose old master is still writable on its own side (its side's copy did not fail
// it) promotes with repl.Promote.FromGoesOn: the old master goes on taking its side's writes,
// and what is lost is decided at the merge.
type sides struct {
	on         bool             // a partition has been seen: the rules above apply
	dirty      bool             // an event of this instant may have moved the writes (movesWrites)
	k          *core.Core       // the core, for its cluster (segments, writable nodes)
	e          *fence.Engine    // the engine, for its copies
	near       int              // the node the application sits beside
	core.Sides                  // whose history each replica follows, the streams cut, the masters deferred to the merge
	frozen     []bool           // per node: its link frozen by the timeline (link freeze)
	merged     []int            // the copies merged at this instant, to tell the model at its end
	plan       core.MergePlan   // the last merge's, for its space
	cuts       []core.CutChange // the last recut's, for its space
	told       int              // the application's target last told (repl.AppTarget)
	c          *cluster.Cluster // the cluster, once made
	split      bool             // the databases' network is split as seg says (cluster.Partitioned); false: one network
	seg        []int            // per member, its segment of the databases' network while split
	stood      core.Standing    // how the managers stood at the decision being told (core.Core.StandingAt)
	stands     bool             // stood holds: a decision about a node's service is being told, the group made
}

// decided notes how the managers stood at ev, while it is told: what the model is told of a
// failover, a failure or a recovery follows the managers as they were at that decision, not
// after the rest of the group's step.
func (s *sides) decided(ev act.Event) {
	switch ev.(type) {
	case *fence.Failover, *fence.NoCandidate, *fence.NodeFailed, *fence.NodeRecovered:
		if s.k != nil {
			s.stood, s.stands = s.k.StandingAt(ev)
		}
	}
}

// copyOf is the copy node i's manager holds, as it stood at the decision being told.
func (s *sides) copyOf(i int) int {
	if s.stands {
		return s.stood.CopyOf(i)
	}
	return s.e.CopyOf(i)
}

// masterOf is the master in service of node i's copy, as it stood at the decision being told.
func (s *sides) masterOf(i int) int {
	if s.stands {
		return s.stood.MasterOf(i)
	}
	return s.e.MasterOf(i)
}

// newSides returns the sides of a run of n nodes whose master is master at the start; old is a
// run's sides done with, whose space it reuses (check replays trace after trace).
func newSides(n, master, near int, old *sides) sides {
	return sides{Sides: core.NewSides(n, master, old.Sides), near: near, told: master, frozen: zeroed(old.frozen, n),
		merged: old.merged[:0], plan: old.plan, cuts: old.cuts[:0], seg: old.seg[:0]}
}

// cluster returns the driver's cluster; nil before the group is made.
func (s *sides) cluster() *cluster.Cluster {
	if s.c == nil && s.k != nil {
		s.c = s.k.Cluster()
	}
	return s.c
}

// net notes the databases' network a partition leaves: split as the managers' is, or, for a
// partition of the managers' network alone, one network. The first split turns the rules
// above on.
func (s *sides) net(ev *cluster.Partitioned) {
	s.split = ev.Segments != nil && !ev.ManagersOnly
	if s.split {
		s.seg, s.on = append(s.seg[:0], ev.Segments...), true
	}
}

// reaches reports whether members a and b are on one segment of the databases' network.
func (s *sides) reaches(a, b int) bool {
	return !s.split || s.seg[a] == s.seg[b]
}

// writableSet is the set of nodes that take writes as the managers left them
// (cluster.WritableNow).
func (s *sides) writableSet() group.Set {
	if s.stands {
		return s.stood.Writable
	}
	if c := s.cluster(); c != nil {
		return c.WritableNow()
	}
	var w group.Set
	for i := range s.Src {
		if s.e.Writable(i) {
			w = w.With(i)
		}
	}
	return w
}

// goesOn reports whether master from, just failed over, still takes writes on its own side.
// Without a workload nothing is written, nothing can be lost at a merge: no master goes on.
func (r *replRun) goesOn(from int) bool {
	return r.sides.on && r.workload && from >= 0 && r.sides.writableSet().Has(from)
}

// stream is what the model is told of node j's stream: frozen by the timeline or cut.
func (r *replRun) stream(j int) repl.SetStream {
	return repl.SetStream{Node: j, Frozen: r.sides.frozen[j] || r.sides.Cut[j] >= 0}
}

// movesWrites reports whether event ev may change where the writes go or which streams a
// partition cuts: anything but a probe's state, an alarm's life and a link's fault (a link
// matters to the model, which is told it, not to who is writable).
func movesWrites(ev act.Event) bool {
	switch ev.(type) {
	case *fence.StateChanged, *fence.AlarmRaised, *fence.AlarmExpired, *fence.AlarmHealed, *fence.AlarmCleared,
		*fence.ExpiryWaiting, *fence.Logged, *fence.AlertNotImplemented, *act.FaultSet:
		return false
	}
	return true
}

// endSides applies the partition's rules at the end of instant at (see sides), after an event
// that may have moved the writes.
func (r *replRun) endSides(at time.Duration) {
	s := &r.sides
	s.dirty = false
	if len(s.merged) > 0 {
		for _, k := range s.merged {
			r.mergeCopy(at, k)
		}
		s.merged = s.merged[:0]
	}
	r.recut(at)
	r.retarget(at)
}

// mergeCopy tells the model that the sides now holding copy k of the cluster's state merged, as
// the core decides (core.Merge).
func (r *replRun) mergeCopy(at time.Duration, k int) {
	s := &r.sides
	p := core.Merge(r.role, &s.Sides, s.e.View(), k, s.plan)
	s.plan = p
	if p.Revived {
		r.tellLink(at, p.Kept)
		r.mark()
		r.m.Step(at, repl.Recover{Node: p.Kept, Of: p.Kept})
	}
	if len(p.Overwritten) > 0 || len(p.Repoint) > 0 {
		r.mark()
		r.m.Step(at, repl.Merge{Overwritten: p.Overwritten, Kept: p.Kept, Repoint: p.Repoint})
	}
	if slices.Contains(p.Overwritten, r.master) {
		r.master = -1
	}
	for _, i := range p.Rejoined {
		r.mark()
		r.m.Step(at, repl.Recover{Node: i, Of: p.Kept})
	}
	if p.Kept >= 0 {
		r.master = p.Kept
	}
	r.flush()
}

// recut tells the model of each replica's stream the partition cut or restored (core.Sides.Recut).
func (r *replRun) recut(at time.Duration) {
	s := &r.sides
	s.cuts = s.Recut(r.role, s.reaches, s.cuts[:0])
	for _, c := range s.cuts {
		j := c.Node
		r.mark()
		r.m.Step(at, r.stream(j))
		if !r.workload {
			continue // no write, no position: nothing to tell
		}
		if c.Was >= 0 && r.role[j] == core.Replica && s.Src[j] == c.Was {
			// Cut from the same master before: the partition healed between them. (A replica
			// repointed to a master it reaches streams from it at once: the promotion says so.)
			r.tell(&repl.StreamCut{At: at, Node: j, Source: c.Was})
		}
		if c.Cut >= 0 {
			r.tell(&repl.StreamCut{At: at, Node: j, Source: c.Cut, Cut: true})
		}
	}
}

// retarget moves the application's writes to the writable master on its side, if it changed.
func (r *replRun) retarget(at time.Duration) {
	s := &r.sides
	w := s.writableSet()
	ok := func(i int) bool { return r.role[i] == core.Writer && w.Has(i) && s.reaches(i, s.near) }
	cur := r.m.App()
	target := core.Sticky(cur, len(r.role), ok)
	if s.k != nil {
		target = s.k.Route(cur, ok)
	}
	if target == cur && target == s.told {
		return
	}
	if target != cur {
		if target >= 0 {
			r.tellLink(at, target)
		}
		r.mark()
		r.m.Step(at, repl.SetApp{Master: target})
		r.flush()
	}
	if target != s.told && r.workload {
		s.told = target
		r.tell(&repl.AppTarget{At: at, Near: s.near, Master: target})
	}
}
