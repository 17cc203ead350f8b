package group

import (
	"fmt"
	"time"
)

// Group is the managers of one cluster as a group: each live manager's view and heartbeat-gap
// counts, its quorum check, the coordinators, the host pings, the failsafe counts, and which
// copy of the cluster state each member holds. Its zero value is not usable: call New.
type Group struct {
	s   settings
	now time.Duration
	net Net // the network now, one Host per member

	running Set      // the managers that run
	view    []Set    // per manager: its view; 0 while it is down
	gap     []int    // per manager m and member x, at m*n+x: x's heartbeat-gap count in m's view
	digest  []Digest // per manager: its last quorum check; the zero Digest while it is down
	streak  []int    // per manager: its non-primary ticks in a row, at most the failsafe threshold

	copy     []int // per member: the copy of the cluster state it holds (a down one: the last it held)
	nextCopy int   // the next new copy's number

	pinged   []Set // per coordinator: the database members missing from its view that it pinged
	answered []Set // per coordinator: those of them whose host answered

	sides  []side     // scratch for regroup
	counts []int      // scratch for agree, per member
	out    []Decision // decided since the last Ready
}

// New returns the group of cfg at the start: every host up on one segment, every manager
// running, every view everyone, every manager primary, all holding copy 0. Bad configuration
// (no database member, more than MaxMembers, a negative threshold) panics.
func New(cfg Config) *Group {
	s := settle(cfg)
	n := s.n
	g := &Group{
		s: s, net: make(Net, n), running: s.all,
		view: make([]Set, n), gap: make([]int, n*n), digest: make([]Digest, n), streak: make([]int, n),
		copy: make([]int, n), nextCopy: 1, counts: make([]int, n), pinged: make([]Set, n), answered: make([]Set, n),
	}
	for m := range n {
		g.view[m] = s.all
	}
	g.check()
	g.out = nil // the start is known: no decision about it
	return g
}

// Step tells the group that in happened at time at, which must not be before the previous
// step's. It decides at once; Ready hands out what it decided.
func (g *Group) Step(at time.Duration, in Input) {
	if at < g.now {
		panic(fmt.Sprintf("group: time went backwards: %v after %v", at, g.now))
	}
	g.now = at
	switch in := in.(type) {
	case SetNet:
		g.stepNet(in.Net)
	case Tick:
		g.stepTick()
	case Reping:
		for m := range g.pinged {
			g.pinged[m] &^= in.Members
			g.answered[m] &^= in.Members
		}
	default:
		panic("group: Step with a nil Input")
	}
}

// Ready returns the decisions made since the last call, oldest first, and forgets them. The
// slice is the caller's.
func (g *Group) Ready() []Decision {
	out := g.out
	g.out = nil
	return out
}

func (g *Group) emit(d Decision) { g.out = append(g.out, d) }

// stepNet is SetNet: store the network; stops and starts change views at once.
func (g *Group) stepNet(net Net) {
	switch len(net) {
	case 0:
		net = make(Net, g.s.n)
	case g.s.n:
		net = append(Net(nil), net...)
	default:
		panic(fmt.Sprintf("group: a Net of %d hosts for %d members", len(net), g.s.n))
	}
	g.net = net
	was := g.running
	g.running = 0
	for m, h := range net {
		if h.running() {
			g.running = g.running.With(m)
		}
	}
	gone := was &^ g.running
	started := g.running &^ was
	for m := range gone.All() {
		g.view[m] = 0
		g.clearGaps(m)
		g.digest[m] = Digest{}
		g.streak[m] = 0
		g.pinged[m], g.answered[m] = 0, 0
	}
	var stopped Set
	for m := range gone.All() {
		if net[m].Stopped && !net[m].Down {
			stopped = stopped.With(m)
		}
	}
	if stopped == 0 && started == 0 {
		return // a crash or a new segment is seen at the next tick
	}
	g.leave(stopped)
	g.start(started)
	for m := range g.running.All() {
		// A member back in the view is no longer missing: should it go missing again, it is
		// pinged anew (pingHosts), even if no tick came in between.
		g.pinged[m] &^= g.view[m]
		g.answered[m] &^= g.view[m]
	}
	g.regroup()
	g.check()
}

// stepTick is Tick.
func (g *Group) stepTick() {
	g.tickViews()
	g.regroup()
	g.check()
	g.pingHosts()
	g.failsafe()
}

// reach is the set of members whose hosts m's host reaches: up, on m's segment.
func (g *Group) reach(m int) Set {
	var s Set
	seg := g.net[m].Segment
	for x, h := range g.net {
		if !h.Down && h.Segment == seg {
			s = s.With(x)
		}
	}
	return s
}

// hears is the set of managers m hears now: running, on its segment (m itself included).
func (g *Group) hears(m int) Set { return g.reach(m) & g.running }

func (g *Group) gapOf(m, x int) int     { return g.gap[m*g.s.n+x] }
func (g *Group) setGap(m, x, count int) { g.gap[m*g.s.n+x] = count }

func (g *Group) clearGaps(m int) {
	clear(g.gap[m*g.s.n : (m+1)*g.s.n])
}
