package group

// pingHosts is the host-liveness check of a tick: each coordinator host-pings every database
// member missing from its view. Its host answers when it is up and on the coordinator's
// segment. A ping is told when the member is pinged first since it went missing (or since the
// manager became coordinator) and whenever its answer changes.
func (g *Group) pingHosts() {
	for m := range g.running.All() {
		if g.digest[m].Coordinator() != m {
			g.pinged[m], g.answered[m] = 0, 0
			continue
		}
		missing := g.s.db &^ g.view[m]
		answers := missing & g.reach(m)
		for x := range missing.All() {
			if !g.pinged[m].Has(x) || g.answered[m].Has(x) != answers.Has(x) {
				g.emit(HostPing{At: g.now, Coordinator: m, Member: x, Answered: answers.Has(x)})
			}
		}
		g.pinged[m], g.answered[m] = missing, answers
	}
}
