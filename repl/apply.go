package repl

import (
	"fmt"
	"time"
)

func checkDuration(d time.Duration) {
	if d < 0 {
		panic(fmt.Sprintf("repl: a negative lag %v", d))
	}
}

func (m *Model) setLink(in SetLink) {
	n := m.checkNode(in.Node)
	n.link = in.Link
	if in.Node == m.app && !in.Link.takes(m.cfg.Deadline) {
		m.drop() // its master stopped answering: replies it had not sent are lost
	}
}

func (m *Model) setLag(in SetLag) {
	n := m.checkNode(in.Node)
	checkDuration(in.Lag)
	n.lag = in.Lag
	if n.role == replica {
		m.restream(in.Node)
	}
}

func (m *Model) setApplyLag(in SetApplyLag) {
	n := m.checkNode(in.Node)
	checkDuration(in.Lag)
	if n.role == replica {
		m.reapply(in.Node)
		n.apLag = in.Lag
	}
	n.applyLag = in.Lag
}

func (m *Model) setStream(in SetStream) {
	n := m.checkNode(in.Node)
	n.frozen = in.Frozen
	if n.role == replica {
		m.restream(in.Node)
	}
}

func (m *Model) setReplicator(in SetReplicator) {
	n := m.checkNode(in.Node)
	if n.role == replica {
		m.reapply(in.Node)
		n.applying = in.Running
	}
	n.stopped = !in.Running
	if n.role == replica {
		m.restream(in.Node)
	}
}

// setApp moves the application's writes to writer w (-1: none). Leaving a master drops the
// replies it had not sent: the connections to it are closed.
func (m *Model) setApp(w int) {
	if w == m.app {
		return
	}
	m.drop()
	m.app = w
}

func (m *Model) setAppInput(in SetApp) {
	if in.Master != -1 && m.checkNode(in.Master).role != writer {
		panic(fmt.Sprintf("repl: the application writes to node %d, which is no master", in.Master))
	}
	m.setApp(in.Master)
}

func (m *Model) mustWriter(j int, what string) *node {
	n := m.checkNode(j)
	if n.role != writer {
		panic(fmt.Sprintf("repl: %s node %d, which is no master", what, j))
	}
	return n
}

func (m *Model) promote(in Promote) {
	n := m.checkNode(in.Node)
	if n.role != replica {
		panic(fmt.Sprintf("repl: promoting node %d, which is no replica", in.Node))
	}
	if in.From != -1 {
		m.mustWriter(in.From, "failing over")
	}
	for _, r := range in.Repoint {
		if m.checkNode(r).role != replica || r == in.Node {
			panic(fmt.Sprintf("repl: repointing node %d, which is no replica", r))
		}
	}
	t := m.now
	stored := m.stored(in.Node, t)
	ap := m.applied(in.Node, t)
	// What it stored it applies from now, apLag after it stored it, whatever its replicator.
	ready := t
	if ap < stored {
		ready = max(t, m.reached(in.Node, stored)+n.apLag)
	}
	if w := m.cfg.ApplyWait; w > 0 && t+w < ready {
		ready = t + w
	}
	unapplied := stored - max(ap, min(stored, m.stored(in.Node, ready-n.apLag)))

	g := m.fork(n.src, in.Node, stored)
	frozen := n.frozen
	n.frozen = true // its stored position stays as it is: a master stores no stream
	m.restream(in.Node)
	n.frozen = frozen
	n.role, n.hist = writer, g
	n.ready, n.readyAt, n.promotedAt, n.unapplied = false, ready, t, unapplied
	n.semiOn, n.offTarget = true, 0
	for _, r := range in.Repoint {
		m.repoint(r, g)
	}

	loss := Loss{At: t, Cause: LostAtFailover, Master: in.From, Keeper: in.Node}
	switch {
	case in.From == -1:
		if m.app == -1 {
			m.setApp(in.Node)
		}
	case in.FromGoesOn:
		loss.Deferred = true
	default:
		f := &m.nodes[in.From]
		f.role = out
		if m.app == in.From {
			m.setApp(in.Node)
		}
		loss.Count, loss.First, loss.Last = loseAbove(m.hists, f.hist, shared(m.hists, f.hist, g))
	}
	m.losses = append(m.losses, loss)
	d := Promoted{At: t, Node: in.Node, From: in.From, Stored: stored, Backlog: stored - ap, WritableAt: ready, Lost: loss}
	if m.hasRanked && m.rankedAt == t {
		d.Ranking = m.ranking
	}
	m.hasRanked = false
	m.emit(&d)
}

func (m *Model) fail(in Fail) {
	n := m.mustWriter(in.Node, "failing")
	n.role = out
	if m.app == in.Node {
		m.setApp(-1)
	}
}

func (m *Model) recover(in Recover) {
	n := m.checkNode(in.Node)
	if n.role != out {
		panic(fmt.Sprintf("repl: recovering node %d, which is not failed", in.Node))
	}
	switch {
	case in.Of == in.Node:
		n.role, n.ready, n.semiOn = writer, true, true
		if m.app == -1 {
			m.setApp(in.Node)
		}
	case in.Of == -1:
		m.startReplica(in.Node, n.hist, m.hists[n.hist].top)
	default:
		g := m.mustWriter(in.Of, "recovering a replica of").hist
		m.startReplica(in.Node, g, min(m.hists[n.hist].top, shared(m.hists, n.hist, g)))
	}
}

func (m *Model) merge(in Merge) {
	if in.Kept != -1 {
		m.mustWriter(in.Kept, "merging into")
	}
	for _, o := range in.Overwritten {
		n := m.checkNode(o)
		if n.role == replica || o == in.Kept {
			panic(fmt.Sprintf("repl: overwriting node %d, which is no master", o))
		}
		loss := Loss{At: m.now, Cause: LostAtMerge, Master: o, Keeper: in.Kept}
		if in.Kept != -1 {
			loss.Count, loss.First, loss.Last = loseAbove(m.hists, n.hist, shared(m.hists, n.hist, m.nodes[in.Kept].hist))
		}
		n.role = out
		if m.app == o {
			m.setApp(in.Kept)
		}
		m.losses = append(m.losses, loss)
		m.emit(&Overwritten{At: m.now, Node: o, Kept: in.Kept, Lost: loss})
	}
	for _, r := range in.Repoint {
		if m.checkNode(r).role != replica || in.Kept == -1 {
			panic(fmt.Sprintf("repl: repointing node %d, which is no replica, to %d at a merge", r, in.Kept))
		}
		m.repoint(r, m.nodes[in.Kept].hist)
	}
}
