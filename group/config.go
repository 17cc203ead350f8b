package group

import "fmt"

// Member is one member of the group as configured: a database member (a manager with its own
// datasource, which it probes; only these count towards the simple majority), or an active
// witness (a manager with no database: never probed, never master, holding no datasource; it
// votes in quorum and can coordinate). The zero value is a database member with no name.
type Member struct {
	Name    string // used only by Digest.Lines
	Witness bool
}

// The default thresholds, in timekeeper ticks (10 s each).
const (
	DefaultGapThreshold      = 3 // a silent member leaves a view at its third silent tick
	DefaultFailsafeThreshold = 3 // a manager shuns its datasource at its third non-primary tick in a row
)

// Config is what a Group starts from.
type Config struct {
	// Members in the cluster line's order: database members and active witnesses, at least
	// one database member, at most MaxMembers in all. The order is the order of every rule
	// that picks a first member (the coordinator, the side that wins a merge) and of every
	// decision about several members.
	Members []Member
	// GapThreshold is the heartbeat-gap count, in ticks, at which a silent member leaves a
	// manager's view: 1 makes it leave at its first silent tick. 0 means DefaultGapThreshold.
	GapThreshold int
	// FailsafeThreshold is the number of non-primary ticks in a row after which a manager
	// shuns its own datasource. 0 means DefaultFailsafeThreshold.
	FailsafeThreshold int
}

// settings is a Config checked and with its defaults filled in.
type settings struct {
	n         int
	db        Set // the database members
	witnesses Set // the active witnesses
	all       Set
	names     []string
	gap       int
	failsafe  int
}

func settle(cfg Config) settings {
	n := len(cfg.Members)
	if n > MaxMembers {
		panic(fmt.Sprintf("group: %d members, at most %d", n, MaxMembers))
	}
	s := settings{n: n, gap: cfg.GapThreshold, failsafe: cfg.FailsafeThreshold, names: make([]string, n)}
	for i, m := range cfg.Members {
		if m.Witness {
			s.witnesses = s.witnesses.With(i)
		} else {
			s.db = s.db.With(i)
		}
		s.names[i] = m.Name
	}
	s.all = s.db | s.witnesses
	if s.db == 0 {
		panic("group: no database member")
	}
	if s.gap == 0 {
		s.gap = DefaultGapThreshold
	}
	if s.failsafe == 0 {
		s.failsafe = DefaultFailsafeThreshold
	}
	if s.gap < 0 || s.failsafe < 0 {
		panic(fmt.Sprintf("group: thresholds %d and %d", s.gap, s.failsafe))
	}
	return s
}
