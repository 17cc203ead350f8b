package group

// check runs the quorum check of every live manager. A check that concludes otherwise than the
// manager's last one (another view, other members validated, another rule) is told.
func (g *Group) check() {
	for m := range g.running.All() {
		d := Check(m, g.s.db, g.s.witnesses, g.view[m], g.validated(m), g.reach(m))
		old := g.digest[m]
		g.digest[m] = d
		if d.Primary() {
			g.streak[m] = 0 // its non-primary ticks in a row are broken
		}
		if d.Coordinator() != m {
			// No longer a coordinator: should it become one again, it pings anew what its
			// view misses (pingHosts), even if no tick is made in between.
			g.pinged[m], g.answered[m] = 0, 0
		}
		if d.View != old.View || d.Validated != old.Validated || d.Rule != old.Rule {
			g.emit(Quorum{At: g.now, Digest: d})
		}
	}
}

// validated is the set of members of m's view that answer its group-communication ping: those
// it hears that are in the same view (group communication delivers within an installed view).
// After a tick that is every member it hears; between ticks a manager that restarted elsewhere
// and is heard again before the next tick is in a view of its own, and does not answer.
func (g *Group) validated(m int) Set {
	var s Set
	for x := range (g.view[m] & g.hears(m)).All() {
		if g.view[x] == g.view[m] {
			s = s.With(x)
		}
	}
	return s
}
