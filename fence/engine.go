// Package fence is the decision core of the Tungsten Manager as failsim models it: per-node
// alarms raised by bad probes, the 10-second timekeeper that ages them against the statemap's
// thresholds, self-heal on an ok probe, maintenance gating, and coordinator-only fencing with
// role-aware actions (a replica is failed, a master is failed over).
//
// The Engine is a pure state machine in etcd raft's shape. It does no I/O, reads no clock and
// starts no goroutine: the caller tells it what happened and when with Step (a ProbeDone, a
// Tick, a SetPolicy, a SetManager or a Recover), and takes the decisions it made with Ready,
// each a typed Decision that names nodes by index. The simulator drives it in virtual time, the
// live runtime with a real clock; the rules are the same. A tick at which no alarm can expire
// decides nothing: a driver may leave such ticks out and account for them with the next one
// (Tick.Count, TicksToExpiry), which is what makes a replay cost what changes, not the span.
//
// The engine decides on one Cluster value (each node's role, failed, shunned), which can be
// copied and merged. The rules that are not the alarm engine's own are given to it: who
// coordinates (Config.Coordinator, FirstUp by default) and which replica a failover promotes
// (Config.Candidate, FirstEligible by default).
//
// Impossible calls (a node index out of range, time going backwards, a rule that chooses what
// it may not) panic: they are bugs in the driver, not bad input.
package fence

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/statemap"
)

// NodeConfig is one node of the cluster as configured.
type NodeConfig struct {
	Name string
	Role Role
}

// Config is what an Engine starts from.
type Config struct {
	// Nodes in the cluster line's order: the order the default rules go by, and the order of
	// every decision about several nodes at once. At most one is the master.
	Nodes []NodeConfig
	// Map is the statemap in force at the start (SetMap replaces it); it must not be nil.
	Map *statemap.Map
	// Policy at the start; the zero value is Automatic.
	Policy Policy
	// Coordinator chooses who fences; nil means FirstUp.
	Coordinator CoordinatorRule
	// Candidate chooses whom a failover promotes; nil means FirstEligible.
	Candidate CandidateRule
}

// Engine is the decision state of one cluster. Its zero value is not usable: call New.
type Engine struct {
	nodes       []node
	copies      []Cluster // the copies of the cluster's state (roles, failed, shunned), by copy number: one until the group forks them
	copyOf      []int     // per node: the copy its manager holds (its side's)
	coords      []int     // per node: the coordinator of its manager's view, -1 for none; nil until SetCoordinators (group mode)
	acting      int       // the coordinator whose decision is being made, and whose copy it changes
	up          []bool    // per node: its manager is up
	rules       *statemap.Map
	policy      Policy
	coordRule   CoordinatorRule
	candRule    CandidateRule
	eligibleFn  func(int) bool // e.eligible, made at the first failover
	coordinator int            // index of the coordinator, -1 when there is none
	now         time.Duration
	lastTick    time.Duration // the last tick's time; 0 before any
	ticks       int64         // timekeeper ticks so far, skipped ones included
	expiry      int64         // the tick number at which the first alarm expires; valid unless stale
	stale       bool          // an alarm went since expiry was computed: compute it anew
	out         []Decision    // decided since the last Ready or Release, pointers into dec
	taken       int           // how many of out Take has handed out
	dec         decisions
}

// node is what the engine knows of one node's database and alarms.
type node struct {
	name   string
	state  statemap.State
	probed bool
	lastOK bool
	alarms []alarm
}

// New returns an engine for cfg. Every manager starts up; every node starts in state unknown
// until its first probe. cfg.Nodes must hold at most one master.
func New(cfg Config) *Engine {
	return NewReusing(cfg, nil)
}

