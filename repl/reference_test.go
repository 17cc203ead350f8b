package repl

import (
	"reflect"
	"sort"
	"time"
)

// equal is reflect.DeepEqual, with nil and empty slices alike.
func equal(a, b any) bool {
	return reflect.DeepEqual(a, b) || (isEmpty(a) && isEmpty(b))
}

func isEmpty(x any) bool {
	v := reflect.ValueOf(x)
	return v.Kind() == reflect.Slice && v.Len() == 0
}

// The reference model: the rules of the package written again, write by write and instant by
// instant, on a grid. Every time, lag, delay, deadline and timeout in its runs is a multiple of
// the grid's step q, and the workload is one write per step, so every instant at which anything
// happens is a grid instant and the reference may simply visit them all. It keeps one record
// per write and per commit, the stored position of every replica at every instant, and the
// origin of every position of every history. It shares the model's types, none of its logic.

const q = 100 * time.Millisecond // the grid step; the workload is 10 writes/s

const (
	refFailed = iota
	refAcked
	refWaiting
)

type refWrite struct {
	k     int64 // its index, and its grid instant
	state int
	hist  int   // the history it was committed on; -1 for none
	seq   int64 // its position there
	delay int64 // its reply's delay, in steps
	lost  bool
}

type refHist struct {
	owner  int
	origin []int   // per position (index p-1): the history that committed it
	at     []int64 // per position: the grid instant it was committed
}

type refNode struct {
	role            role
	dead            bool
	delay           int64
	lag, applyLag   int64
	frozen, stopped bool
	src             int
	stored, applied int64
	past            []int64 // stored at the end of every instant so far
	before          int64   // stored before it became the replica it is
	hist            int
	ready           bool
	promoT, promoS  int64
	promoAp, promoA int64
	semiOn          bool
	offTarget       int64
}

type ref struct {
	cfg       Config
	dl, to    int64 // deadline and timeout, in steps
	wait      int64 // apply-wait in steps, 0 for none
	nodes     []refNode
	hists     []refHist
	writes    []refWrite
	app       int
	g         int64 // the instant being played
	out       []Decision
	losses    []Loss
	fallbacks int
	committed int64
}

func steps(d time.Duration) int64 { return int64(d / q) }

func newRef(cfg Config) *ref {
	r := &ref{cfg: cfg, dl: steps(cfg.Deadline), to: steps(cfg.Timeout), wait: steps(cfg.ApplyWait), app: cfg.Master}
	if r.to == 0 {
		r.to = steps(DefaultTimeout)
	}
	r.hists = []refHist{{owner: cfg.Master}}
	r.nodes = make([]refNode, cfg.Nodes)
	for j := range r.nodes {
		n := &r.nodes[j]
		if j == cfg.Master {
			n.role, n.ready, n.semiOn, n.src = writer, true, true, -1
		} else {
			n.role, n.src = replica, 0
		}
	}
	return r
}

// made returns how many commits of history h's lineage were made at or before instant y.
func (r *ref) made(h int, y int64) int64 {
	at := r.hists[h].at
	return int64(sort.Search(len(at), func(i int) bool { return at[i] > y }))
}

// storedAt is node j's stored position at the end of instant y (now: as it stands).
func (r *ref) storedAt(j int, y int64) int64 {
	n := &r.nodes[j]
	switch {
	case y >= r.g:
		return n.stored
	case y < 0:
		return n.before
	}
	return n.past[y]
}

func (n *refNode) storing() bool { return n.role == replica && !n.frozen && !n.stopped }

// refresh brings every replica's positions up to the instant under its conditions.
func (r *ref) refresh() {
	for j := range r.nodes {
		n := &r.nodes[j]
		if n.role != replica {
			continue
		}
		if n.storing() {
			n.stored = max(n.stored, r.made(n.src, r.g-n.lag))
		}
		if !n.stopped {
			n.applied = max(n.applied, r.storedAt(j, r.g-n.applyLag))
		}
	}
}

// sharedRef is how many positions from the first the two histories have from the same commits.
func (r *ref) sharedRef(a, b int) int64 {
	oa, ob := r.hists[a].origin, r.hists[b].origin
	var p int64
	for int(p) < len(oa) && int(p) < len(ob) && oa[p] == ob[p] {
		p++
	}
	return p
}

// onLineage reports whether acknowledged write w is a commit of history h's lineage.
func (r *ref) onLineage(w *refWrite, h int) bool {
	o := r.hists[h].origin
	return w.seq <= int64(len(o)) && o[w.seq-1] == w.hist
}

// loseWrites marks lost the acknowledged writes on h's lineage that keeper's lineage lacks.
func (r *ref) loseWrites(l *Loss, h, keeper int) {
	for i := range r.writes {
		w := &r.writes[i]
		if w.state != refAcked || w.lost || !r.onLineage(w, h) || (keeper >= 0 && r.onLineage(w, keeper)) {
			continue
		}
		w.lost = true
		if l.Count == 0 || w.seq < l.First {
			l.First = w.seq
		}
		l.Last = max(l.Last, w.seq)
		l.Count++
	}
}

