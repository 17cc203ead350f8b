package orchcore

import (
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/orchestrator"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/statemap"
)

// Config sets up a Machine.
type Config struct {
	Orchestrator orchestrator.Config  // Orchestrator's settings (orchestrator.Parse, or Defaults)
	Replica      orchestrator.Replica // every replica's replication settings (orchestrator.DefaultReplica)
	Nodes        int                  // the number of nodes; > 0
	Master       int                  // the master at t=0, -1 for none; every other node replicates from it
	Cluster      orchestrator.Cluster // what RecoverMasterClusterFilters match
	Rules        []orchestrator.Rule  // per node, its promotion rule; nil or short: neutral
	DCs          []string             // per node, its data centre; nil or short: ""
	End          time.Duration        // the run's last instant: the replicas' view is worked out up to it
	// MariaDBGTID: the replicas replicate with MariaDB's GTID, as failsim's live cluster does
	// (MASTER_USE_GTID=slave_pos). Orchestrator then does not restart their I/O threads under
	// UnreachableMasterWithLaggingReplicas, which would lose their relay logs
	// (logic/topology_recovery.go:1634-1643, openark/orchestrator#1260); it still holds back a
	// DeadMaster recovery for EmergencyGrace.
	MariaDBGTID bool
	// Near, when NearOK, is the member (a node, or a witness after the nodes, as
	// act.Action.Segments counts them) whose network segment Orchestrator's host is on during a
	// partition. Without NearOK (the zero value) Orchestrator reaches every node whatever the
	// partition.
	Near   int
	NearOK bool
}

// node is one instance: the world's side of it and what Orchestrator holds of it.
type node struct {
	// The world.
	fault     fault.Fault // on its database link
	hostDown  bool
	streamLag time.Duration
	applyLag  time.Duration
	frozen    bool // its own replication link is frozen
	stopped   bool // its replicator is stopped
	master    int  // whom it replicates from; -1 for none (the master, or out of the cluster)
	since     time.Duration
	spans     []orchestrator.Span // the faults on its path to master since `since`, relative to it
	restarted bool                // its I/O thread began at since with an attempt (not connected)
	changes   []orchestrator.Change
	told      int           // the changes told (IOThread)
	ioTold    bool          // the I/O thread state last told (true at the start)
	flowStop  time.Duration // when its stream stopped delivering; Never while it delivers
	// Orchestrator's side.
	check     orchestrator.Check
	valid     bool // the last told validity
	reading   bool
	pooled    bool // Orchestrator holds a connection to it: its last read ended well (orchestrator.ReadUnder)
	onPool    bool // the read under way is on that connection
	readStart time.Duration
	// The last successful read's findings.
	io, sql  bool
	lag      time.Duration
	lagKnown bool
}

// Machine is the decision core of one run under Orchestrator's rules. Its zero value is not
// usable: call New.
type Machine struct {
	cfg       Config
	nodes     []node
	master    int           // the master Orchestrator analyses; -1 for none
	last      time.Duration // the last tick run; -1 before any
	code      orchestrator.Code
	told      [2]int // the last code and verdict told as Recovered; told[0] -1 for none
	recent    orchestrator.Recent
	grace     time.Duration // the emergency graceful period ends (exclusive)
	restart   time.Duration // the last emergent restart of replication; -1 for none
	down      bool          // the master is downtimed (a timeline's maintenance policy)
	err       error
	out       []act.Event
	reads     []orchestrator.ReplicaRead // analyse's, reused
	seg       []int                      // each member's segment of the managers' network during a partition; nil for one network
	dataSplit bool                       // the databases' network is split as seg too (a partition not of the managers alone)
}

// New returns a fresh machine.
func New(cfg Config) *Machine {
	m := &Machine{cfg: cfg, nodes: make([]node, cfg.Nodes), master: cfg.Master, last: -1, restart: -1}
	m.told[0] = -1
	for i := range m.nodes {
		n := &m.nodes[i]
		n.master, n.flowStop, n.valid, n.ioTold = cfg.Master, statemap.Never, true, true
		n.io, n.sql, n.pooled = true, true, true
		if i == cfg.Master {
			n.master = -1
		}
	}
	return m
}

// Err is the first input the machine could not model (a fault the replicas' view or the
// poll does not cover), nil for none; once set, the machine decides nothing more.
func (m *Machine) Err() error { return m.err }

// Len implements drive.Machine.
func (m *Machine) Len() int { return len(m.nodes) }

