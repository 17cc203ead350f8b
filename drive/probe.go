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

// prober is one node's probe schedule.
type prober struct {
	phase    phase
	seq      uint64             // the number of the probe under way: bumped by each start and when the manager stops, so a late outcome is known for stale
	started  time.Duration      // the last probe's start
	next     time.Duration      // idle: when the next probe may start
	finish   time.Duration      // done: when its outcome counts
	cond     statemap.Condition // done: its outcome
	foreseen Outcome            // what a probe started now would end in (Config.Foresee)
}

// at is when the node next needs the driver: its next start, its outcome's count, or never.
func (p *prober) at() time.Duration {
	switch p.phase {
	case idle:
		return p.next
	case done:
		return p.finish
	}
	return fence.Never
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
