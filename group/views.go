package group

// leave removes the managers that stopped cleanly from every view at once.
func (g *Group) leave(stopped Set) {
	if stopped == 0 {
		return
	}
	for m := range g.running.All() {
		for x := range (g.view[m] & stopped).All() {
			g.view[m] = g.view[m].Without(x)
			g.setGap(m, x, 0)
			g.emit(Left{At: g.now, Manager: m, Member: x, Why: WhyStopped})
		}
	}
}

// start gives each manager that started its view at once, in cluster order: the view of the
// first manager it reaches that already has one (with that manager's counts), itself added; or
// itself alone. Every manager it reaches adds it (or clears its count, when it was silent there
// and had not left yet). was is the set of managers that ran before.
func (g *Group) start(started, was Set) {
	have := was & g.running // the managers that have a view
	for st := range started.All() {
		others := g.hears(st) & have
		g.clearGaps(st)
		g.view[st] = SetOf(st)
		if f := others.First(); f >= 0 {
			g.view[st] = g.view[f].With(st)
			for x := range g.view[f].All() {
				g.setGap(st, x, g.gapOf(f, x))
			}
			g.setGap(st, st, 0)
		}
		for o := range others.All() {
			switch {
			case !g.view[o].Has(st):
				g.view[o] = g.view[o].With(st)
				g.emit(Joined{At: g.now, Manager: o, Member: st, Why: WhyStarted})
			case g.gapOf(o, st) > 0:
				g.emit(HeardAgain{At: g.now, Manager: o, Member: st, Count: g.gapOf(o, st)})
			}
			g.setGap(o, st, 0)
		}
		for x := range g.view[st].Without(st).All() {
			g.emit(Joined{At: g.now, Manager: st, Member: x, Why: WhyStarted})
		}
		have = have.With(st)
	}
}

// tickViews is a tick's view update. The managers that hear each other (the running managers
// of one segment) agree on one view, as group communication installs one view for all the
// members it connects: the members they hear, and each member that one of them still has in
// its view but none hears, its heartbeat-gap count one more than the lowest any of them had
// for it; at the gap threshold it leaves instead.
func (g *Group) tickViews() {
	for rest := g.running; rest != 0; {
		heard := g.hears(rest.First())
		rest &^= heard
		var union Set
		for m := range heard.All() {
			union |= g.view[m]
		}
		view := heard
		var left Set
		count := g.counts // per silent member: its new count
		for x := range (union &^ heard).All() {
			low := -1
			for m := range heard.All() {
				if g.view[m].Has(x) && (low < 0 || g.gapOf(m, x) < low) {
					low = g.gapOf(m, x)
				}
			}
			count[x] = low + 1
			if low+1 >= g.s.gap {
				left = left.With(x)
			} else {
				view = view.With(x)
			}
		}
		for m := range heard.All() {
			old := g.view[m]
			for x := range (old | view).Without(m).All() {
				switch {
				case heard.Has(x) && !old.Has(x):
					g.emit(Joined{At: g.now, Manager: m, Member: x, Why: WhyHeard})
				case heard.Has(x) && g.gapOf(m, x) > 0:
					g.emit(HeardAgain{At: g.now, Manager: m, Member: x, Count: g.gapOf(m, x)})
				case view.Has(x) && !heard.Has(x):
					g.emit(Silent{At: g.now, Manager: m, Member: x, Count: count[x], Threshold: g.s.gap})
				case left.Has(x) && old.Has(x):
					g.emit(Left{At: g.now, Manager: m, Member: x, Why: WhySilent, Count: count[x]})
				}
			}
			g.view[m] = view
			g.clearGaps(m)
			for x := range (view &^ heard).All() {
				g.setGap(m, x, count[x])
			}
		}
	}
}
