package orchcore

import (
	"time"

	"github.com/failsim/failsim/orchestrator"
	"github.com/failsim/failsim/statemap"
)

// Step brings the machine to instant t, after the driver began it (its faults and the
// adapter's replication events at t are told): the replicas' I/O thread changes up to t, then
// each one-second tick up to t not yet run, a tick at t included. A tick reads the instances
// due, then analyses the master, then recovers it if its code says so. A settled spell (Next
// said none) is crossed at once: its reads all succeed and find nothing new.
func (m *Machine) Step(t time.Duration) {
	if m.err != nil {
		return
	}
	first := orchestrator.TickAtOrAfter(m.last+1, orchestrator.RecoveryPoll)
	if first > t {
		m.tellIO(t)
		return
	}
	if m.settled() {
		// Nothing changed since the last tick: jump to the last tick by t, each instance's
		// reads having gone on every InstancePollSeconds + 1 s.
		last := t / orchestrator.RecoveryPoll * orchestrator.RecoveryPoll
		period := m.cfg.Orchestrator.InstancePoll + orchestrator.HealthPoll
		for i := range m.nodes {
			k := &m.nodes[i].check
			if k.Checked < last {
				c := k.Checked + (last-k.Checked)/period*period
				if c == last {
					c -= period // the read at the tick itself is the tick's
				}
				*k = orchestrator.Check{Checked: c, Seen: c, Attempted: c}
			}
		}
		first = last
	}
	for tick := first; tick <= t && m.err == nil; tick += orchestrator.RecoveryPoll {
		m.tellIO(tick) // in time order: the changes by each tick before it
		m.tick(tick)
		m.last = tick
	}
	m.tellIO(t)
}

// before runs the ticks before t, under the world as it stood, before an input at t changes
// it: after a settled spell, the jump over it.
func (m *Machine) before(t time.Duration) {
	if m.err == nil && t > 0 {
		m.Step(t - 1)
	}
}

// tellIO tells the replicas' I/O thread changes up to t, in time order.
func (m *Machine) tellIO(t time.Duration) {
	for {
		best, at := -1, statemap.Never
		for i := range m.nodes {
			n := &m.nodes[i]
			if n.master >= 0 && n.told < len(n.changes) && n.changes[n.told].At <= t && n.changes[n.told].At < at {
				best, at = i, n.changes[n.told].At
			}
		}
		if best < 0 {
			return
		}
		n := &m.nodes[best]
		c := n.changes[n.told]
		n.told++
		for n.told < len(n.changes) && n.changes[n.told].At == c.At {
			c = n.changes[n.told] // changes at one instant: only where they end is told
			n.told++
		}
		if !n.stopped && c.Running != n.ioTold {
			n.ioTold = c.Running
			m.out = append(m.out, &IOThread{At: c.At, Node: best, Running: c.Running})
		}
		m.flow(c.At, best)
	}
}

// tick is the one-second tick at t: reads, the analysis, the recovery.
func (m *Machine) tick(t time.Duration) {
	c := m.cfg.Orchestrator
	for i := range m.nodes {
		m.read(t, i, false)
	}
	if m.master < 0 {
		return
	}
	a := m.analyse(t)
	if a.Code != m.code {
		m.code, m.told = a.Code, [2]int{-1, 0}
		m.out = append(m.out, &Analysed{At: t, Master: m.master, Analysis: a})
	}
	graceful := t < m.grace
	v := orchestrator.Decide(c, m.cfg.Cluster, a, t, m.recent, graceful)
	act := orchestrator.ActionOf(a.Code, graceful)
	switch {
	case v == orchestrator.Runs && act == orchestrator.RecoverMaster:
		m.recover(t, a.Code)
	case v == orchestrator.Runs && act == orchestrator.RegisterOnly:
		m.recent = orchestrator.Recent{Started: t, Any: true}
	case v != orchestrator.NotActed && v != orchestrator.Runs:
		if m.told != [2]int{int(a.Code), int(v)} {
			m.told = [2]int{int(a.Code), int(v)}
			m.out = append(m.out, &Recovered{At: t, Failed: m.master, Code: a.Code, Verdict: v, Promotion: orchestrator.Promotion{Node: -1}})
		}
	}
	// The emergent operations of the code (logic/topology_recovery.go:1769-1781), which run
	// beside the recovery: their reads end by the next tick's analysis.
	switch m.code {
	case orchestrator.UnreachableMaster:
		m.read(t, m.master, true)
		for i := range m.nodes {
			if m.nodes[i].master == m.master {
				m.read(t, i, true)
			}
		}
	case orchestrator.UnreachableMasterWithLaggingReplicas:
		if m.restart < 0 || t-m.restart > 30*time.Second { // :231, :1665
			m.restart, m.grace = t, t+orchestrator.EmergencyGrace
			for i := range m.nodes {
				if !m.cfg.MariaDBGTID && m.nodes[i].master == m.master && !m.nodes[i].stopped {
					m.reconnect(t, i)
				}
			}
			m.tellIO(t)
		}
	}
}

