package livereplay

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/rs/zerolog"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/monitor"
	"github.com/failsim/failsim/proxy"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/replica"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// LedgerTable is the table the writer inserts one row into per write.
const LedgerTable = "failsim.ledger"

// ReplUser is a user of a live replay with a workload: its name and password on every node's
// server.
type ReplUser struct {
	Name     string
	Password string
}

// dsn returns base's DSN for the user, on addr.
func (u ReplUser) dsn(base *mysql.Config, addr string) string {
	c := base.Clone()
	c.User, c.Passwd, c.Addr = u.Name, u.Password, addr
	return c.FormatDSN()
}

// ReplLinks is the proxy that carries the replicas' streams (one link per stream).
type ReplLinks interface {
	// Route is the address replica rep dials to stream from src through the links, if any.
	Route(rep, src int) (addr string, ok bool)
	// Set sets mode m on every link of replica node.
	Set(ctx context.Context, node int, m proxy.Mode) error
}

// ReplServers parses the per-node DSNs of a live replay with a workload (names in cluster
// order): a DSN that is not a tcp one is an *InputError (FieldServer, CheckDSN).
func ReplServers(names, dsns []string) ([]*mysql.Config, error) {
	bases := make([]*mysql.Config, len(dsns))
	for i, d := range dsns {
		b, err := monitor.ProxyDSN(d)
		if err != nil {
			return nil, &InputError{Field: FieldServer, Check: CheckDSN, Node: names[i], Err: err}
		}
		bases[i] = b
	}
	return bases, nil
}

// ReplayReplConfig sets up a live replay of a timeline with a workload.
type ReplayReplConfig struct {
	Timeline *timeline.Timeline
	Map      *statemap.Map // the effective statemap
	// Servers are each node's server with the probe user, in cluster order (ReplServers).
	Servers []*mysql.Config
	// Replication are the timeline's replication actions (ReplicationActions).
	Replication []ReplicationAction
	// Admin promotes, Writer writes the workload; Repl, when named, is the user a repointed
	// replica streams with.
	Admin, Writer, Repl ReplUser
	// Links, nil without one, carries the replicas' streams.
	Links ReplLinks
	// Simulated, SimulatedStates and Predicted are the simulator's decisions, state changes
	// and client's view of the timeline.
	Simulated       []Decision
	SimulatedStates []StateChange
	Predicted       repl.Summary
	Log             zerolog.Logger
	// Observers are told the live events: the runtime's and the replication actions made
	// real, under one lock. OnProbe, when not nil, is told each probe's result under the same
	// lock.
	Observers []drive.Observer
	OnProbe   func(at time.Duration, node int, res monitor.Result)
	// Ready, when not nil, is called once every server passed the preflight and the proxies
	// are up, just before the run starts.
	Ready func()
}

// ReplayReplResult is what a live replay with a workload found.
type ReplayReplResult struct {
	Decisions []string // Compare's lines, simulated against live
	States    []string // CompareStates' lines
	Client    []string // CompareReplication's lines
	// Notes say what each promotion did and what could not be made real.
	Notes      []string
	Live       repl.Summary // the live client's view
	Lost       []int64      // the ledger's lost ids
	Promotions []LivePromotion
	// Gaps are the runtime's clock gaps: with any, the run cannot agree.
	Gaps []monitor.ClockGap
	// Agree is true when the decisions, the state changes and the client's view agree,
	// everything was made real and the runtime ran throughout.
	Agree bool
}