// answer settles waiting write w at the instant: in time if its reply reaches the client
// before its deadline.
func (r *ref) answer(w *refWrite) {
	w.state = refFailed
	if r.g-w.k+w.delay < r.dl {
		w.state = refAcked
	}
}

func (r *ref) waiting() []*refWrite {
	var out []*refWrite
	for i := range r.writes {
		if r.writes[i].state == refWaiting {
			out = append(out, &r.writes[i])
		}
	}
	return out
}

// drop fails every waiting write: its master will not send the reply.
func (r *ref) drop() {
	for _, x := range r.waiting() {
		x.state = refFailed
	}
}

// setApp moves the application; the replies of its former master are lost.
func (r *ref) setApp(w int) {
	if w != r.app {
		r.drop()
		r.app = w
	}
}

func (r *ref) fork(from, owner int, at int64) int {
	h := r.hists[from]
	r.hists = append(r.hists, refHist{owner: owner, origin: append([]int(nil), h.origin[:at]...), at: append([]int64(nil), h.at[:at]...)})
	return len(r.hists) - 1
}

func (r *ref) becomeReplica(j, src int, base int64) {
	n := &r.nodes[j]
	n.role, n.src, n.stored, n.applied, n.before = replica, src, base, base, base
	for i := range n.past {
		n.past[i] = base
	}
}

func (r *ref) step(in Input) {
	switch in := in.(type) {
	case SetLink:
		n := &r.nodes[in.Node]
		n.dead, n.delay = in.Link.Dead, steps(in.Link.Delay)
		if in.Node == r.app && (n.dead || n.delay >= r.dl) {
			r.drop()
		}
	case SetLag:
		r.nodes[in.Node].lag = steps(in.Lag)
	case SetApplyLag:
		r.nodes[in.Node].applyLag = steps(in.Lag)
	case SetStream:
		r.nodes[in.Node].frozen = in.Frozen
	case SetReplicator:
		r.nodes[in.Node].stopped = !in.Running
	case Promote:
		n := &r.nodes[in.Node]
		s, ap := n.stored, n.applied
		g := r.fork(n.src, in.Node, s)
		n.role, n.hist, n.ready, n.semiOn = writer, g, false, true
		n.promoT, n.promoS, n.promoAp, n.promoA = r.g, s, ap, n.applyLag
		for _, x := range in.Repoint {
			rn := &r.nodes[x]
			keep := r.sharedRef(rn.src, g)
			rn.stored, rn.applied, rn.before = min(rn.stored, keep), min(rn.applied, keep), min(rn.before, keep)
			for i := range rn.past {
				rn.past[i] = min(rn.past[i], keep)
			}
			rn.src = g
		}
		l := Loss{At: time.Duration(r.g) * q, Cause: LostAtFailover, Master: in.From, Keeper: in.Node}
		switch {
		case in.From == -1:
			if r.app == -1 {
				r.setApp(in.Node)
			}
		case in.FromGoesOn:
			l.Deferred = true
		default:
			r.nodes[in.From].role = out
			if r.app == in.From {
				r.setApp(in.Node)
			}
			r.loseWrites(&l, r.nodes[in.From].hist, g)
		}
		r.losses = append(r.losses, l)
		r.out = append(r.out, &Promoted{At: l.At, Node: in.Node, From: in.From, Stored: s, Backlog: s - ap, Lost: l})
	case Fail:
		r.nodes[in.Node].role = out
		if r.app == in.Node {
			r.setApp(-1)
		}
	case Recover:
		n := &r.nodes[in.Node]
		switch {
		case in.Of == in.Node:
			n.role, n.ready, n.semiOn = writer, true, true
			if r.app == -1 {
				r.setApp(in.Node)
			}
		case in.Of == -1:
			r.becomeReplica(in.Node, n.hist, int64(len(r.hists[n.hist].origin)))
		default:
			g := r.nodes[in.Of].hist
			r.becomeReplica(in.Node, g, min(int64(len(r.hists[n.hist].origin)), r.sharedRef(n.hist, g)))
		}
	case SetApp:
		r.setApp(in.Master)
	case Merge:
		for _, o := range in.Overwritten {
			l := Loss{At: time.Duration(r.g) * q, Cause: LostAtMerge, Master: o, Keeper: in.Kept}
			if in.Kept >= 0 {
				r.loseWrites(&l, r.nodes[o].hist, r.nodes[in.Kept].hist)
			}
			r.nodes[o].role = out
			if r.app == o {
				r.setApp(in.Kept)
			}
			r.losses = append(r.losses, l)
			r.out = append(r.out, &Overwritten{At: l.At, Node: o, Kept: in.Kept, Lost: l})
		}
		for _, x := range in.Repoint {
			g := r.nodes[in.Kept].hist
			rn := &r.nodes[x]
			keep := r.sharedRef(rn.src, g)
			rn.stored, rn.applied, rn.before = min(rn.stored, keep), min(rn.applied, keep), min(rn.before, keep)
			for i := range rn.past {
				rn.past[i] = min(rn.past[i], keep)
			}
			rn.src = g
		}
	}
	r.refresh()
}