// Apply implements drive.Machine: a host going down takes its database with it (as fault
// hostdown does); maintenance policy downtimes the master (Orchestrator's maintenance
// analog); a partition cuts Orchestrator, beside Config.Near, from the nodes on other
// segments, and the replicas from a master on another segment (as blackhole: no packet
// passes) unless it splits the managers' network alone (act.Action.ManagersOnly); the
// Tungsten managers' own actions (manager up or down, an operator's recover) mean nothing to
// Orchestrator.
func (m *Machine) Apply(t time.Duration, a *act.Action) {
	m.before(t)
	switch a.Kind {
	case act.HostDown, act.HostUp:
		if a.Node < len(m.nodes) {
			m.nodes[a.Node].hostDown = a.Kind == act.HostDown
			m.pathChanged(t)
		}
	case act.SetPolicy:
		m.down = a.Policy == fence.Maintenance
	case act.Partition:
		m.seg = append(m.seg[:0], a.Segments...)
		if a.Segments == nil {
			m.seg = nil
		}
		m.dataSplit = a.Segments != nil && !a.ManagersOnly
		m.pathChanged(t)
	}
}

// cut reports whether a partition separates members i and j on the managers' network, which
// Orchestrator's reads take.
func (m *Machine) cut(i, j int) bool {
	return m.seg != nil && i < len(m.seg) && j < len(m.seg) && m.seg[i] != m.seg[j]
}

// streamCut reports whether a partition separates members i and j on the databases' network,
// which the replicas' streams take: a partition of the managers' network alone
// (act.Action.ManagersOnly) cuts no stream.
func (m *Machine) streamCut(i, j int) bool { return m.dataSplit && m.cut(i, j) }

// reached is the fault Orchestrator's read of node i meets: a partition between them drops
// every packet (as blackhole: the dial hangs), a host down is down, else the node's link fault.
func (m *Machine) reached(i int) fault.Fault {
	n := &m.nodes[i]
	switch {
	case m.cfg.NearOK && m.cut(m.cfg.Near, i):
		return fault.Fault{Kind: fault.Blackhole}
	case n.hostDown:
		return fault.Fault{Kind: fault.HostDown}
	}
	return n.fault
}

// Fault tells the machine that node i's link has fault f from t on (the driver's
// *act.FaultSet, which the adapter passes on).
func (m *Machine) Fault(t time.Duration, i int, f fault.Fault) {
	if m.err != nil {
		return
	}
	m.before(t)
	if _, err := orchestrator.ReadUnder(m.cfg.Orchestrator, f, true); err != nil {
		m.err = err
		return
	}
	if err := orchestrator.Modelled(f); err != nil {
		m.err = err
		return
	}
	m.nodes[i].fault = f
	m.pathChanged(t)
}

// Replicate tells the machine of a timeline's replication event at t: a lag, an apply lag, a
// frozen or healed stream, a replicator stopped or started.
func (m *Machine) Replicate(t time.Duration, in repl.Input) {
	m.before(t)
	switch in := in.(type) {
	case repl.SetLag:
		m.nodes[in.Node].streamLag = in.Lag
	case repl.SetApplyLag:
		m.nodes[in.Node].applyLag = in.Lag
	case repl.SetStream:
		n := &m.nodes[in.Node]
		n.frozen = in.Frozen
		m.flow(t, in.Node)
		m.pathChanged(t)
	case repl.SetReplicator:
		n := &m.nodes[in.Node]
		if n.stopped == !in.Running {
			return
		}
		n.stopped = !in.Running
		if in.Running && n.master >= 0 {
			m.reconnect(t, in.Node)
		}
		m.flow(t, in.Node)
	}
}

// path is the fault on replica i's path to its master now: its own frozen link is a freeze, a
// partition between them a blackhole, else its master's link fault (hostdown where the
// master's host is down).
func (m *Machine) path(i int) fault.Fault {
	n := &m.nodes[i]
	if n.frozen {
		return fault.Fault{Kind: fault.Freeze}
	}
	if n.master < 0 {
		return fault.Fault{}
	}
	mm := &m.nodes[n.master]
	switch {
	case m.streamCut(i, n.master):
		return fault.Fault{Kind: fault.Blackhole}
	case mm.hostDown:
		return fault.Fault{Kind: fault.HostDown}
	}
	return mm.fault
}