// ReplayRepl plays a timeline with a workload live on one real server per node: it checks
// that every server answers a probe and every user logs in to it, reads the ledger's top id
// on the master, checks every user's grants on every server (SHOW GRANTS), puts one failsim proxy per node in front of its server to carry the probes,
// the writes, the promotions and the timeline's faults, makes the replication events real
// (through Links for the streams), and compares the run with the simulated one. An error
// of the user's input is an *InputError. A run that stops with an error (interrupted) first
// sets every replication link it froze or delayed back to pass; the result's Notes then say
// what it healed and what it leaves on the servers (a stopped replicator, a MASTER_DELAY).
func ReplayRepl(ctx context.Context, cfg ReplayReplConfig) (ReplayReplResult, error) {
	tl, r := cfg.Timeline, cfg.Timeline.Repl
	names := tl.Names()
	bases := cfg.Servers

	// Every user logs in to every server before the run: a run whose writes all fail at login
	// says nothing about the faults, and takes the whole timeline to say it.
	var pools []*sql.DB
	defer func() {
		for _, p := range pools {
			p.Close()
		}
	}()
	pool := func(dsn string, size int) (*sql.DB, error) {
		c, err := mysql.ParseDSN(dsn)
		if err != nil {
			return nil, err
		}
		c.Timeout = 2 * time.Second
		c.Logger = &mysql.NopLogger{}
		monitor.Bound(c)
		conn, err := mysql.NewConnector(c)
		if err != nil {
			return nil, err
		}
		db := sql.OpenDB(conn)
		db.SetMaxOpenConns(size)
		db.SetMaxIdleConns(size)
		pools = append(pools, db)
		return db, nil
	}
	readers := make([]*sql.DB, len(bases))
	type grantCheck struct {
		field      Field
		u          ReplUser
		db         *sql.DB
		need       []privilege
		node, addr string
	}
	var grants []grantCheck
	for i, b := range bases {
		chk, err := monitor.NewChecker(monitor.CheckerConfig{DSN: b.FormatDSN(), Budget: tl.Timeout})
		if err != nil {
			return ReplayReplResult{}, &InputError{Field: FieldServer, Check: CheckOpen, Node: names[i], Err: err}
		}
		if res := chk.Probe(ctx); res.Condition != statemap.OK {
			return ReplayReplResult{}, &InputError{Field: FieldServer, Check: CheckProbe, Node: names[i], Addr: chk.Addr(),
				Err: fmt.Errorf("a probe of %s with no fault ended in %s: %v", chk.Addr(), res.Condition, res.Err)}
		}
		if readers[i], err = pool(b.FormatDSN(), 4); err != nil {
			return ReplayReplResult{}, &InputError{Field: FieldServer, Check: CheckOpen, Node: names[i], Err: err}
		}
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		adminNeed := adminNeeds
		if r.Config.Mode == repl.Semisync {
			adminNeed = append(slices.Clone(adminNeeds), semisyncNeeds)
		}
		for _, c := range []struct {
			field Field
			u     ReplUser
			need  []privilege
			probe bool
		}{{FieldAdmin, cfg.Admin, adminNeed, false}, {FieldWriter, cfg.Writer, writerNeeds, false}, {FieldProbe, ReplUser{Name: b.User}, probeNeeds, true}} {
			u, db := c.u, readers[i]
			if !c.probe {
				db, err = pool(u.dsn(b, b.Addr), 1)
				if err == nil {
					err = db.PingContext(pctx)
				}
				if err != nil {
					cancel()
					return ReplayReplResult{}, &InputError{Field: c.field, Check: CheckLogin, Node: names[i], User: u.Name, Addr: b.Addr, Err: err}
				}
			}
			grants = append(grants, grantCheck{field: c.field, u: u, db: db, need: c.need, node: names[i], addr: b.Addr})
		}
		cancel()
	}
	master := r.Config.Master
	var top sql.NullInt64
	if err := readers[master].QueryRowContext(ctx, "SELECT MAX(id) FROM "+LedgerTable).Scan(&top); err != nil {
		return ReplayReplResult{}, &InputError{Field: FieldLedger, Check: CheckRead, Node: names[master], Err: err}
	}
	// The grants too, not only the logins: a writer without INSERT would play the whole run
	// and differ, an admin without a replication grant fail mid-run.
	for _, g := range grants {
		gctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		lack, err := checkGrants(gctx, g.db, g.need)
		cancel()
		if err != nil {
			return ReplayReplResult{}, &InputError{Field: g.field, Check: CheckGrants, Node: g.node, User: g.u.Name, Addr: g.addr,
				Err: fmt.Errorf("SHOW GRANTS: %w", err)}
		}
		if len(lack) > 0 {
			return ReplayReplResult{}, &InputError{Field: g.field, Check: CheckLacks, Node: g.node, User: g.u.Name, Addr: g.addr, Err: lacks(lack)}
		}
	}

	// One proxy per node in front of its server: the probes, the writes and the promotions go
	// through it, and the timeline's faults are set on it.
	pcfg := proxy.Config{Log: cfg.Log}
	for i, b := range bases {
		pcfg.Nodes = append(pcfg.Nodes, proxy.NodeConfig{Name: names[i], Listen: "127.0.0.1:0", Upstream: b.Addr})
	}
	px, err := proxy.New(pcfg)
	if err != nil {
		return ReplayReplResult{}, fmt.Errorf("start the proxies: %w", err)
	}
	defer px.Close()
	lcfg := LiveReplicationConfig{
		Config:      monitor.Config{Map: cfg.Map, Policy: tl.Policy, Interval: tl.Interval, Log: cfg.Log, Group: TimelineGroup(tl)},
		Precedence:  r.Config.Precedence,
		Replication: cfg.Replication,
		Rate:        r.Config.Rate, Deadline: r.Config.Deadline, Base: top.Int64 + 1,
		ApplyWait: r.Config.ApplyWait,
		Readers:   readers,
	}
	if r.Config.Mode == repl.Semisync {
		lcfg.Semisync = r.Config.Timeout
		if lcfg.Semisync <= 0 {
			lcfg.Semisync = repl.DefaultTimeout
		}
	}
	for i, b := range bases {
		pn, _ := px.Node(names[i])
		c := b.Clone()
		c.Addr = pn.Addr()
		chk, err := monitor.NewChecker(monitor.CheckerConfig{DSN: c.FormatDSN(), Budget: tl.Timeout})
		if err != nil {
			return ReplayReplResult{}, &InputError{Field: FieldServer, Check: CheckOpen, Node: names[i], Err: err}
		}
		lcfg.Nodes = append(lcfg.Nodes, monitor.Node{Name: names[i], Role: tl.Nodes[i].Role, Prober: chk})
		adb, err := pool(cfg.Admin.dsn(b, pn.Addr()), 8)
		if err != nil {
			return ReplayReplResult{}, &InputError{Field: FieldAdmin, Check: CheckOpen, Node: names[i], User: cfg.Admin.Name, Addr: pn.Addr(), Err: err}
		}
		wdb, err := pool(cfg.Writer.dsn(b, pn.Addr()), 64)
		if err != nil {
			return ReplayReplResult{}, &InputError{Field: FieldWriter, Check: CheckOpen, Node: names[i], User: cfg.Writer.Name, Addr: pn.Addr(), Err: err}
		}
		lcfg.Admins, lcfg.Writers = append(lcfg.Admins, adb), append(lcfg.Writers, wdb)
	}
	lcfg.Route = func(rep, src int) replica.Source {
		s := replica.Source{Addr: bases[src].Addr}
		if cfg.Links != nil {
			if a, ok := cfg.Links.Route(rep, src); ok {
				s.Addr = a
			}
		}
		if cfg.Repl.Name != "" {
			s.User, s.Password = cfg.Repl.Name, cfg.Repl.Password
		}
		return s
	}
	left := newLeftBehind()
	lcfg.SetLink = func(node int, md proxy.Mode) error {
		if cfg.Links == nil {
			return errors.New("no --links")
		}
		// Noted before the call: a set cut short by the interrupt may have reached some links.
		left.setLink(node, md)
		return cfg.Links.Set(ctx, node, md)
	}
	var injectErr error
	lcfg.Script = TimelineScript(tl, func(i int, ft fault.Fault) {
		if err := px.SetMode(names[i], proxy.Mode{Fault: ft}); err != nil && injectErr == nil {
			injectErr = fmt.Errorf("set %s to %s: %w", names[i], ft, err)
		}
	})

	// The replication actions are told from their own goroutine, the runtime's events from its
	// loop: one lock keeps the observers' order.
	obs := &lockedObservers{obs: cfg.Observers}
	if cfg.OnProbe != nil {
		lcfg.Config.OnProbe = func(at time.Duration, node int, res monitor.Result) {
			obs.mu.Lock()
			defer obs.mu.Unlock()
			cfg.OnProbe(at, node, res)
		}
	}
	lcfg.Config.Observers = []drive.Observer{obs}
	lcfg.OnAction = func(a ReplicationAction, err error) {
		if err == nil {
			left.acted(a)
		}
		if err == nil && a.Input != nil {
			obs.Event(&act.Replicated{At: a.At, Input: a.Input})
		}
	}
	if cfg.Ready != nil {
		cfg.Ready()
	}
	res, err := LiveReplication(ctx, lcfg)
	if err != nil {
		// An interrupted run heals the links it set, and says what it leaves on the servers.
		return ReplayReplResult{Notes: left.heal(cfg.Links, names)}, err
	}
	out := ReplayReplResult{Live: res.Writes.Summary(), Lost: res.Lost, Promotions: res.Promotions, Gaps: res.Gaps}
	var decisionsOK, statesOK, clientOK bool
	out.Decisions, decisionsOK = Compare(tl.Start, cfg.Simulated, res.Decisions)
	out.States, statesOK = CompareStates(tl.Start, names, cfg.SimulatedStates, res.States)
	out.Client, clientOK = CompareReplication(tl.Start, cfg.Predicted, out.Live, int64(len(res.Lost)), r.Config.Rate, r.Config.Deadline,
		Failovers(cfg.Simulated))
	// A promotion or a replication action that failed, or a fault not set, makes the live run
	// another run than the timeline's: it cannot agree.
	made := injectErr == nil && len(res.Errors) == 0
	for _, p := range res.Promotions {
		out.Notes = append(out.Notes, promotionNote(tl.Start, names, p))
		made = made && p.Err == nil
	}
	for _, e := range append(res.Errors, injectErr) {
		if e != nil {
			out.Notes = append(out.Notes, "not made real: "+e.Error())
		}
	}
	for _, g := range res.Gaps {
		out.Notes = append(out.Notes, "not exercised: "+DescribeGap(tl.Start, g))
	}
	out.Agree = decisionsOK && statesOK && clientOK && made && len(res.Gaps) == 0
	return out, nil
}

