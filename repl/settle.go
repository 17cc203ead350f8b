package repl

import (
	"math"
	"time"
)

// never is the instant of what will not happen.
const never = time.Duration(math.MaxInt64)

// entry is n commits waiting under semisync for a replica to store them: made by the writes
// k0.., at positions p0.. of history hist, each reply held delay on its way to the client.
type entry struct {
	k0, p0, n int64
	hist      int
	delay     time.Duration
}

// settle decides every instant before to. Between two changes of condition (an input, or one
// of the model's own decisions) everything is steady, so the writes issued in between are
// counted, committed and answered in bulk.
//
// At one instant the order is: the inputs (as Step is given them), then the model's own
// decisions (a promoted master becoming writable; waiting commits answered when a replica
// stored them; semisync falling back, then returning), then the writes issued at the instant.
func (m *Model) settle(to time.Duration) {
	for m.now < to {
		m.decide()
		e := min(to, m.nextOwn(m.now))
		if e <= m.now {
			panic("repl: the model's next decision is not after its time")
		}
		m.writes(m.now, e)
		m.now = e
	}
}

// decide makes the model's own decisions due at its time.
func (m *Model) decide() {
	c := m.now
	for j := range m.nodes {
		n := &m.nodes[j]
		if n.role == writer && !n.ready && n.readyAt <= c {
			n.ready = true
			m.emit(&Writable{At: c, Node: j, Waited: c - n.promotedAt, Unapplied: n.unapplied})
		}
	}
	if m.cfg.Mode != Semisync {
		return
	}
	if len(m.wait) > 0 {
		// Every waiting commit a replica has stored is answered now.
		m.answerStored(c, m.storedBy(m.wait[0].hist, c))
	}
	if len(m.wait) > 0 && m.cfg.Rate.At(m.wait[0].k0)+m.cfg.Timeout <= c {
		w := &m.nodes[m.app]
		d := FellBack{At: c, Master: m.app, Since: m.cfg.Rate.At(m.wait[0].k0)}
		for _, e := range m.wait {
			d.Waiting += e.n
		}
		m.answerStored(c, math.MaxInt64)
		w.semiOn, w.offTarget = false, m.hists[w.hist].top
		m.fallbacks++
		m.emit(&d)
	}
	for j := range m.nodes {
		n := &m.nodes[j]
		if n.role != writer || n.semiOn {
			continue
		}
		for r := range m.nodes {
			if f := &m.nodes[r]; f.role == replica && f.src == n.hist && m.stored(r, c) >= n.offTarget {
				n.semiOn = true
				m.emit(&Returned{At: c, Master: j, Replica: r})
				break
			}
		}
	}
}

// nextOwn returns the first instant after c at which the model would decide something of its
// own accord if nothing changed, or never. The writes before the model's time are made.
func (m *Model) nextOwn(c time.Duration) time.Duration {
	next := never
	for j := range m.nodes {
		if n := &m.nodes[j]; n.role == writer && !n.ready {
			next = min(next, n.readyAt)
		}
	}
	if m.cfg.Mode != Semisync {
		return next
	}
	r := m.cfg.Rate
	if w := m.app; w >= 0 && m.nodes[w].semiOn {
		// With no replica to store a commit within the timeout, the oldest waiting one (or the
		// next one made) makes the master fall back.
		if lag, ok := m.streamLag(m.nodes[w].hist); !ok || lag > m.cfg.Timeout {
			t0 := never
			if len(m.wait) > 0 {
				t0 = r.At(m.wait[0].k0)
			} else if k := r.First(m.now); !r.Zero() && k < m.limit && m.takesWrites(w) {
				t0 = r.At(k)
			}
			if t0 != never {
				next = min(next, t0+m.cfg.Timeout)
			}
		}
	}
	for j := range m.nodes {
		n := &m.nodes[j]
		if n.role != writer || n.semiOn {
			continue
		}
		at := commitAt(r, &m.hists[n.hist], n.offTarget)
		for f := range m.nodes {
			if fn := &m.nodes[f]; fn.src == n.hist && fn.storing() {
				next = min(next, at+fn.lag)
			}
		}
	}
	return next
}

