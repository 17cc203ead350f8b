package livereplay

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/core"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/monitor"
	"github.com/failsim/failsim/proxy"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/replica"
	"github.com/failsim/failsim/timeline"
	"github.com/failsim/failsim/writer"
)

// candidateTimeout bounds reading the eligible replicas' positions at a failover.
const candidateTimeout = time.Second

// LiveCandidate is the manager's ranking on real replicas, for Config.Candidate: at a failover
// it reads the positions of the eligible nodes through admins (one pool per node, cluster
// order) and promotes repl.Best of their standings, the simulator's own rule: the highest
// stored position, then the lowest precedence (nil: cluster order), then cluster order. It
// reads the servers, so it is no pure function: it belongs to the live runtime only. When no
// eligible node answers within a second it falls back to the first eligible one.
func LiveCandidate(admins []*sql.DB, precedence []int) fence.CandidateRule {
	return func(c fence.Cluster, eligible func(int) bool) int {
		ctx, cancel := context.WithTimeout(context.Background(), candidateTimeout)
		defer cancel()
		sts := make([]replica.Status, len(admins))
		answered := make([]bool, len(admins))
		for i, db := range admins {
			if !eligible(i) {
				continue
			}
			st, err := replica.Read(ctx, db)
			sts[i], answered[i] = st, err == nil
		}
		if best := repl.Best(replica.Standings(sts, answered, eligible, precedence)); best >= 0 {
			return best
		}
		return fence.FirstEligible(c, eligible)
	}
}

// ReplicationKind is what a ReplicationAction does.
type ReplicationKind uint8

// The replication actions, as the timeline names them.
const (
	ReplicatorStop  ReplicationKind = iota // NODE replicator stop: STOP SLAVE
	ReplicatorStart                        // NODE replicator start: START SLAVE
	LinkFreeze                             // NODE link freeze: its stream's links frozen
	LinkHeal                               // NODE link heal: its links pass again
	StreamLag                              // NODE lag DUR: its links delay every byte DUR (0: pass)
	ApplyLag                               // NODE apply-lag DUR: MASTER_DELAY, whole seconds
)

// ReplicationAction is a timed change to a node's replication in a live run.
type ReplicationAction struct {
	At   time.Duration // since the start
	Node int
	Kind ReplicationKind
	Lag  time.Duration // StreamLag and ApplyLag
	// Input is the timeline's statement it plays (ReplicationActions sets it), nil for none.
	Input repl.Input
}

// LiveReplicationConfig is a live run with replication: the engine on real probes, the
// workload's writer, the faults and replication actions made real, and a real promotion at each
// failover. It runs at speed 1: the write rate is never scaled.
type LiveReplicationConfig struct {
	// Nodes, Map, Policy, Interval, Log and Observers are the runtime's (Config); the engine
	// ranks candidates with LiveCandidate over Admins and Precedence.
	Nodes      []monitor.Node
	Config     monitor.Config
	Precedence []int
	// Script holds the faults on the nodes' database links (Inject makes them real) and the end.
	Script monitor.Script
	// Replication are the replication actions, in time order.
	Replication []ReplicationAction
	// OnAction, when not nil, is told each replication action once it was made, with the error
	// that stopped it (nil when it was made real). It is called from the run's own goroutine,
	// concurrently with the observers.
	OnAction func(a ReplicationAction, err error)
	// SetLink sets a mode on every replication link of a node (its stream, whatever its source).
	SetLink func(node int, m proxy.Mode) error
	// Route says how a replica reaches a source, for repointing.
	Route func(replica, source int) replica.Source
	// Admins, Writers and Readers are each node's pools for the promotion user, the writer
	// user and a user with SELECT on the ledger, in cluster order, reaching each server the way
	// the application and the manager do (through its database link). A writer pool should
	// keep idle connections (SetMaxIdleConns of 16 or more): the run opens 16 in each before
	// the first write.
	Admins, Writers, Readers []*sql.DB
	// Rate, Deadline and Base are the workload (writer.Config).
	Rate     repl.Rate
	Deadline time.Duration
	Base     int64
	// ApplyWait bounds a promoted replica's applying before it takes writes (replica.Plan).
	ApplyWait time.Duration
	// Semisync, when > 0, runs the cluster under semi-synchronous replication with this
	// timeout (replica.SetSemisync on every node before the first write); 0 leaves the
	// servers' replication as it is (async unless they were set otherwise).
	Semisync time.Duration
}

// LivePromotion is one promotion the run made for real at the engine's failover.
type LivePromotion struct {
	At        time.Duration // the failover's instant
	From, To  int
	Decided   time.Duration // when the runtime told the failover, since the start (real time)
	Writable  time.Duration // when the new master took writes, since the start
	Promotion replica.Promotion
	Err       error
}