// lockedObservers tells its observers every event and instant under one lock.
type lockedObservers struct {
	mu  sync.Mutex
	obs []drive.Observer
}

func (l *lockedObservers) Instant(at time.Duration, e fence.View) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, o := range l.obs {
		if o, ok := o.(drive.InstantObserver); ok {
			o.Instant(at, e)
		}
	}
}

func (l *lockedObservers) Event(ev act.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, o := range l.obs {
		o.Event(ev)
	}
}

// promotionNote says what a live promotion did.
func promotionNote(start time.Time, names []string, p LivePromotion) string {
	s := fmt.Sprintf("live promotion at %s: %s -> %s", timeline.Clock(start, p.At), names[p.From], names[p.To])
	if p.Err != nil {
		return s + ": failed: " + p.Err.Error()
	}
	s += fmt.Sprintf(", writable %v after the failover was told", (p.Writable - p.Decided).Round(time.Millisecond))
	if p.Promotion.Pending > 0 {
		s += fmt.Sprintf(", %d stored transactions applied after", p.Promotion.Pending)
	}
	if p.Promotion.Fenced != nil {
		s += fmt.Sprintf("; %s not set read_only (%v)", names[p.From], p.Promotion.Fenced)
	}
	for _, j := range p.Promotion.Repointed {
		s += "; " + names[j] + " repointed"
	}
	var failed []int
	for j := range p.Promotion.RepointErr {
		failed = append(failed, j)
	}
	sort.Ints(failed)
	for _, j := range failed {
		s += fmt.Sprintf("; %s not repointed: %v", names[j], p.Promotion.RepointErr[j])
	}
	return s
}
