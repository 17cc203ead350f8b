package proxy

import (
	"hash/fnv"
	"io"
	"math/rand/v2"
	"time"

	"github.com/failsim/failsim/fault"
)

// A node's chain of toxics is one fault to its connections. The node holds the chain (its
// toxics and their faults); each connection binds it (bound): it draws each toxic's toxicity
// once, makes its own instance of each toxic that keeps state per connection (limit_data's
// count, timeout's timer, the draws of latency's jitter and slicer's cuts), and asks its
// members at each step as it would ask one fault: the first member that does not pass a
// set-up, login or command decides it; a direction is held while any member holds it; the
// bytes of a direction go through every member that shapes it, in the chain's order, but
// latency and delay, whose delays add up into the connection's one line per direction and
// act first (fault_delay.go), whatever their place.

// chain is a node's toxics and their faults, immutable once made.
type chain struct {
	toxics []Toxic
	revs   []uint64    // per toxic: its revision; a connection redraws a toxic whose revision changed
	faults []wireFault // per toxic: its fault; a perConn one is copied for each connection
}

// newChain makes the chain of list, whose toxics have been validated.
func newChain(list []Toxic, revs []uint64) *chain {
	ch := &chain{toxics: list, revs: revs, faults: make([]wireFault, len(list))}
	for i, t := range list {
		ch.faults[i] = toxicFault(t.Fault)
	}
	return ch
}

// kind reports the kind of the chain's first toxic (a chain is never empty).
func (ch *chain) kind() fault.Kind { return ch.toxics[0].Fault.Kind }

// toxicFault is the fault that applies f as a toxic of a chain: toxiproxy's toxics' own, or
// the fault of f's mode for failsim's.
func toxicFault(f fault.Fault) wireFault {
	switch f.Kind {
	case fault.Latency:
		return &latency{f: f}
	case fault.Bandwidth:
		return &bandwidth{f: f}
	case fault.SlowClose:
		return slowClose{f: f}
	case fault.Timeout:
		return &timeout{f: f}
	case fault.ResetPeer:
		return resetPeer{f: f}
	case fault.Slicer:
		return &slicer{f: f}
	case fault.LimitData:
		return &limitData{f: f}
	}
	return hooksFor(Mode{Fault: f})
}

// perConn is a toxic with state of its own on each connection: fresh returns its instance for
// a connection, whose draws come from rng, taking over the state of old (the instance of the
// same toxic before an update; nil for a new one) where toxiproxy keeps it.
type perConn interface {
	fresh(rng *rand.Rand, old wireFault) wireFault
}

// begins is a toxic instance that starts something of its own once bound on a connection
// (timeout's timer): begin is called after the binding, outside the connection's lock.
type begins interface {
	begin(c *conn)
}

// ends is a toxic instance that must let go of what it holds (a timer) when it leaves the
// connection: removed says whether the toxic was removed from the chain (then timeout closes
// the connection, as toxiproxy's Cleanup does) or the connection itself ended.
type ends interface {
	finish(c *conn, removed bool)
}

// onEnd is a fault that acts when the stream of a direction ends with a FIN, before it is
// passed on: it reports whether the FIN goes on (false: the fault took the connection down).
type onEnd interface {
	end(c *conn, d direction, w waiter) bool
}

// latent is a toxic that makes the bytes of a direction late by a delay it returns, drawn per
// chunk (latency's jitter); ok false when it does not act on d.
type latent interface {
	lateBy(d direction) (time.Duration, bool)
}

// bound is a chain bound to one connection: the faults it applies there.
type bound struct {
	ch   *chain
	on   []bool      // per toxic: its toxicity draw came up: it acts on this connection
	inst []wireFault // per toxic: its instance on this connection
	// fresh lists the instances made by this binding, to begin outside the lock.
	fresh []begins
}