// read moves node i's read on at tick t: one under way notes that it hangs, ends when it fails
// or its fault heals; else one starts if due (emergent: at once, at most once a second).
func (m *Machine) read(t time.Duration, i int, emergent bool) {
	c := m.cfg.Orchestrator
	n := &m.nodes[i]
	pooled := n.pooled
	if n.reading {
		pooled = n.onPool
	}
	r, err := orchestrator.ReadUnder(c, m.reached(i), pooled)
	if err != nil {
		m.err = err
		return
	}
	if n.reading {
		switch {
		case r.OK: // healed during the read: the held bytes go through
			n.check = n.check.End(n.readStart, orchestrator.Read{OK: true, Took: t - n.readStart})
			n.reading, n.pooled = false, true
			m.found(t, i)
		default:
			n.check = n.check.Start(n.readStart, t)
			if t-n.readStart >= r.Took {
				n.check = n.check.End(n.readStart, orchestrator.Read{Took: t - n.readStart})
				n.reading, n.pooled = false, false // the driver closes a connection that timed out
			}
		}
		m.noteValid(t, i)
		return
	}
	due := orchestrator.NextRead(c, n.check.Checked, n.check.Attempted > n.check.Checked)
	if !emergent && t < due {
		return
	}
	n.readStart = t
	if r.OK {
		n.check = n.check.End(t, r)
		n.pooled = true
		m.found(t, i)
	} else if r.Took == 0 {
		n.check = n.check.End(t, r)
		n.pooled = false
	} else {
		n.reading, n.onPool = true, pooled
	}
	m.noteValid(t, i)
}

// found stores what a successful read of node i at t finds.
func (m *Machine) found(t time.Duration, i int) {
	n := &m.nodes[i]
	if n.master < 0 {
		return
	}
	n.io, n.sql = m.ioRunning(i, t), !n.stopped
	n.lag, n.lagKnown = 0, n.io
	switch {
	case m.cfg.Orchestrator.ReplicationLagQuery != "":
		// A heartbeat table's lag (pt-heartbeat, which ReplicationLagQuery reads): how far
		// behind the master's clock its last applied heartbeat is, known and growing while
		// replication is broken (docs/configuration-recovery.md:57).
		_, exec := m.position(i, t)
		n.lag, n.lagKnown = t-exec, true
	case n.io:
		n.lag = n.streamLag + n.applyLag + orchestrator.LagOf(m.path(i))
	}
}

// position is replica i's received and executed positions at t, as the master's time of the
// last event each holds: the stream delivers each event streamLag late until it stops
// (flowStop), and the SQL thread applies it applyLag later.
func (m *Machine) position(i int, t time.Duration) (recv, exec time.Duration) {
	n := &m.nodes[i]
	recv = min(t, n.flowStop) - n.streamLag
	exec = min(t-n.streamLag-n.applyLag, recv)
	return recv, exec
}

// noteValid tells of node i's last check turning valid or invalid.
func (m *Machine) noteValid(t time.Duration, i int) {
	n := &m.nodes[i]
	v := n.check.Valid(m.cfg.Orchestrator)
	if v != n.valid {
		n.valid = v
		m.out = append(m.out, &Checked{At: t, Node: i, Valid: v})
	}
}

// analyse is the master's analysis at t.
func (m *Machine) analyse(t time.Duration) orchestrator.Analysis {
	c := m.cfg.Orchestrator
	mk := m.nodes[m.master].check
	mr := orchestrator.MasterRead{LastCheckValid: mk.Valid(c), PartialSuccess: mk.Checked <= mk.Seen, Downtimed: m.down}
	rs := m.reads[:0]
	for i := range m.nodes {
		n := &m.nodes[i]
		if n.master != m.master || i == m.master {
			continue
		}
		rs = append(rs, orchestrator.ReplicaRead{
			Valid: n.check.Checked <= n.check.Seen, IORunning: n.io, SQLRunning: n.sql,
			Lag: n.lag / time.Second * time.Second, LagKnown: n.lagKnown,
		})
	}
	m.reads = rs
	return orchestrator.Analyze(mr, rs, c.ReasonableReplicationLag)
}

// recover runs a recovery of the dead master at t.
func (m *Machine) recover(t time.Duration, code orchestrator.Code) {
	m.recent = orchestrator.Recent{Started: t, Any: true}
	dc := m.dc(m.master)
	var cs []orchestrator.Candidate
	for i := range m.nodes {
		n := &m.nodes[i]
		if n.master != m.master || i == m.master {
			continue
		}
		recv, exec := m.position(i, t)
		rule := orchestrator.Neutral
		if i < len(m.cfg.Rules) {
			rule = m.cfg.Rules[i]
		}
		cs = append(cs, orchestrator.Candidate{
			Node: i, Valid: n.check.Valid(m.cfg.Orchestrator), Position: int64(exec), Rule: rule,
			DC: m.dc(i), Lag: n.lag, Unapplied: recv - exec,
		})
	}
	p := orchestrator.Promote(m.cfg.Orchestrator, dc, cs)
	failed := m.master
	m.out = append(m.out, &Recovered{At: t, Failed: failed, Code: code, Verdict: orchestrator.Runs, Promotion: p})
	m.told = [2]int{-1, 0}
	if p.Node < 0 {
		return
	}
	m.master = p.Node
	nm := &m.nodes[p.Node]
	nm.master, nm.spans, nm.changes, nm.told = -1, nm.spans[:0], nil, 0
	m.nodes[failed].master = -1
	for _, i := range p.Repointed {
		m.nodes[i].master = p.Node
		m.reconnect(t, i)
	}
	m.tellIO(t)
	// The regroup reads each replica it moves, and the promoted one.
	m.read(t, p.Node, true)
	for _, i := range p.Repointed {
		m.read(t, i, true)
	}
	for _, i := range p.Lost {
		m.nodes[i].master = -1
	}
	m.code = orchestrator.NoProblem
	m.out = append(m.out, &Analysed{At: t, Master: m.master, Analysis: m.analyse(t)})
	m.code = m.out[len(m.out)-1].(*Analysed).Code
}

func (m *Machine) dc(i int) string {
	if i >= 0 && i < len(m.cfg.DCs) {
		return m.cfg.DCs[i]
	}
	return ""
}
