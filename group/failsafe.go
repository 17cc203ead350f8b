package group

// failsafe is the failsafe check of a tick: a live manager that is not primary counts one more
// tick in a row (up to the threshold), one that is primary starts again from 0; a database
// member's manager that reaches the threshold shuns its own datasource. A manager that is down
// counts nothing (its count went to 0 when it went down) and shuns nothing.
func (g *Group) failsafe() {
	for m := range g.running.All() {
		if g.digest[m].Primary() {
			g.streak[m] = 0
			continue
		}
		if g.streak[m] >= g.s.failsafe {
			continue
		}
		g.streak[m]++
		if g.streak[m] == g.s.failsafe && g.s.db.Has(m) {
			g.emit(FailsafeShun{At: g.now, Manager: m, Ticks: g.streak[m]})
		}
	}
}