// bind binds ch to c, under c.mu. A toxic that prev (c's binding before, if any) had at the
// same revision keeps its draw and instance; an updated one draws again and takes over its
// state; a new one draws and starts fresh.
func (ch *chain) bind(c *conn, prev wireFault) *bound {
	pb, _ := prev.(*bound)
	b := &bound{ch: ch, on: make([]bool, len(ch.toxics)), inst: make([]wireFault, len(ch.toxics))}
	for i, t := range ch.toxics {
		j := -1
		if pb != nil {
			for k, pt := range pb.ch.toxics {
				if pt.Name == t.Name && pt.Type == t.Type {
					j = k
					break
				}
			}
		}
		if j >= 0 && pb.ch.revs[j] == ch.revs[i] {
			b.on[i], b.inst[i] = pb.on[j], pb.inst[j]
			continue
		}
		b.on[i] = c.drawToxicity(t.Toxicity)
		b.inst[i] = ch.faults[i]
		if p, ok := ch.faults[i].(perConn); ok {
			var old wireFault
			if j >= 0 {
				old = pb.inst[j]
			}
			b.inst[i] = p.fresh(c.toxicRand(t.Name), old)
			if s, ok := b.inst[i].(begins); ok && b.on[i] {
				b.fresh = append(b.fresh, s)
			}
		}
	}
	return b
}

// drawToxicity draws whether a toxic of toxicity p acts on the connection, under c.mu. A
// toxicity of 1 or 0 draws nothing, so that a chain of certain toxics leaves the source alone.
func (c *conn) drawToxicity(p float64) bool {
	switch {
	case p >= 1:
		return true
	case p <= 0:
		return false
	}
	if c.toxRng == nil {
		c.toxRng = rand.New(rand.NewPCG(c.n.p.seed^toxicitySalt, c.n.seedHi^c.seq))
	}
	return c.toxRng.Float64() < p
}

// The salts that keep a connection's sources apart: toxicity draws, and each toxic's own.
const (
	toxicitySalt = 0x746f786963697479 // "toxicity"
	toxicSalt    = 0x746f786963000000 // "toxic"
)

// toxicRand returns the seeded source of the toxic called name on this connection: the same
// proxy seed, node, connection number and toxic name give the same draws.
func (c *conn) toxicRand(name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(c.n.p.seed^toxicSalt^h.Sum64(), c.n.seedHi^c.seq))
}

// unbound is setMode's epilogue, outside the connection's lock: the instances of next that
// are new begin when the mode acts at once (an armed one begins them when its trigger fires,
// through onStart), and those of prev that next no longer holds finish, removed.
func unbound(c *conn, prev, next wireFault, now bool) {
	if nb, ok := next.(*bound); ok {
		if now {
			for _, s := range nb.fresh {
				s.begin(c)
			}
		}
		nb.fresh = nil
	}
	pb, ok := prev.(*bound)
	if !ok {
		return
	}
	nb, _ := next.(*bound)
	for i, inst := range pb.inst {
		e, ok := inst.(ends)
		if !ok || !pb.on[i] || (nb != nil && nb.applies(inst)) {
			continue
		}
		e.finish(c, true)
	}
}

// applies reports whether b applies inst.
func (b *bound) applies(inst wireFault) bool {
	for _, x := range b.inst {
		if x == inst {
			return true
		}
	}
	return false
}

// finishAll lets every instance of the connection's binding go: the connection ended.
func (c *conn) finishAll() {
	c.mu.Lock()
	b, ok := c.hooks.(*bound)
	c.mu.Unlock()
	if !ok {
		return
	}
	for i, inst := range b.inst {
		if e, ok := inst.(ends); ok && b.on[i] {
			e.finish(c, false)
		}
	}
}

// kind reports the kind of the binding's first acting toxic, heal when none acts.
func (b *bound) kind() fault.Kind {
	for i, on := range b.on {
		if on {
			return b.ch.toxics[i].Fault.Kind
		}
	}
	return fault.Heal
}

// each calls f with every acting instance in the chain's order until f returns false.
func (b *bound) each(f func(wireFault) bool) {
	for i, inst := range b.inst {
		if b.on[i] && !f(inst) {
			return
		}
	}
}

// first asks the acting members in order through ask, which reports false for a member
// without the hook; the first verdict that is not pass decides.
func (b *bound) first(ask func(wireFault) (verdict, bool)) verdict {
	v := pass
	b.each(func(f wireFault) bool {
		if got, ok := ask(f); ok {
			v = got
		}
		return v == pass
	})
	return v
}