// LiveReplicationResult is what a live run with replication did and saw.
type LiveReplicationResult struct {
	Decisions  []Decision
	States     []StateChange
	Gaps       []monitor.ClockGap // the runtime's clock gaps (LiveRun.Gaps)
	Promotions []LivePromotion
	Writes     writer.Result
	Master     int     // the master of record at the end; -1 for none
	Lost       []int64 // acknowledged ids missing from the final master's ledger
	Errors     []error // replication actions that could not be made real
}

// LiveReplication runs cfg until the script's end and reads the ledger back from the final
// master.
func LiveReplication(ctx context.Context, cfg LiveReplicationConfig) (LiveReplicationResult, error) {
	if cfg.Script.End <= 0 {
		return LiveReplicationResult{}, errors.New("a live replication run needs an end")
	}
	master := -1
	for i, n := range cfg.Nodes {
		if n.Role == fence.Master {
			master = i
		}
	}
	var res LiveReplicationResult
	var of atomic.Int32
	of.Store(int32(master))
	if cfg.Semisync > 0 {
		if err := replica.SetSemisync(ctx, cfg.Admins, true, cfg.Semisync); err != nil {
			return res, fmt.Errorf("semisync: %w", err)
		}
	}
	warm(ctx, cfg.Writers)
	t0 := time.Now()
	p := &livePromoter{cfg: &cfg, of: &of, t0: t0, topo: core.NewTopology(len(cfg.Nodes), master, nil)}
	rec := &Recorder{Names: names(cfg.Nodes)}
	rc := cfg.Config
	rc.Nodes, rc.Speed = cfg.Nodes, 1
	rc.Candidate = LiveCandidate(cfg.Admins, cfg.Precedence)
	rc.Observers = append([]drive.Observer{rec, p}, rc.Observers...)
	// The replication actions are the one driver's, on the runtime's clock: it hands each out
	// at its instant, and a goroutine makes them real in order (SQL on a replica can block; the
	// probes must not wait for it).
	acts := make(chan act.Action, len(cfg.Replication))
	sc := cfg.Script
	sc.Actions = withReplication(sc.Actions, cfg.Replication)
	sc.Replicate = func(a act.Action) { acts <- a } // room for every one: it never blocks
	rt, err := monitor.New(rc, sc)
	if err != nil {
		return res, err
	}
	wctx, stop := context.WithDeadline(ctx, t0.Add(cfg.Script.End))
	defer stop()
	var wg sync.WaitGroup
	var werr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		res.Writes, werr = writer.Run(wctx, writer.Config{Rate: cfg.Rate, Deadline: cfg.Deadline, DBs: cfg.Writers, Base: cfg.Base,
			Master: func() int { return int(of.Load()) }}, t0)
	}()
	go func() {
		defer wg.Done()
		res.Errors = replicationActs(wctx, cfg, acts)
	}()
	rerr := rt.Run(ctx)
	close(acts)
	wg.Wait()
	p.wg.Wait()
	if err := errors.Join(rerr, werr); err != nil {
		return res, err
	}
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("live replication run interrupted: %w", err)
	}
	res.Decisions, res.Promotions, res.Master = rec.Decisions, p.done, int(of.Load())
	res.States, res.Gaps = rec.States, rt.Gaps()
	if res.Master >= 0 {
		if res.Lost, err = writer.Lost(ctx, cfg.Readers[res.Master], res.Writes.Acked()); err != nil {
			return res, err
		}
	}
	return res, nil
}

// warmConns is how many connections warm opens in each writer pool before a run.
const warmConns = 16

// warm opens warmConns connections in each pool (two seconds at most, a node that does not
// answer is left alone) and gives them back, so that the first writes do not each pay a dial
// and a login against their deadline.
func warm(ctx context.Context, dbs []*sql.DB) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	for _, db := range dbs {
		var conns []*sql.Conn
		for range warmConns {
			c, err := db.Conn(ctx)
			if err != nil {
				break
			}
			conns = append(conns, c)
		}
		for _, c := range conns {
			c.Close()
		}
	}
}

func names(ns []monitor.Node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Name
	}
	return out
}

// withReplication returns the script's actions with the replication actions among them, as
// act.Replicate actions, in time order (the script's own first among equal times).
func withReplication(script []act.Action, rs []ReplicationAction) []act.Action {
	if len(rs) == 0 {
		return script
	}
	out := make([]act.Action, 0, len(script)+len(rs))
	i := 0
	for _, r := range rs {
		for i < len(script) && script[i].At <= r.At {
			out = append(out, script[i])
			i++
		}
		out = append(out, act.Action{At: r.At, Kind: act.Replicate, Node: r.Node, Repl: r.Input})
	}
	return append(out, script[i:]...)
}