// pathChanged appends to every replica's path history the fault in force from t on, where it
// changed, and works its I/O thread out again.
func (m *Machine) pathChanged(t time.Duration) {
	for i := range m.nodes {
		n := &m.nodes[i]
		if n.master < 0 {
			continue
		}
		f := m.path(i)
		prev := fault.Fault{}
		if k := len(n.spans); k > 0 {
			prev = n.spans[k-1].Fault
		}
		if f == prev {
			continue
		}
		n.spans = append(n.spans, orchestrator.Span{At: t - n.since, Fault: f})
		m.work(i)
	}
}

// reconnect starts replica i's I/O thread anew at t: a repoint or a restart.
func (m *Machine) reconnect(t time.Duration, i int) {
	n := &m.nodes[i]
	n.since, n.restarted, n.told = t, true, 0
	n.spans = append(n.spans[:0], orchestrator.Span{At: 0, Fault: m.path(i)})
	m.work(i)
}

// work works out replica i's I/O thread changes.
func (m *Machine) work(i int) {
	n := &m.nodes[i]
	cs, err := orchestrator.IOChangesFrom(m.cfg.Replica, n.spans, m.cfg.End-n.since, !n.restarted)
	if err != nil {
		m.err = err
		return
	}
	for k := range cs {
		cs[k].At += n.since
	}
	// Keep those already told (before now): a history worked out again keeps its past.
	n.changes = cs
	if n.told > len(cs) {
		n.told = len(cs)
	}
}

// ioRunning reports whether replica i's I/O thread runs at t.
func (m *Machine) ioRunning(i int, t time.Duration) bool {
	n := &m.nodes[i]
	return n.master >= 0 && !n.stopped && orchestrator.RunningAt(n.changes, t)
}

// flow notes when replica i's stream stops or resumes delivering, at t.
func (m *Machine) flow(t time.Duration, i int) {
	n := &m.nodes[i]
	delivers := !n.frozen && !n.stopped && m.ioRunning(i, t)
	switch {
	case !delivers && n.flowStop == statemap.Never:
		n.flowStop = t
	case delivers:
		n.flowStop = statemap.Never
	}
}

// Running implements drive.Machine: Orchestrator's reads are the machine's own, so every
// node's probes "run" and none is ever needed (Steady).
func (m *Machine) Running(int) bool { return true }

// Probe implements drive.Machine: no probe is ever run (Steady), so none is told.
func (m *Machine) Probe(time.Duration, int, statemap.Condition) {}

// CatchUp implements drive.Machine: Orchestrator has no Tungsten tick.
func (m *Machine) CatchUp(time.Duration, int64) {}

// Tick implements drive.Machine: Orchestrator has no Tungsten tick.
func (m *Machine) Tick(time.Duration, int64) {}

// TicksToExpiry implements drive.Machine: none.
func (m *Machine) TicksToExpiry() (int64, bool) { return 0, false }

// Quiet implements drive.Machine: no Tungsten tick decides anything.
func (m *Machine) Quiet() bool { return true }

// Steady implements drive.Machine: no probe changes anything.
func (m *Machine) Steady(int, statemap.Condition) (bool, time.Duration) { return true, statemap.Never }

// Ready implements drive.Machine.
func (m *Machine) Ready() []act.Event { return m.out }

// Advance implements drive.Machine.
func (m *Machine) Advance() { m.out = m.out[:0] }

// View implements drive.Machine: there is no Tungsten engine, and the zero view must not be
// read; an Orchestrator run's observers read its events.
func (m *Machine) View() fence.View { return fence.View{} }

// Master is the master Orchestrator analyses now, -1 for none.
func (m *Machine) Master() int { return m.master }

// Code is the master's analysis code at the last tick.
func (m *Machine) Code() orchestrator.Code { return m.code }

// Next is the next instant the machine decides at of its own accord: its next one-second tick
// while anything may change, ok false while nothing will until an input.
func (m *Machine) Next() (time.Duration, bool) {
	if m.err != nil || m.settled() {
		return 0, false
	}
	return orchestrator.TickAtOrAfter(m.last+1, orchestrator.RecoveryPoll), true
}

// settled reports whether no tick can change anything until an input: no fault, every read
// fine and up to date, no problem found.
func (m *Machine) settled() bool {
	if m.code != orchestrator.NoProblem || m.seg != nil {
		return false
	}
	for i := range m.nodes {
		n := &m.nodes[i]
		if n.fault.Kind != fault.Heal || n.hostDown || n.frozen || n.stopped || n.reading || !n.valid || n.told < len(n.changes) {
			return false
		}
		if n.master >= 0 && (n.io != m.ioRunning(i, m.last) || !n.sql || n.lag != n.streamLag+n.applyLag) {
			return false
		}
	}
	return true
}
