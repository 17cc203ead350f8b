package group

// A side is the live managers that share one view, and so one copy of the cluster state: they
// change it only by their own decisions and those of their view's coordinator.
type side struct {
	view    Set // the view its members share
	members Set // its live managers
	sources []Source
	base    int // the copy it takes: its only source's, or the adopted one's
	keeps   int // rank for keeping base when several sides take it: lower keeps
}

// regroup gives each side the copy it holds after its members' views changed: a side whose
// members held one copy that no other side takes keeps it; views that merged take the copy
// the adoption rule adopts (Merged); a copy that several sides take stays with one of them, and the
// others fork a clone of it (Forked) or, when they merged, hold the merge as a new copy. The
// side that keeps a copy is the one holding its first holder that ran before this step (a
// manager that starts brings the copy it held when it went down, and must not take it from a
// running side), else the one holding its first member. Sides go in the order of their first
// members; a down member keeps the copy it held.
func (g *Group) regroup() {
	g.sides = g.sides[:0]
	for rest := g.running; rest != 0; {
		v := g.view[rest.First()]
		var members Set
		for m := range rest.All() {
			if g.view[m] == v {
				members = members.With(m)
			}
		}
		rest &^= members
		g.sides = append(g.sides, g.newSide(v, members))
	}
	for i := range g.sides {
		sd := &g.sides[i]
		c := sd.base
		if !g.keeps(i) {
			c = g.nextCopy
			g.nextCopy++
		}
		switch {
		case len(sd.sources) > 1:
			g.emit(Merged{At: g.now, Copy: c, Members: sd.members, Sources: sd.sources, Adopted: adopted(sd.sources)})
		case c != sd.base:
			g.emit(Forked{At: g.now, Copy: c, From: sd.base, Members: sd.members})
		}
		for m := range sd.members.All() {
			g.copy[m] = c
		}
	}
}

// keeps reports whether side i keeps its base copy: no other side taking the same copy ranks
// before it.
func (g *Group) keeps(i int) bool {
	for k := range g.sides {
		if k != i && g.sides[k].base == g.sides[i].base && g.sides[k].keeps < g.sides[i].keeps {
			return false
		}
	}
	return true
}

// newSide is the side of live managers members sharing view v: the copies they held, each
// primary when one of its holders here was (by its last quorum check; a manager that just
// started has none), and the copy it takes.
func (g *Group) newSide(v, members Set) side {
	sd := side{view: v, members: members, keeps: 2 * MaxMembers}
	for m := range members.All() {
		k := -1
		for i, s := range sd.sources {
			if s.Copy == g.copy[m] {
				k = i
			}
		}
		if k < 0 {
			sd.sources = append(sd.sources, Source{Copy: g.copy[m]})
			k = len(sd.sources) - 1
		}
		s := &sd.sources[k]
		s.Members = s.Members.With(m)
		s.Primary = s.Primary || g.digest[m].Primary()
	}
	sd.base = sd.sources[adopted(sd.sources)].Copy
	for m := range members.All() {
		if g.copy[m] != sd.base {
			continue
		}
		rank := MaxMembers + m // a holder that just started
		if g.digest[m].Rule != NoView {
			rank = m // a holder that ran before this step
		}
		sd.keeps = min(sd.keeps, rank)
	}
	return sd
}

// adopted is the index of the source whose copy merging views adopt (the adoption rule): the
// primary side's; between several primary sides, or when none was primary, the side of the
// first member in cluster order.
func adopted(sources []Source) int {
	k := 0
	for i, s := range sources[1:] {
		a := sources[k]
		if s.Primary != a.Primary {
			if s.Primary {
				k = i + 1
			}
			continue
		}
		if s.Members.First() < a.Members.First() {
			k = i + 1
		}
	}
	return k
}
