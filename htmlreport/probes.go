package htmlreport

import (
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/statemap"
)

// probeRun is a run of n probes of one node, all ending in cond after took, started every step
// from first (step is max(interval, took): fence.NextProbeStart of a probe that took took).
type probeRun struct {
	first time.Duration
	step  time.Duration
	took  time.Duration
	n     int
	cond  statemap.Condition
}

// last returns the start of the run's last probe.
func (r probeRun) last() time.Duration { return r.first + time.Duration(r.n-1)*r.step }

// next returns when the probe after the run's last would start, had the run gone on.
func (r probeRun) next() time.Duration { return r.last() + r.step }

// probeSchedule works out every probe a driver would run for each of n nodes, as drive
// schedules them and the fault model foresees them, without the driver's shortcut of skipping
// the probes that change nothing: a node's probes start at t=0 and then at
// fence.NextProbeStart; the fault in force at a probe's start decides its outcome (foresee); a
// manager that stops, or whose host goes down, loses the probe under way and starts none until
// it runs again (started, on a host that is up), when one starts at once; the probes counted
// are those finished by end. A partition touches no probe: a manager probes its own database.
// Runs of identical outcomes come out as one probeRun, so that a day costs its changes, not
// its probes.
func probeSchedule(n int, interval time.Duration, script []act.Action, end time.Duration, foresee func(fault.Fault) act.Outcome) [][]probeRun {
	out := make([][]probeRun, n)
	for i := range out {
		s := nodeSchedule{interval: interval, o: foresee(fault.Fault{}), up: true}
		stopped, hostDown := false, false
		for k := range script {
			a := &script[k]
			if a.At > end {
				break
			}
			if a.Node != i {
				continue
			}
			switch a.Kind {
			case act.SetFault:
				s.advance(a.At)
				s.o = foresee(a.Fault)
				continue
			case act.ManagerDown:
				stopped = true
			case act.ManagerUp:
				stopped = false
			case act.HostDown:
				hostDown = true
			case act.HostUp:
				hostDown = false
			default:
				continue
			}
			s.advance(a.At)
			switch up := !stopped && !hostDown; {
			case !up && s.up:
				s.running, s.up = false, false // the probe under way is lost
			case up && !s.up:
				s.up, s.startAt = true, a.At
			}
		}
		s.advance(end + 1)
		out[i] = s.runs
	}
	return out
}

// nodeSchedule is one node's probes as probeSchedule works them out.
type nodeSchedule struct {
	interval time.Duration
	o        act.Outcome   // what a probe started now ends in
	up       bool          // the manager is up
	startAt  time.Duration // up and not running: the next probe's start
	running  bool          // a probe is under way
	rs       time.Duration // its start
	ro       act.Outcome   // its outcome
	runs     []probeRun
}

// advance runs the node's probes up to, not including, instant a: every probe that starts
// before a, and every outcome that counts before it. A probe started before a and finishing at
// or after it stays under way.
func (s *nodeSchedule) advance(a time.Duration) {
	for {
		if s.running {
			if s.rs+s.ro.Took >= a {
				return
			}
			s.running = false
			s.add(s.rs, s.ro, 1)
			s.startAt = max(s.rs+s.interval, s.rs+s.ro.Took)
			continue
		}
		if !s.up || s.startAt >= a {
			return
		}
		// Every probe from startAt to a ends as o: all but the last finish before the next
		// starts, so before a.
		step := max(s.interval, s.o.Took)
		n := int64((a - s.startAt + step - 1) / step)
		if n > 1 {
			s.add(s.startAt, s.o, n-1)
		}
		s.running, s.rs, s.ro = true, s.startAt+time.Duration(n-1)*step, s.o
	}
}

// add appends n probes started every step from first, each ending as o, to the runs.
func (s *nodeSchedule) add(first time.Duration, o act.Outcome, n int64) {
	step := max(s.interval, o.Took)
	if k := len(s.runs) - 1; k >= 0 {
		r := &s.runs[k]
		if r.cond == o.Condition && r.took == o.Took && r.step == step && r.next() == first {
			r.n += int(n)
			return
		}
	}
	s.runs = append(s.runs, probeRun{first: first, step: step, took: o.Took, n: int(n), cond: o.Condition})
}
