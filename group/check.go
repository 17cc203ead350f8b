package group

// check runs the quorum check of every live manager: its view, validated by the managers it
// hears now. A check that concludes otherwise than the manager's last one (another view,
// other members validated, another rule) is told.
func (g *Group) check() {
	for m := range g.running.All() {
		d := Check(m, g.s.db, g.s.witnesses, g.view[m], g.view[m]&g.hears(m), g.reach(m))
		old := g.digest[m]
		g.digest[m] = d
		if d.View != old.View || d.Validated != old.Validated || d.Rule != old.Rule {
			g.emit(Quorum{At: g.now, Digest: d})
		}
	}
}