// writes issues the writes of [a, b), over which nothing changes, and answers the waiting
// commits whose replica stores them before b.
func (m *Model) writes(a, b time.Duration) {
	r := m.cfg.Rate
	if r.Zero() {
		return
	}
	k0, k1 := min(r.First(a), m.limit), min(r.First(b), m.limit)
	if n := k1 - k0; n > 0 {
		w := m.app
		switch {
		case w < 0 || !m.takesWrites(w):
			if len(m.wait) > 0 {
				panic("repl: writes failed behind writes still waiting")
			}
			m.client.record(r, k0, n, false)
		case m.cfg.Mode == Async || !m.nodes[w].semiOn:
			h := &m.hists[m.nodes[w].hist]
			p0 := h.commit(k0, n)
			m.committed += n
			h.ack(k0, p0, n)
			m.client.record(r, k0, n, true)
		default:
			h := &m.hists[m.nodes[w].hist]
			p0 := h.commit(k0, n)
			m.committed += n
			m.enqueue(entry{k0: k0, p0: p0, n: n, hist: m.nodes[w].hist, delay: m.nodes[w].link.Delay})
		}
	}
	if len(m.wait) == 0 {
		return
	}
	// Every commit still waiting was made after what the replicas had stored at a: the first
	// replica to store it is the one with the shortest lag, lag after it was made.
	if lag, ok := m.streamLag(m.wait[0].hist); ok {
		kEnd := r.First(b - lag)
		m.resolve(func(e entry) int64 { return kEnd - e.k0 }, func(e entry) int64 {
			if lag+e.delay < m.cfg.Deadline {
				return e.k0
			}
			return math.MaxInt64
		})
	}
}

// takesWrites reports whether writer w commits the application's writes now.
func (m *Model) takesWrites(w int) bool {
	n := &m.nodes[w]
	return n.ready && n.link.takes(m.cfg.Deadline)
}

// streamLag returns the shortest lag among the replicas of history h that are storing; ok is
// false when none is.
func (m *Model) streamLag(h int) (lag time.Duration, ok bool) {
	for j := range m.nodes {
		if n := &m.nodes[j]; n.src == h && n.storing() && (!ok || n.lag < lag) {
			lag, ok = n.lag, true
		}
	}
	return lag, ok
}

// storedBy returns the highest position of history h some replica of it stored by instant x.
func (m *Model) storedBy(h int, x time.Duration) int64 {
	var s int64
	for j := range m.nodes {
		if n := &m.nodes[j]; n.role == replica && n.src == h {
			s = max(s, m.stored(j, x))
		}
	}
	return s
}

func (m *Model) enqueue(e entry) {
	if l := len(m.wait) - 1; l >= 0 {
		p := &m.wait[l]
		if p.k0+p.n == e.k0 && p.p0+p.n == e.p0 && p.hist == e.hist && p.delay == e.delay {
			p.n += e.n
			return
		}
	}
	m.wait = append(m.wait, e)
}

// answerStored answers, at instant c, the waiting commits at positions up to upto: each in time
// for its client if it was issued less than a deadline (less its reply's delay) before c.
func (m *Model) answerStored(c time.Duration, upto int64) {
	r := m.cfg.Rate
	m.resolve(func(e entry) int64 { return min(e.n, upto-e.p0+1) }, func(e entry) int64 {
		return r.First(c - m.cfg.Deadline + e.delay + 1)
	})
}

// drop fails every waiting commit: its reply will never reach its client. The commits stay
// made; nothing waits any more.
func (m *Model) drop() {
	m.resolve(func(e entry) int64 { return e.n }, func(entry) int64 { return math.MaxInt64 })
}

// resolve answers waiting commits in order: of each entry its first cut(e) writes (none left
// when it is <= 0), of which those from write ackFrom(e) on reach their client in time and the
// earlier ones fail.
func (m *Model) resolve(cut, ackFrom func(entry) int64) {
	r := m.cfg.Rate
	i := 0
	for ; i < len(m.wait); i++ {
		e := m.wait[i]
		n := min(e.n, cut(e))
		if n <= 0 {
			break
		}
		a := min(max(ackFrom(e), e.k0), e.k0+n)
		m.client.record(r, e.k0, a-e.k0, false)
		if k := e.k0 + n - a; k > 0 {
			m.hists[e.hist].ack(a, e.p0+a-e.k0, k)
			m.client.record(r, a, k, true)
		}
		if n < e.n {
			m.wait[i] = entry{k0: e.k0 + n, p0: e.p0 + n, n: e.n - n, hist: e.hist, delay: e.delay}
			break
		}
	}
	m.wait = append(m.wait[:0], m.wait[i:]...) // keeps the space: the wait is enqueued to again and again
}