// NewReusing is New that reuses the space of old, an engine done with (nothing it handed out,
// nor old itself, is read again), for a caller that runs engine after engine on one goroutine
// (sim.Replayer): the engine it returns is old itself, made fresh, exactly as New makes one. A
// nil old is New.
func NewReusing(cfg Config, old *Engine) *Engine {
	e := old
	if e == nil {
		e = &Engine{}
	}
	n := len(cfg.Nodes)
	nodes, copyOf, up, out, dec, eligibleFn := e.nodes, e.copyOf, e.up, e.out, e.dec, e.eligibleFn
	var cluster Cluster
	if len(e.copies) > 0 && cap(e.copies[0]) >= n {
		cluster = e.copies[0][:n]
	} else {
		cluster = make(Cluster, n)
	}
	copies := e.copies[:0]
	clear(e.copies[:cap(e.copies)]) // the old copies are done with: let them go
	*e = Engine{rules: cfg.Map, policy: cfg.Policy, coordRule: cfg.Coordinator, candRule: cfg.Candidate, expiry: noExpiry, out: out[:0], dec: dec}
	e.eligibleFn = eligibleFn // e.eligible, bound to e: the same for the fresh engine
	e.dec.reset()
	if e.coordRule == nil {
		e.coordRule = FirstUp
	}
	if e.candRule == nil {
		e.candRule = FirstEligible
	}
	masters := 0
	e.copies = append(copies, cluster)
	e.copyOf = zeroed(copyOf, n)
	e.up = zeroed(up, n)
	var room []alarm // four alarms a node before any grows on its own
	if len(nodes) < n {
		room = make([]alarm, 4*n)
	}
	e.nodes = zeroedKeep(nodes, n)
	for i, c := range cfg.Nodes {
		if c.Role == Master {
			masters++
		}
		alarms := e.nodes[i].alarms[:0]
		if room != nil {
			alarms = room[4*i : 4*i : 4*i+4]
		}
		e.nodes[i] = node{name: c.Name, alarms: alarms}
		cluster[i] = Member{Role: c.Role}
		e.up[i] = true
	}
	if masters > 1 {
		panic("fence: more than one master configured")
	}
	e.coordinator = e.chooseCoordinator()
	return e
}

// zeroed returns s with n zero elements, reusing its space when it has room.
func zeroed[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// zeroedKeep returns s with n elements, reusing its space (and its elements' values, for the
// caller to reset) when it has room; a slice made anew has zero elements.
func zeroedKeep[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// Step tells the engine that in happened at time at, which must not be before the time of the
// previous step. It decides at once; Ready hands out what it decided.
func (e *Engine) Step(at time.Duration, in Input) {
	e.advance(at)
	switch in := in.(type) {
	case ProbeDone:
		e.stepProbe(in.Node, in.Condition)
	case Tick:
		if in.Count < 0 {
			panic(fmt.Sprintf("fence: %d ticks", in.Count))
		}
		e.stepTick(max(in.Count, 1))
	case SetPolicy:
		e.stepPolicy(in.Policy)
	case SetManager:
		e.stepManager(in.Node, in.Up)
	case Recover:
		e.stepRecover(in.Node)
	case SetCoordinators:
		e.stepCoordinators(in.Coordinators)
	case Fork:
		e.stepFork(in.Copy, in.From)
	case MergeCopies:
		e.stepMerge(in)
	case SetCopies:
		e.stepCopies(in.CopyOf)
	case HostFailed:
		e.stepHostFailed(in.Coordinator, in.Node)
	case FailsafeShun:
		e.stepFailsafe(in.Node, in.Ticks)
	default:
		// A fixed message: formatting in would make every input escape to the heap.
		panic("fence: Step with a nil Input")
	}
}

// Ready returns the decisions made since the last call, oldest first. The slice and the
// decisions it points to are reused by the next call into the engine other than a view: consume
// them or copy them (Clone) before then. Handing them out allocates nothing.
func (e *Engine) Ready() []Decision {
	out := e.out[e.taken:]
	if len(e.out) == 0 {
		return nil
	}
	e.Release()
	if len(out) == 0 {
		return nil
	}
	return out
}

// Take returns the decisions made since the last Take or Ready, oldest first, like Ready, but
// keeps them: they and the decisions taken before them stay valid until Release (or Ready).
// A core that gathers the decisions of several steps, its own events among them, into one
// batch takes them as they come and releases the batch once it has been consumed.
func (e *Engine) Take() []Decision {
	out := e.out[e.taken:]
	e.taken = len(e.out)
	if len(out) == 0 {
		return nil
	}
	return out
}

// Untaken reports whether there are decisions Take has not handed out yet.
func (e *Engine) Untaken() bool { return len(e.out) > e.taken }

// Release ends the batch: the decisions taken since the last Release (or Ready) are reused by
// the next call into the engine other than a view.
func (e *Engine) Release() {
	if len(e.out) == 0 {
		return // nothing decided: nothing stored to reuse
	}
	e.out = e.out[:0]
	e.taken = 0
	e.dec.reset()
}

func (e *Engine) advance(at time.Duration) {
	if at < e.now {
		panic(fmt.Sprintf("fence: time went backwards: %v after %v", at, e.now))
	}
	e.now = at
}
