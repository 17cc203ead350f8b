package orchestrator

import (
	"time"

	"github.com/failsim/failsim/fault"
)

// Detection is when Orchestrator's analysis sees a fault on the master's link that began at
// At: the first tick whose code is not NoProblem (the master's last check invalid), and the
// first DeadMaster, if any.
type Detection struct {
	At          time.Duration // when the fault began
	Unreachable time.Duration // the first tick with a problem code: the master's last check invalid
	Dead        time.Duration // the first DeadMaster tick; valid when DeadOK
	DeadOK      bool          // false: the replicas go on replicating, no DeadMaster ever
}

// DetectionOf is, in closed form, when Orchestrator with settings c detects fault f put on the
// master's link at at (> 0) and never healed, its replicas having settings r, healthy and in
// phase as failsim's machine starts them: every instance read at each multiple of
// InstancePollSeconds + 1 s, every replica connected at t=0 and hearing a heartbeat at each
// multiple of MASTER_HEARTBEAT_PERIOD.
//
//   - The first read that meets the fault starts at r0, the first read tick at or after at;
//     the master's last check turns invalid at mi (MasterInvalidAfter). A read that fails at
//     once makes mi the first problem code; a hanging one leaves the last good read's partial
//     success, under which the invalid check is NoProblem while the replicas replicate: the
//     first problem code is then at pi, the tick at or after the read fails.
//   - The replicas' I/O threads stop at s (at once for refuse, reset and close; the last
//     heartbeat plus slave_net_timeout for a silent link; never for one that stays up).
//   - Orchestrator sees them stopped at the first regular read at or after s, up to mi; after
//     pi the analysis is UnreachableMaster and each tick's emergent reads
//     (logic/topology_recovery.go:1773-1775) read them, counted at the next tick, and put off
//     their regular reads. DeadMaster is at the later of mi and that.
//
// An error names a fault that Orchestrator's read or the replicas' view does not model.
func DetectionOf(c Config, r Replica, f fault.Fault, at time.Duration) (Detection, error) {
	d := Detection{At: at}
	q := c.InstancePoll + HealthPoll
	r0 := TickAtOrAfter(at, q)
	mi, failed, err := MasterInvalidAfter(c, r0-q, at, f)
	if err != nil {
		return d, err
	}
	if err := Modelled(f); err != nil {
		return d, err
	}
	if !failed {
		return d, nil // a read that succeeds: nothing to detect
	}
	// The first problem code: a read that failed at once stored no partial success, so the
	// invalid check is UnreachableMaster (or worse) at once; a hanging read leaves the last
	// good read's last_check_partial_success (1, inst/instance_dao.go:2560), under which an
	// invalid master with replicating replicas is NoProblem (inst/analysis_dao.go:515-522)
	// until the read fails and stores none (:974), at the tick after.
	rd, _ := ReadUnder(c, f, true)
	pi := max(mi, TickAtOrAfter(r0+rd.Took, HealthPoll))
	d.Unreachable = pi
	var s time.Duration
	switch o, _, _ := behaviour(f); o {
	case stays:
		return d, nil
	case drops:
		s = at
	case silent:
		s = at/r.HeartbeatPeriod*r.HeartbeatPeriod + r.NetTimeout
	}
	seen := time.Duration(-1)
	for k := r0; k <= pi; k += q {
		if k >= s {
			seen = k
			break
		}
	}
	if seen < 0 {
		seen = TickAtOrAfter(max(s, pi), RecoveryPoll) + RecoveryPoll
	}
	d.Dead, d.DeadOK = max(mi, seen), true
	d.Unreachable = min(pi, d.Dead) // DeadMaster needs no partial success: it may come first
	return d, nil
}

// Bounds is the earliest and the latest of a detection's delays from the fault's start, over
// fault starts at every millisecond of one joint cycle of the reads and the heartbeats (in phase
// as DetectionOf says, the cycle being the least common multiple of InstancePollSeconds + 1 s and
// MASTER_HEARTBEAT_PERIOD, capped at an hour).
type Bounds struct {
	UnreachableMin, UnreachableMax time.Duration // to the first problem code
	DeadMin, DeadMax               time.Duration // to DeadMaster, when DeadEver
	DeadEver                       bool          // some fault start ends in DeadMaster (the kinds the model covers: then every one does)
}

// BoundsOf scans DetectionOf over a joint cycle for fault f; an error names a fault the model
// does not cover. ok is false for a fault no read fails under.
func BoundsOf(c Config, r Replica, f fault.Fault) (b Bounds, ok bool, err error) {
	q := c.InstancePoll + HealthPoll
	cycle := lcm(q, r.HeartbeatPeriod)
	if cycle <= 0 || cycle > time.Hour {
		cycle = time.Hour
	}
	first := true
	for at := 10 * cycle; at < 11*cycle; at += time.Millisecond {
		d, err := DetectionOf(c, r, f, at)
		if err != nil {
			return Bounds{}, false, err
		}
		if d.Unreachable == 0 {
			return Bounds{}, false, nil
		}
		u, x := d.Unreachable-at, d.Dead-at
		if first {
			b.UnreachableMin, b.UnreachableMax = u, u
		}
		b.UnreachableMin, b.UnreachableMax = min(b.UnreachableMin, u), max(b.UnreachableMax, u)
		if d.DeadOK {
			if !b.DeadEver {
				b.DeadMin, b.DeadMax, b.DeadEver = x, x, true
			}
			b.DeadMin, b.DeadMax = min(b.DeadMin, x), max(b.DeadMax, x)
		}
		first = false
	}
	return b, true, nil
}

// lcm is the least common multiple of a and b, in whole milliseconds.
func lcm(a, b time.Duration) time.Duration {
	x, y := int64(a/time.Millisecond), int64(b/time.Millisecond)
	if x <= 0 || y <= 0 {
		return 0
	}
	g, h := x, y
	for h != 0 {
		g, h = h, g%h
	}
	return time.Duration(x/g*y) * time.Millisecond
}
