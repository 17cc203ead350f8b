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

// start lets the managers that started join at once: on each segment that holds one, the
// running managers agree on one view at once, as at a tick but counting no silence (see
// agree). A started manager has no view and no counts of its own yet.
func (g *Group) start(started Set) {
	for m := range started.All() {
		g.view[m] = 0
		g.clearGaps(m)
	}
	for rest := started; rest != 0; {
		heard := g.hears(rest.First())
		rest &^= heard
		g.agree(heard, started, false)
	}
}

// tickViews is a tick's view update: on each segment, the running managers agree on one view
// (see agree), every silent member's count one more.
func (g *Group) tickViews() {
	for rest := g.running; rest != 0; {
		heard := g.hears(rest.First())
		rest &^= heard
		g.agree(heard, 0, true)
	}
}

// agree gives the managers heard (the running managers of one segment, who hear each other)
// one view, as group communication installs one view for all the members it connects: the
// members they hear, and each member that one of them still has in its view but none hears, at
// the lowest heartbeat-gap count any of them had for it, one more at a tick; at a tick, one
// whose count reaches the gap threshold leaves instead. started are the managers that have
// just started (their joins are told as such).
func (g *Group) agree(heard, started Set, tick bool) {
	var union Set
	for m := range heard.All() {
		union |= g.view[m]
	}
	view := heard
	var left Set
	count := g.counts // per silent member: its count in the agreed view
	for x := range (union &^ heard).All() {
		low := -1
		for m := range heard.All() {
			if g.view[m].Has(x) && (low < 0 || g.gapOf(m, x) < low) {
				low = g.gapOf(m, x)
			}
		}
		count[x] = low
		if tick {
			count[x]++
		}
		if count[x] >= g.s.gap {
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
				why := WhyHeard
				if started.Has(x) || started.Has(m) {
					why = WhyStarted
				}
				g.emit(Joined{At: g.now, Manager: m, Member: x, Why: why})
			case heard.Has(x) && g.gapOf(m, x) > 0:
				g.emit(HeardAgain{At: g.now, Manager: m, Member: x, Count: g.gapOf(m, x)})
			case view.Has(x) && !heard.Has(x) && (tick || !old.Has(x)):
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
