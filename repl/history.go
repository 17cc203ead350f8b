package repl

import (
	"slices"
	"sort"
	"time"
)

// A history is the sequence of commits one master made, positions (sequence numbers) counted
// from 1 along its lineage: a promoted replica's history forks from the history it replicated,
// at the position it had stored, so positions up to the fork are its parent's and its own
// commits follow. Commits are kept as segments, runs of commits on consecutive writes, so a
// history costs what changed, not what was written.
type history struct {
	owner  int       // the node whose commits it holds; it keeps it after it stops writing
	parent int       // the history it forked from; -1 for the first
	fork   int64     // positions up to fork are the parent's
	segs   []segment // every commit on its lineage, the parent's up to fork included, in order
	top    int64     // its last position; 0 before any commit
	acked  []run     // the runs of its own positions (above fork) its master acknowledged, in order
}

// segment is n commits at positions p0.. made by the consecutive writes k0...
type segment struct{ k0, p0, n int64 }

// run is n acknowledged writes at positions p0.., issued as writes k0..; lost once a failover or
// merge lost them.
type run struct {
	k0, p0, n int64
	lost      bool
}

// position returns how many commits of h's lineage were made at or before x. Only the commits
// the model has made count: at an instant, the writes of the instant come last.
func position(r Rate, h *history, x time.Duration) int64 {
	if x < 0 || len(h.segs) == 0 {
		return 0
	}
	n := r.First(x + 1) // writes issued at or before x
	i := sort.Search(len(h.segs), func(i int) bool { return h.segs[i].k0 >= n })
	if i == 0 {
		return 0
	}
	s := h.segs[i-1]
	return s.p0 - 1 + min(s.n, n-s.k0)
}

// commitAt returns the instant position p (1 <= p <= h.top) of h's lineage was committed.
func commitAt(r Rate, h *history, p int64) time.Duration {
	i := sort.Search(len(h.segs), func(i int) bool { return h.segs[i].p0+h.segs[i].n > p })
	if p < 1 || i == len(h.segs) {
		panic("repl: position beyond its history")
	}
	s := h.segs[i]
	return r.At(s.k0 + p - s.p0)
}

// commit appends n commits made by the writes k0.. and returns the first's position.
func (h *history) commit(k0, n int64) int64 {
	p0 := h.top + 1
	if l := len(h.segs) - 1; l >= 0 && h.segs[l].k0+h.segs[l].n == k0 {
		h.segs[l].n += n
	} else {
		h.segs = append(h.segs, segment{k0: k0, p0: p0, n: n})
	}
	h.top += n
	return p0
}

// forked returns the history that node owner starts when promoted with positions up to at of
// h (the one numbered parent) stored.
func (h *history) forked(parent, owner int, at int64) history {
	var g history
	h.forkInto(&g, parent, owner, at)
	return g
}

// forkInto makes *g the history forked returns, reusing g's space; g is not h.
func (h *history) forkInto(g *history, parent, owner int, at int64) {
	if at > h.top {
		panic("repl: a fork above its history's top")
	}
	*g = history{owner: owner, parent: parent, fork: at, top: at, segs: g.segs[:0], acked: g.acked[:0]}
	for _, s := range h.segs {
		if s.p0 > at {
			break
		}
		s.n = min(s.n, at-s.p0+1)
		g.segs = append(g.segs, s)
	}
}

// ack records that the n writes k0.. at positions p0.. of h were acknowledged.
func (h *history) ack(k0, p0, n int64) {
	if l := len(h.acked) - 1; l >= 0 && !h.acked[l].lost && h.acked[l].k0+h.acked[l].n == k0 && h.acked[l].p0+h.acked[l].n == p0 {
		h.acked[l].n += n
		return
	}
	h.acked = append(h.acked, run{k0: k0, p0: p0, n: n})
}

// lose marks lost the acknowledged writes of h at positions in (above, upto] that were not lost
// already, and returns how many, with the lowest and highest position among them.
func (h *history) lose(above, upto int64) (n, first, last int64) {
	if !slices.ContainsFunc(h.acked, func(r run) bool { return !r.lost && max(r.p0, above+1) <= min(r.p0+r.n-1, upto) }) {
		return 0, 0, 0 // nothing to lose: the runs stay as they are
	}
	var out []run
	for _, r := range h.acked {
		lo, hi := max(r.p0, above+1), min(r.p0+r.n-1, upto)
		if r.lost || lo > hi {
			out = append(out, r)
			continue
		}
		if lo > r.p0 {
			out = append(out, run{k0: r.k0, p0: r.p0, n: lo - r.p0})
		}
		out = append(out, run{k0: r.k0 + lo - r.p0, p0: lo, n: hi - lo + 1, lost: true})
		if hi < r.p0+r.n-1 {
			out = append(out, run{k0: r.k0 + hi + 1 - r.p0, p0: hi + 1, n: r.p0 + r.n - 1 - hi})
		}
		if n == 0 {
			first = lo
		}
		n += hi - lo + 1
		last = hi
	}
	h.acked = out
	return n, first, last
}

// lineage is a history's chain of ancestors, itself first, each with the highest position of
// it that the lineage holds.
type ancestor struct {
	hist int
	upto int64
}

func lineage(hs []history, h int) []ancestor {
	out := []ancestor{own(hs, h)}
	for a, ok := out[0], true; ; {
		if a, ok = up(hs, a); !ok {
			return out
		}
		out = append(out, a)
	}
}

// own is the first ancestor of h's lineage: h itself, all of it. Walk the rest with up; the
// walks below allocate nothing, as they run at every failover of thousands of traces a second.
func own(hs []history, h int) ancestor { return ancestor{hist: h, upto: hs[h].top} }

// up returns the ancestor that follows a in its lineage, and false when a is the first history.
func up(hs []history, a ancestor) (ancestor, bool) {
	h := &hs[a.hist]
	if h.parent < 0 {
		return a, false
	}
	return ancestor{hist: h.parent, upto: min(a.upto, h.fork)}, true
}

// shared returns how many positions histories a and b have in common: the positions up to it
// are the same commits on both.
func shared(hs []history, a, b int) int64 {
	for x, ok := own(hs, a), true; ok; x, ok = up(hs, x) {
		for y, ok := own(hs, b), true; ok; y, ok = up(hs, y) {
			if x.hist == y.hist {
				return min(x.upto, y.upto)
			}
		}
	}
	return 0
}

// loseAbove marks lost the acknowledged writes on h's lineage above position above, on every
// history of the lineage, and returns the count and the position range.
func loseAbove(hs []history, h int, above int64) (n, first, last int64) {
	for a, ok := own(hs, h), true; ok; a, ok = up(hs, a) {
		c, f, l := hs[a.hist].lose(above, a.upto)
		if c == 0 {
			continue
		}
		if n == 0 || f < first {
			first = f
		}
		last = max(last, l)
		n += c
	}
	return n, first, last
}