// replicationActs makes each replication action real as the driver hands it out (acts, closed
// when the run is over), in order; it returns what failed. The driver hands them out in the
// order of cfg.Replication.
func replicationActs(ctx context.Context, cfg LiveReplicationConfig, acts <-chan act.Action) []error {
	var errs []error
	next := 0
	for got := range acts {
		if ctx.Err() != nil || next >= len(cfg.Replication) {
			continue // drain: the run is over
		}
		a := cfg.Replication[next]
		next++
		if got.At != a.At || got.Node != a.Node {
			errs = append(errs, fmt.Errorf("replication action at %v on node %d handed out for %v on node %d", got.At, got.Node, a.At, a.Node))
			continue
		}
		var err error
		switch a.Kind {
		case ReplicatorStop:
			err = replica.Stop(ctx, cfg.Admins[a.Node])
		case ReplicatorStart:
			err = replica.Start(ctx, cfg.Admins[a.Node])
		case LinkFreeze:
			err = cfg.SetLink(a.Node, proxy.Mode{Fault: fault.Fault{Kind: fault.Freeze}})
		case LinkHeal:
			err = cfg.SetLink(a.Node, proxy.Mode{})
		case StreamLag:
			m := proxy.Mode{}
			if a.Lag > 0 {
				m.Fault = fault.Fault{Kind: fault.Delay, Delay: a.Lag}
			}
			err = cfg.SetLink(a.Node, m)
		case ApplyLag:
			err = replica.SetApplyDelay(ctx, cfg.Admins[a.Node], a.Lag)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s at %v: %w", cfg.Nodes[a.Node].Name, a.At, err))
		}
		if cfg.OnAction != nil {
			cfg.OnAction(a, err)
		}
	}
	return errs
}

// livePromoter is the engine's hand in a live run: at a failover it promotes the chosen
// replica for real, repointing to it exactly the replicas the topology says (core.Topology,
// as the simulator's replication model does: not a master failed over before and not
// recovered since), with no master of record meanwhile, and makes it the writer's master of
// record once it takes writes.
type livePromoter struct {
	cfg  *LiveReplicationConfig
	of   *atomic.Int32
	t0   time.Time
	topo core.Topology // each node's role, as the decisions made it

	wg   sync.WaitGroup
	mu   sync.Mutex
	done []LivePromotion
}

func (p *livePromoter) Event(ev act.Event) {
	others, promotes := p.topo.Decided(ev, nil)
	if !promotes {
		return
	}
	f := ev.(*fence.Failover)
	lp := LivePromotion{At: f.At, From: f.Node, To: f.To, Decided: time.Since(p.t0)}
	p.of.Store(-1)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		lp.Promotion, lp.Err = replica.Promote(context.Background(), replica.Plan{DBs: p.cfg.Admins, New: lp.To, Old: lp.From,
			Repoint: others, Route: p.cfg.Route, ApplyWait: p.cfg.ApplyWait})
		lp.Writable = time.Since(p.t0)
		if lp.Err == nil {
			p.of.Store(int32(lp.To))
			if lp.Promotion.Pending > 0 { // it takes writes; what it stored is still applied
				if err := replica.Settle(context.Background(), p.cfg.Admins[lp.To]); err != nil {
					lp.Err = fmt.Errorf("applying what it stored after it took writes: %w", err)
				}
			}
		}
		p.mu.Lock()
		p.done = append(p.done, lp)
		p.mu.Unlock()
	}()
}

// ReplicationActions are tl's replication events as a live run's actions, in time order. It
// refuses, naming the file and line, an event the run cannot make real: a link or lag event
// when links is false (no proxy carries the replicas' streams: ErrNeedsLinks), an apply lag
// that is not a whole number of seconds (MASTER_DELAY's unit).
func ReplicationActions(tl *timeline.Timeline, links bool) ([]ReplicationAction, error) {
	if tl.Repl == nil {
		return nil, nil
	}
	var out []ReplicationAction
	for _, ev := range tl.Repl.Events {
		var a ReplicationAction
		switch in := ev.Input.(type) {
		case repl.SetReplicator:
			a = ReplicationAction{Node: in.Node, Kind: ReplicatorStop}
			if in.Running {
				a.Kind = ReplicatorStart
			}
		case repl.SetStream:
			a = ReplicationAction{Node: in.Node, Kind: LinkHeal}
			if in.Frozen {
				a.Kind = LinkFreeze
			}
		case repl.SetLag:
			a = ReplicationAction{Node: in.Node, Kind: StreamLag, Lag: in.Lag}
		case repl.SetApplyLag:
			if in.Lag%time.Second != 0 {
				return nil, &fileline.Error{File: tl.File, Line: ev.Line,
					Err: fmt.Errorf("apply-lag %v: the live replay makes it with MASTER_DELAY, which takes whole seconds", in.Lag)}
			}
			a = ReplicationAction{Node: in.Node, Kind: ApplyLag, Lag: in.Lag}
		default:
			return nil, &fileline.Error{File: tl.File, Line: ev.Line, Err: fmt.Errorf("replication event %T: the live replay cannot make it", ev.Input)}
		}
		if (a.Kind == LinkFreeze || a.Kind == LinkHeal || a.Kind == StreamLag) && !links {
			return nil, &fileline.Error{File: tl.File, Line: ev.Line, Err: ErrNeedsLinks}
		}
		a.At, a.Input = ev.At, ev.Input
		out = append(out, a)
	}
	return out, nil
}
