package orchestrator

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/fault"
)

// HealthPoll is HealthPollSeconds, a constant of Orchestrator's (config.go:44): the tick at
// which it looks for instances due a read (logic/orchestrator.go:493, :529-531, onHealthTick
// at :304-370).
const HealthPoll = time.Second

// RecoveryPoll is RecoveryPollSeconds, a constant (config.go:46): the tick at which it runs
// the failure analysis and any recovery (logic/orchestrator.go:497, :593-606).
const RecoveryPoll = time.Second

// AttemptMark is how long a read is under way before Orchestrator notes it as hanging
// (last_attempted_check = NOW()): one second, fixed (inst/instance_dao.go:352-354), whatever
// ReasonableInstanceCheckSeconds says.
const AttemptMark = time.Second

// EmergentReadBlock is how long an emergent read of an instance blocks another
// (logic/topology_recovery.go:230, :1601): one second.
const EmergentReadBlock = time.Second

// failsim runs Orchestrator's ticks at whole seconds of the run's clock (phase 0), Orchestrator
// having started long enough before the run that its first recoveries are not held back
// (logic/orchestrator.go:487, :505-507: none in the first 3 × InstancePollSeconds). Orchestrator
// stamps times with NOW() in whole seconds; at phase 0 every time it stamps is a tick or a
// whole number of seconds after one, so the arithmetic below is exact.

// TickAtOrAfter returns the first tick of period p (HealthPoll, RecoveryPoll) at or after t.
func TickAtOrAfter(t, p time.Duration) time.Duration {
	if t <= 0 {
		return 0
	}
	return (t + p - 1) / p * p
}

// NextRead is the health tick at which an instance is next due a read, given lastChecked (the
// time its last read ended, last_checked) and whether a read noted as hanging came after it
// (last_attempted_check > last_checked). ReadOutdatedInstanceKeys takes an instance whose
// last_checked is more than InstancePollSeconds old, or more than twice that when a hanging
// read was noted (inst/instance_dao.go:2386-2400): the first whole second after, so a healthy
// instance is read every InstancePollSeconds + 1 s.
func NextRead(c Config, lastChecked time.Duration, hung bool) time.Duration {
	wait := c.InstancePoll
	if hung {
		wait = 2 * c.InstancePoll
	}
	return TickAtOrAfter(lastChecked+wait+time.Nanosecond, HealthPoll)
}

// Read is how a read of an instance ends under the fault on its link, as Orchestrator's driver
// meets it (db/db.go:88-95: timeout=MySQLConnectTimeoutSeconds, the dial;
// readTimeout=MySQLDiscoveryReadTimeoutSeconds, every read from the server, its greeting
// included).
type Read struct {
	OK   bool          // the read succeeded (and took no time: failsim's healthy server answers at once)
	Took time.Duration // how long after its start it ended
}

// ReadUnder returns how a read under fault f ends, on the connection Orchestrator holds to the
// instance when pooled (it keeps up to MySQLTopologyMaxPoolConnections idle connections per
// instance and no lifetime by default, go/db/db.go:88-111: one read well since it was last
// read badly), else on a connection it dials: no fault, at once and fine; refuse, reset, close,
// error, unreachable and hostdown fail at once (a refused, reset or closed connection, an ERR
// packet, no route, host down); blackhole, on a pooled connection, at the read timeout
// (DiscoveryReadTimeout: the open connection's packets are dropped, and nothing tells the
// reader), on a dialled one at the dial timeout (ConnectTimeout, the SYN never answered);
// freeze at the read timeout (DiscoveryReadTimeout: the connect completes, the greeting never
// comes; a pooled connection hears nothing either); stall at the read timeout too (login works,
// the first query's reply never comes; the i/o timeout is unrecoverable,
// inst/instance_dao.go:231-243, so the read ends there). slow, delay, the toxics and probe are
// not modelled: an error names them. The live conformance test found the pooled blackhole: a
// partition of the managers' network made the real Orchestrator's read hang for 10 s, not 2.
func ReadUnder(c Config, f fault.Fault, pooled bool) (Read, error) {
	switch f.Kind {
	case fault.Heal:
		return Read{OK: true}, nil
	case fault.Refuse, fault.Reset, fault.Close, fault.Error, fault.Unreachable, fault.HostDown:
		return Read{}, nil
	case fault.Blackhole:
		if pooled {
			return Read{Took: c.DiscoveryReadTimeout}, nil
		}
		return Read{Took: c.ConnectTimeout}, nil
	case fault.Freeze, fault.Stall:
		return Read{Took: c.DiscoveryReadTimeout}, nil
	}
	return Read{}, fmt.Errorf("%s: failsim does not model how Orchestrator's read of an instance fares under this fault", f.Kind)
}