func (b *bound) connect(c *conn) verdict {
	return b.first(func(f wireFault) (verdict, bool) {
		h, ok := f.(onConnect)
		if !ok {
			return pass, false
		}
		return h.connect(c), true
	})
}

func (b *bound) login(c *conn, st packetStart) verdict {
	return b.first(func(f wireFault) (verdict, bool) {
		h, ok := f.(onLogin)
		if !ok {
			return pass, false
		}
		return h.login(c, st), true
	})
}

func (b *bound) command(c *conn, st packetStart) verdict {
	return b.first(func(f wireFault) (verdict, bool) {
		h, ok := f.(onCommand)
		if !ok {
			return pass, false
		}
		return h.command(c, st), true
	})
}

func (b *bound) start(c *conn, triggered bool) {
	b.each(func(f wireFault) bool {
		if h, ok := f.(onStart); ok {
			h.start(c, triggered)
		}
		return !c.isDone()
	})
}

func (b *bound) end(c *conn, d direction, w waiter) bool {
	goOn := true
	b.each(func(f wireFault) bool {
		if h, ok := f.(onEnd); ok {
			goOn = h.end(c, d, w)
		}
		return goOn
	})
	return goOn
}

func (b *bound) holds(d direction) bool {
	held := false
	b.each(func(f wireFault) bool {
		if h, ok := f.(holdsBytes); ok && h.holds(d) {
			held = true
		}
		return !held
	})
	return held
}

func (b *bound) shapes(d direction) bool {
	shaped := false
	b.each(func(f wireFault) bool {
		if s, ok := f.(shapesBytes); ok && s.shapes(d) {
			shaped = true
		}
		return !shaped
	})
	return shaped
}

// queues marks the binding as a shaper that orders its own writes: write queues when a
// member makes the direction late, and otherwise waits for the line itself.
func (b *bound) queues() {}

// write sends p through the members that shape direction d: onto the line, late by the sum of
// the latent members' delays, when any acts on d (the line then writes it through the rest,
// tail below); else through the shapers in order.
func (b *bound) write(c *conn, d direction, w io.Writer, p []byte) error {
	var late time.Duration
	latentActs := false
	b.each(func(f wireFault) bool {
		if l, ok := f.(latent); ok {
			if by, acts := l.lateBy(d); acts {
				late += by
				latentActs = true
				c.injected(f.kind())
			}
		}
		return true
	})
	if latentActs {
		due := c.n.p.clock.Now().Add(late)
		return c.lineFor(d, w).push(c, chunk{due: due, p: append([]byte(nil), p...)})
	}
	if !c.drained(d) {
		return errConnDone
	}
	return b.shape(c, d, w, p, 0)
}

// shape writes p to w through the members from index i on that shape direction d and are not
// latent.
func (b *bound) shape(c *conn, d direction, w io.Writer, p []byte, i int) error {
	for ; i < len(b.inst); i++ {
		if !b.on[i] {
			continue
		}
		if _, ok := b.inst[i].(latent); ok {
			continue
		}
		if s, ok := b.inst[i].(shapesBytes); ok && s.shapes(d) {
			return s.write(c, d, stage{b: b, c: c, d: d, w: w, i: i + 1}, p)
		}
	}
	_, err := w.Write(p)
	return err
}

// stage is the rest of a binding's shapers, from index i, as the writer a shaper writes to.
type stage struct {
	b *bound
	c *conn
	d direction
	w io.Writer
	i int
}

func (s stage) Write(p []byte) (int, error) {
	if err := s.b.shape(s.c, s.d, s.w, p, s.i); err != nil {
		return 0, err
	}
	return len(p), nil
}

// tail is what a connection's line writes to: the shapers that are not latent of whatever
// binding the connection has when the chunk is due, then w. Without a binding it is w.
type tail struct {
	c *conn
	d direction
	w io.Writer
}

func (t tail) Write(p []byte) (int, error) {
	f, active, _ := t.c.state()
	if b, ok := f.(*bound); ok && active {
		if err := b.shape(t.c, t.d, t.w, p, 0); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return t.w.Write(p)
}

// dirOf is the direction of a toxic's stream.
func dirOf(s fault.Stream) direction {
	if s == fault.Upstream {
		return dirUp
	}
	return dirDown
}
