package group

// The views below read the group between steps and change nothing it decides. A member index
// out of range panics.

// Members is the number of members, database members and witnesses.
func (g *Group) Members() int { return g.s.n }

// DB is the set of database members.
func (g *Group) DB() Set { return g.s.db }

// Witnesses is the set of active witnesses.
func (g *Group) Witnesses() Set { return g.s.witnesses }

// Running is the set of managers that run.
func (g *Group) Running() Set { return g.running }

// Up reports whether manager m runs.
func (g *Group) Up(m int) bool { return g.running.Has(g.member(m)) }

// View is manager m's view, the empty set while it is down.
func (g *Group) View(m int) Set { return g.view[g.member(m)] }

// InView reports whether member x is in manager m's view: for a coordinator m, whether x is in
// its candidate pool (a failover's candidate comes from the coordinator's view).
func (g *Group) InView(m, x int) bool { return g.View(m).Has(x) }

// Digest is manager m's last quorum check; the zero Digest (Rule NoView) while it is down.
func (g *Group) Digest(m int) Digest { return g.digest[g.member(m)] }

// Primary reports whether manager m's view is primary. A manager that is down: false.
func (g *Group) Primary(m int) bool { return g.Digest(m).Primary() }

// Coordinator is the coordinator of manager m's view: its first member in cluster order when
// the view is primary, else -1 (and -1 while m is down). Only a coordinator fences; every
// member of its view names it, and it names itself. Like Primary it is the conclusion of the
// last check: between two ticks it may name a manager whose host has gone down since (Up says
// so), which fences nothing; the next tick sees it silent and the view invalid.
func (g *Group) Coordinator(m int) int { return g.Digest(m).Coordinator() }

// PrimaryViews are the primary views, each once, in the order of their first members: one
// when the cluster is whole, none when no side has quorum, two or more when the quorum rule
// makes several sides of a partition primary.
func (g *Group) PrimaryViews() []Set {
	var out []Set
	for m := range g.running.All() {
		if d := g.digest[m]; d.Coordinator() == m {
			out = append(out, d.View)
		}
	}
	return out
}

// Copy is the copy of the cluster state member m holds: the one its side shares, or for a
// member whose manager is down the last one it held. Copies are numbered from 0 (everyone's at
// the start) in the order Forked and Merged made them; a copy no member holds any longer is
// never named again.
func (g *Group) Copy(m int) int { return g.copy[g.member(m)] }

// Side is one side: the live managers that share a view, and with it a copy of the cluster
// state.
type Side struct {
	Members     Set  // its live managers
	View        Set  // the view they share
	Copy        int  // the copy they hold
	Primary     bool // the view is primary
	Coordinator int  // the view's coordinator, -1 when it is not primary
}

// Sides are the sides, in the order of their first members.
func (g *Group) Sides() []Side {
	var out []Side
	for rest := g.running; rest != 0; {
		first := rest.First()
		sd := Side{View: g.view[first], Copy: g.copy[first], Primary: g.digest[first].Primary(), Coordinator: g.digest[first].Coordinator()}
		for m := range rest.All() {
			if g.view[m] == sd.View {
				sd.Members = sd.Members.With(m)
			}
		}
		rest &^= sd.Members
		out = append(out, sd)
	}
	return out
}

// Silent is member x's heartbeat-gap count in manager m's view: 0 when m hears it (or it is
// not in the view, or m is down).
func (g *Group) Silent(m, x int) int { return g.gapOf(g.member(m), g.member(x)) }

// NonPrimaryTicks is manager m's count of non-primary ticks in a row, at most the failsafe
// threshold (it stops counting there); 0 while it is primary or down.
func (g *Group) NonPrimaryTicks(m int) int { return g.streak[g.member(m)] }

// Steady reports whether a tick would decide nothing and change nothing these views read, the
// network staying as it is: no member is silent in any view, every manager's last check saw
// the network as it is, every coordinator has pinged what
// its view is missing, and every manager that is not primary has counted up to the failsafe
// threshold. A driver may leave such ticks out until the network changes.
func (g *Group) Steady() bool { return g.steady(false) }

// Quiet is Steady, except that a coordinator may still have to ping members missing from its
// view whose hosts would all answer (managers stopped cleanly, hosts up): such a tick decides
// nothing that fences (its HostPing decisions all say Answered) and leaves every view, check
// and copy as it is. A driver that acts only on the pings that fence may leave out such ticks
// too: a replay in which managers only stop and start cleanly then pays for no tick of the
// group's.
func (g *Group) Quiet() bool { return g.steady(true) }

func (g *Group) steady(quiet bool) bool {
	for m := range g.running.All() {
		if g.view[m] != g.hears(m) {
			return false
		}
		for x := range g.view[m].All() {
			if g.gapOf(m, x) > 0 {
				return false // heard again, its count not yet cleared
			}
		}
		d := g.digest[m]
		if d.Validated != g.validated(m) || d.Reachable != g.reach(m) {
			return false // the last check was made on another network
		}
		if !d.Primary() && g.streak[m] < g.s.failsafe {
			return false
		}
		if d.Coordinator() != m {
			continue
		}
		missing := g.s.db &^ g.view[m]
		if quiet {
			if unanswered := missing &^ g.reach(m); g.pinged[m]&^g.answered[m] != unanswered {
				return false // a ping that fences is still to come
			}
			continue
		}
		if g.pinged[m] != missing || g.answered[m] != missing&g.reach(m) {
			return false
		}
	}
	return true
}

func (g *Group) member(m int) int {
	if m < 0 || m >= g.s.n {
		panic("group: member out of range")
	}
	return m
}