// Check is what Orchestrator has stamped of an instance: when its last read ended
// (last_checked), when it last succeeded (last_seen), when a read was last noted as hanging
// (last_attempted_check; a success stamps it too, inst/instance_dao.go:2805-2815 and
// writeInstance).
type Check struct {
	Checked, Seen, Attempted time.Duration
}

// Valid reports whether the instance's last check is valid (is_last_check_valid,
// inst/analysis_dao.go:159-162): its last read succeeded (last_checked <= last_seen) and no
// read was noted as hanging more than InstancePollSeconds + ReasonableInstanceCheckSeconds
// after its last success (ValidSecondsFromSeenToLastAttemptedCheck, inst/analysis.go:231-233).
func (k Check) Valid(c Config) bool {
	return k.Checked <= k.Seen && k.Attempted <= k.Seen+c.InstancePoll+c.ReasonableInstanceCheck
}

// Start is the check after a read starts at t and is under way until now (now >= t): past
// AttemptMark it is noted as hanging.
func (k Check) Start(t, now time.Duration) Check {
	if now-t >= AttemptMark {
		k.Attempted = max(k.Attempted, t+AttemptMark)
	}
	return k
}

// End is the check after a read that started at t ended as r.
func (k Check) End(t time.Duration, r Read) Check {
	end := t + r.Took
	if r.Took >= AttemptMark {
		k.Attempted = max(k.Attempted, t+AttemptMark)
	}
	k.Checked = end
	if r.OK {
		k.Seen, k.Attempted = end, end
	}
	return k
}

// InvalidFrom returns when the last check of an instance last read successfully at seen
// becomes invalid under a read that starts at start (> seen) and ends as r: at the read's end
// if it fails, or at start+AttemptMark if it is still under way then and that is more than
// InstancePollSeconds + ReasonableInstanceCheckSeconds after seen; ok is false if it stays
// valid.
func InvalidFrom(c Config, seen, start time.Duration, r Read) (at time.Duration, ok bool) {
	k := Check{Checked: seen, Seen: seen, Attempted: seen}
	if r.Took >= AttemptMark {
		if !k.Start(start, start+AttemptMark).Valid(c) {
			return start + AttemptMark, true
		}
	}
	if !r.OK {
		return start + r.Took, true
	}
	return 0, false
}

// MasterInvalidAfter is when the master's last check becomes invalid after fault f begins on
// its link at from, the master having been read at once and fine at seen (seen <= from, its
// reads due by NextRead): the first read due at or after from meets the fault (InvalidFrom) on
// the connection the good reads left pooled. ok is false if the fault does not fail a read
// (none).
func MasterInvalidAfter(c Config, seen, from time.Duration, f fault.Fault) (time.Duration, bool, error) {
	r, err := ReadUnder(c, f, true)
	if err != nil || r.OK {
		return 0, false, err
	}
	start := NextRead(c, seen, false)
	for start < from {
		start = NextRead(c, start, false)
	}
	at, ok := InvalidFrom(c, start-(c.InstancePoll+HealthPoll), start, r)
	return at, ok, nil
}
