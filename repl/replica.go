package repl

import (
	"math"
	"sort"
	"time"
)

// role is what a node is to replication.
type role uint8

const (
	replica role = iota // it replicates a history
	writer              // a master of record: it owns a history and commits on it when written to
	out                 // a master failed over or failed: it neither writes nor replicates
)

// node is one node's replication state.
type node struct {
	role role
	link Link // its database link, for the application's writes

	// The replication settings as the inputs last set them; kept while it is no replica.
	lag, applyLag   time.Duration
	frozen, stopped bool

	// As a replica: the history it replicates, and its stored position over time as pieces;
	// its applied position is apBase, or, while it applies, what it had stored apLag earlier.
	src      int
	pieces   []piece
	apBase   int64
	apLag    time.Duration
	applying bool

	// As a writer or out: the history it owns.
	hist int
	// As a writer being promoted: it takes writes from readyAt, with unapplied left to apply.
	ready      bool
	readyAt    time.Duration
	promotedAt time.Duration
	unapplied  int64
	// As a writer under semisync: whether commits wait for a replica, and, when they do not,
	// the position a replica must store for them to wait again.
	semiOn    bool
	offTarget int64
}

// piece is a node's stored position from one change of its replication to the next: base at
// from, and while storing, what its stream delivered: every commit of src made lag or more
// before; never above cap (lowered when it is repointed to a history that shares only that).
type piece struct {
	from    time.Duration
	base    int64
	cap     int64
	src     int
	lag     time.Duration
	storing bool
}

// storing reports whether node n receives its stream.
func (n *node) storing() bool { return n.role == replica && !n.frozen && !n.stopped && n.src >= 0 }

// stored returns node j's stored position at instant x, as far as the model has gone.
func (m *Model) stored(j int, x time.Duration) int64 {
	ps := m.nodes[j].pieces
	i := sort.Search(len(ps), func(i int) bool { return ps[i].from > x }) - 1
	if i < 0 {
		i = 0 // before it became a replica: what it started with
	}
	p := ps[i]
	v := p.base
	if p.storing && x >= p.from {
		v = max(v, position(m.cfg.Rate, &m.hists[p.src], x-p.lag))
	}
	return min(v, p.cap)
}

// applied returns node j's applied position at instant x, under its apply state.
func (m *Model) applied(j int, x time.Duration) int64 {
	n := &m.nodes[j]
	if !n.applying {
		return n.apBase
	}
	return max(n.apBase, m.stored(j, x-n.apLag))
}

// restream starts a new piece of node j's stored position at the model's time, after a change
// of its replication: the value so far carries over, and from now it follows the node's
// settings. A change at the instant of the last piece replaces it.
func (m *Model) restream(j int) {
	n := &m.nodes[j]
	p := piece{from: m.now, base: m.stored(j, m.now), cap: math.MaxInt64, src: n.src, lag: n.lag, storing: n.storing()}
	if l := len(n.pieces) - 1; l >= 0 && n.pieces[l].from == m.now {
		n.pieces[l] = p
		return
	}
	n.pieces = append(n.pieces, p)
}

// reapply fixes node j's applied position at the model's time under its old apply state, before
// a change of it.
func (m *Model) reapply(j int) {
	n := &m.nodes[j]
	n.apBase = m.applied(j, m.now)
}

// startReplica makes node j a replica of history src from the model's time, with base stored
// and applied (a former master has applied all it has).
func (m *Model) startReplica(j, src int, base int64) {
	n := &m.nodes[j]
	n.role, n.src = replica, src
	n.pieces = append(n.pieces[:0], piece{from: m.now, base: base, cap: math.MaxInt64, src: src, lag: n.lag})
	n.pieces[0].storing = n.storing()
	n.apBase, n.apLag, n.applying = base, n.applyLag, !n.stopped
}

// repoint makes replica j replicate history g: it keeps only what its history and g share.
func (m *Model) repoint(j, g int) {
	n := &m.nodes[j]
	keep := shared(m.hists, n.src, g)
	for i := range n.pieces {
		n.pieces[i].cap = min(n.pieces[i].cap, keep)
		n.pieces[i].base = min(n.pieces[i].base, keep)
	}
	n.apBase = min(m.applied(j, m.now), keep)
	n.src = g
	m.restream(j)
}

// reached returns the first instant at which node j's stored position was at least target,
// which it must be by the model's time.
func (m *Model) reached(j int, target int64) time.Duration {
	ps := m.nodes[j].pieces
	for i, p := range ps {
		if min(p.base, p.cap) >= target {
			return p.from
		}
		if !p.storing || p.cap < target || target > m.hists[p.src].top {
			continue
		}
		x := commitAt(m.cfg.Rate, &m.hists[p.src], target) + p.lag
		if i == len(ps)-1 || x < ps[i+1].from {
			return max(x, p.from)
		}
	}
	panic("repl: a stored position never reached")
}

// lagOf returns how far node j's stored position trails its history at instant x: 0 when it
// stored every commit made, otherwise how long ago the first commit it lacks was made.
func (m *Model) lagOf(j int, x time.Duration) time.Duration {
	n := &m.nodes[j]
	h := &m.hists[n.src]
	s := m.stored(j, x)
	if s >= position(m.cfg.Rate, h, x) {
		return 0
	}
	return x - commitAt(m.cfg.Rate, h, s+1)
}
