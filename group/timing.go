package group

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/statemap"
)

// The arithmetic of the group's timing, in virtual time since the start (t=0). Ticks fall at
// 10 s, 20 s, ... (statemap.TickInterval); a time past what a Duration holds is statemap.Never.

// SeenAt returns the tick that first sees a change of the network made at t: t itself when t
// is a tick (at one instant the timeline's events come before the tick), else the next tick.
// A change at t <= 0 is first seen at 10 s.
func SeenAt(t time.Duration) time.Duration {
	if t > 0 && t%statemap.TickInterval == 0 {
		return t
	}
	return statemap.NextTick(t)
}

// LeavesAt returns when a member that fell silent at t (its host went down, or the network
// split it off) leaves the views of the managers that no longer hear it: at the gap-th tick
// that sees it silent, the tick its heartbeat-gap count reaches gap (>= 1). With the default
// 3, the third tick: 20 s after t when t is a tick, up to 30 s after when t just follows one.
// It is also when the side that keeps quorum is primary again and its coordinator host-pings
// the members that left.
func LeavesAt(t time.Duration, gap int) time.Duration { return nthTick(SeenAt(t), gap) }

// ShunsAt returns when a manager whose first non-primary tick in a row was first shuns its own
// datasource: at its failsafe-th non-primary tick (failsafe >= 1), if it is not primary again
// before.
func ShunsAt(first time.Duration, failsafe int) time.Duration { return nthTick(first, failsafe) }

// Split is the timing of a partition made at t that isolates a minority side (one that will
// not have quorum) from a majority side (one that will), every manager staying up, with the
// given thresholds. From SeenAt(t) no side is primary: each still has the other's members in
// its view, silent, so its membership is invalid.
type Split struct {
	Seen         time.Duration // the first tick that sees it: every side's first non-primary tick
	Leave        time.Duration // the silent members leave the views: the majority is primary again and its coordinator pings the minority's hosts (no answer: host-failed)
	MinorityShun time.Duration // the minority shuns its datasources (failsafe)
	// MajorityShuns: the majority's non-primary run (Seen up to the tick before Leave) reaches
	// the failsafe threshold, so it shuns its own datasources too, at MajorityShunAt: failsafe
	// < gap.
	MajorityShuns  bool
	MajorityShunAt time.Duration // statemap.Never when it does not shun
	// Window is how long a master isolated on the minority and a replica the majority
	// promotes at Leave are writable at once: from Leave to MinorityShun, 0 when they fall
	// on one tick (the majority's failover comes first within the tick, then the minority's
	// shun: a zero-length window) and when the minority shuns first.
	Window time.Duration
}

// SplitAt returns the timing of a partition made at t (see Split), gap and failsafe >= 1.
func SplitAt(t time.Duration, gap, failsafe int) Split {
	s := Split{Seen: SeenAt(t), Leave: LeavesAt(t, gap), MajorityShunAt: statemap.Never}
	s.MinorityShun = ShunsAt(s.Seen, failsafe)
	if failsafe < gap {
		s.MajorityShuns = true
		s.MajorityShunAt = s.MinorityShun
	}
	if s.MinorityShun > s.Leave {
		s.Window = s.MinorityShun - s.Leave
	}
	return s
}

// nthTick is the n-th tick counting tick first as the first (n >= 1), or statemap.Never past what
// a Duration holds.
func nthTick(first time.Duration, n int) time.Duration {
	if n < 1 {
		panic(fmt.Sprintf("group: a threshold of %d ticks", n))
	}
	if n == 1 {
		return first
	}
	return statemap.NthTick(first, int64(n-1))
}