// storedByFollowers is the highest position of history h a replica of it has stored.
func (r *ref) storedByFollowers(h int) int64 {
	var s int64
	for j := range r.nodes {
		if n := &r.nodes[j]; n.role == replica && n.src == h {
			s = max(s, n.stored)
		}
	}
	return s
}

// answerStored answers every waiting write some replica has stored.
func (r *ref) answerStored() {
	for _, w := range r.waiting() {
		if w.seq <= r.storedByFollowers(w.hist) {
			r.answer(w)
		}
	}
}

// decide makes the model's own decisions of the instant.
func (r *ref) decide() {
	for j := range r.nodes {
		n := &r.nodes[j]
		if n.role != writer || n.ready {
			continue
		}
		ap := max(n.promoAp, min(n.promoS, r.storedAt(j, r.g-n.promoA)))
		if ap >= n.promoS || (r.wait > 0 && r.g >= n.promoT+r.wait) {
			n.ready = true
			r.out = append(r.out, &Writable{At: time.Duration(r.g) * q, Node: j, Waited: time.Duration(r.g-n.promoT) * q, Unapplied: n.promoS - ap})
		}
	}
	if r.cfg.Mode != Semisync {
		return
	}
	r.answerStored()
	if w := r.waiting(); len(w) > 0 && w[0].k+r.to <= r.g {
		for _, x := range w {
			r.answer(x)
		}
		a := &r.nodes[r.app]
		a.semiOn, a.offTarget = false, int64(len(r.hists[a.hist].origin))
		r.fallbacks++
		r.out = append(r.out, &FellBack{At: time.Duration(r.g) * q, Master: r.app, Since: time.Duration(w[0].k) * q, Waiting: int64(len(w))})
	}
	for j := range r.nodes {
		n := &r.nodes[j]
		if n.role != writer || n.semiOn {
			continue
		}
		for f := range r.nodes {
			if fn := &r.nodes[f]; fn.role == replica && fn.src == n.hist && fn.stored >= n.offTarget {
				n.semiOn = true
				r.out = append(r.out, &Returned{At: time.Duration(r.g) * q, Master: j, Replica: f})
				break
			}
		}
	}
}

// write issues the instant's write.
func (r *ref) write() {
	w := refWrite{k: r.g, hist: -1}
	if a := r.app; a >= 0 {
		n := &r.nodes[a]
		if n.ready && !n.dead && n.delay < r.dl {
			h := &r.hists[n.hist]
			h.origin = append(h.origin, n.hist)
			h.at = append(h.at, r.g)
			r.committed++
			w.hist, w.seq, w.delay = n.hist, int64(len(h.origin)), n.delay
			w.state = refAcked
			if r.cfg.Mode == Semisync && n.semiOn {
				w.state = refWaiting
			}
		}
	}
	r.writes = append(r.writes, w)
}

// play plays the instant: the inputs, the model's decisions, the write, and what the write's
// replicas stored at once.
func (r *ref) play(ins []Input, issue bool) {
	r.refresh()
	for _, in := range ins {
		r.step(in)
	}
	r.decide()
	if issue {
		r.write()
		r.refresh()
		if r.cfg.Mode == Semisync {
			r.answerStored()
		}
	}
	for j := range r.nodes {
		r.nodes[j].past = append(r.nodes[j].past, r.nodes[j].stored)
	}
	r.g++
}

// run plays the instants 0..end with the inputs at theirs, then, with no more writes, until no
// write waits; it returns the summary and the decisions made up to end.
func (r *ref) run(evs []ev, end int64, atEnd func()) (Summary, []Decision) {
	byAt := map[int64][]Input{}
	for _, e := range evs {
		byAt[steps(e.at)] = append(byAt[steps(e.at)], e.in)
	}
	for r.g <= end {
		r.play(byAt[r.g], true)
	}
	ds := r.out
	atEnd()
	for len(r.waiting()) > 0 {
		r.play(nil, false)
	}
	s := Summary{Offered: int64(len(r.writes)), Committed: r.committed, Losses: r.losses, Fallbacks: r.fallbacks}
	var run int64 = -1
	longest := Outage{}
	for i, w := range r.writes {
		if w.state == refAcked {
			s.Acknowledged++
			if run >= 0 {
				o := Outage{From: time.Duration(run) * q, To: time.Duration(i) * q, Writes: int64(i) - run}
				if o.Length() > longest.Length() {
					longest = o
				}
				s.Outages = append(s.Outages, o)
				run = -1
			}
		} else if run < 0 {
			run = int64(i)
		}
		if w.lost {
			s.Lost++
		}
	}
	if run >= 0 {
		o := Outage{From: time.Duration(run) * q, To: time.Duration(len(r.writes)) * q, Writes: int64(len(r.writes)) - run}
		if o.Length() > longest.Length() {
			longest = o
		}
		s.Outages = append(s.Outages, o)
	}
	s.Failed = s.Offered - s.Acknowledged
	s.Outage = longest
	s.Unavailable = time.Duration(s.Failed) * q
	return s, ds
}
