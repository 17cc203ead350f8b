package drive

import (
	"time"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
)

// phase is where a node's probing stands.
type phase uint8

const (
	idle    phase = iota // no probe under way: the next starts at next
	running              // a probe is under way; its outcome is not known yet
	done                 // its outcome is known: it counts at finish
	down                 // the manager is down: no probes
)

// prober is one node's probe schedule. Change its phase with set, which keeps at.
type prober struct {
	at       time.Duration // when the node next needs the driver: next when idle, finish when done, else Never
	phase    phase
	seq      uint64             // the number of the probe under way: bumped by each start and when the manager stops, so a late outcome is known for stale
	started  time.Duration      // the last probe's start
	next     time.Duration      // idle: when the next probe may start
	finish   time.Duration      // done: when its outcome counts
	cond     statemap.Condition // done: its outcome
	foreseen Outcome            // what a probe started now would end in (Config.Foresee)
}

// set puts the probe schedule in phase ph, with the time that phase waits for: the next start
// when idle, the outcome's count when done; ignored otherwise.
func (p *prober) set(ph phase, at time.Duration) {
	p.phase = ph
	switch ph {
	case idle:
		p.next, p.at = at, at
	case done:
		p.finish, p.at = at, at
	default:
		p.at = fence.Never
	}
}

// Start is a probe the adapter must start: node Node's, at instant At. Hand it back to Report
// with the probe's outcome. The zero value is no probe.
type Start struct {
	Node int
	At   time.Duration
	seq  uint64
}

// FaultChange is a fault the adapter must make real before it starts the instant's probes: node
// Node's link gets Fault (the live runtime sets its proxy; the simulator changes what the
// node's probes will end in).
type FaultChange struct {
	Node  int
	Fault fault.Fault
}
