package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/monitor"
	"github.com/failsim/failsim/narrate"
	"github.com/failsim/failsim/proxy"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/replica"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// Where the passwords of a live replay's other users come from: never the command line.
const (
	adminPasswordEnv  = "FAILSIM_ADMIN_PASSWORD"
	writerPasswordEnv = "FAILSIM_WRITER_PASSWORD"
	replPasswordEnv   = "FAILSIM_REPL_PASSWORD"
)

// liveWorkloadFlags are the flags only a live replay with a workload takes.
var liveWorkloadFlags = []string{"admin", "writer", "repl-user", "links", "control-token-file"}

// liveTarget is what --mysql names: one server for every node (single, "" for the in-process
// server), or one server per node (perNode, in cluster order, passwords filled in from the
// environment).
type liveTarget struct {
	single  string
	perNode []string
}

// nodeDSN splits a --mysql value of the form NODE=DSN. A DSN has an "=" only after its
// user ("probe:pa=ss@tcp(...)/", "probe@tcp(...)/?timeout=2s"), so the value is NODE=DSN when
// what comes before its first "=" has none of the characters that start a DSN's later parts.
func nodeDSN(v string) (node, dsn string, ok bool) {
	node, dsn, ok = strings.Cut(v, "=")
	if !ok || node == "" || strings.ContainsAny(node, "@:/()?") {
		return "", v, false
	}
	return node, dsn, true
}

// liveServers reads the --mysql values against timeline tl: the single form (at most one DSN)
// for a timeline without a workload or replication statements, NODE=DSN for each node for one
// with them.
func liveServers(values []string, tl *timeline.Timeline) (liveTarget, error) {
	var plain []string
	named := map[int]string{}
	index := map[string]int{}
	for i, n := range tl.Names() {
		index[n] = i
	}
	nodeList := strings.Join(tl.Names(), ", ")
	for _, v := range values {
		node, dsn, ok := nodeDSN(v)
		if !ok {
			plain = append(plain, v)
			continue
		}
		i, known := index[node]
		if !known {
			return liveTarget{}, usageErr(fmt.Errorf("--mysql %s=...: the timeline has no node %q: it has %s", node, node, nodeList), "")
		}
		if _, dup := named[i]; dup {
			return liveTarget{}, usageErr(fmt.Errorf("--mysql %s=... given twice: one server per node", node), "")
		}
		named[i] = withPassword(withPassword(dsn, passwordVar(node)), passwordEnv)
	}
	switch {
	case len(plain) > 0 && len(named) > 0:
		return liveTarget{}, usageErr(errors.New("--mysql: give one DSN for every node, or NODE=DSN for each node, not both"), "")
	case len(plain) > 1:
		return liveTarget{}, usageErr(fmt.Errorf("--mysql given %d times without NODE=: give one DSN, or NODE=DSN for each node", len(plain)), "")
	}
	line := monitor.ReplLine(tl)
	if len(named) == 0 {
		if line > 0 {
			return liveTarget{}, usageErr(&fileline.Error{File: tl.File, Line: line,
				Err: fmt.Errorf("a workload or replication statement needs a real server for each node: give --mysql NODE=DSN for each of %s", nodeList)},
				"failsim replay --live --mysql db1=DSN --mysql db2=DSN ... --admin USER --writer USER FILE (docs/live.md)")
		}
		if len(plain) == 1 {
			return liveTarget{single: plain[0]}, nil
		}
		return liveTarget{}, nil
	}
	if line == 0 {
		return liveTarget{}, usageErr(errors.New("--mysql NODE=DSN: one server per node is for a timeline with a workload; give this one a single --mysql DSN, or none"), "")
	}
	t := liveTarget{perNode: make([]string, len(tl.Nodes))}
	for i, n := range tl.Names() {
		dsn, ok := named[i]
		if !ok {
			return liveTarget{}, usageErr(fmt.Errorf("--mysql: no server for node %s: give NODE=DSN for each of %s", n, nodeList), "")
		}
		t.perNode[i] = dsn
	}
	return t, nil
}

// liveReplOnly refuses the flags of a live replay with a workload on one without.
func liveReplOnly(c *cobra.Command, tl *timeline.Timeline) error {
	for _, name := range liveWorkloadFlags {
		if c.Flags().Changed(name) {
			return usageErr(fmt.Errorf("--%s is for a live replay of a timeline with a workload (--mysql NODE=DSN for each node); %s has none", name, tl.File), "")
		}
	}
	return nil
}

// liveUser is a user given by flag, its password from an environment variable.
type liveUser struct {
	flag, user, env string
}

// dsn returns base's DSN for the user, on addr.
func (u liveUser) dsn(base *mysql.Config, addr string) string {
	c := base.Clone()
	c.User, c.Passwd, c.Addr = u.user, os.Getenv(u.env), addr
	return c.FormatDSN()
}

// runReplayLiveRepl plays a timeline with a workload live on one real server per node (dsns,
// in cluster order): one failsim proxy per node in front of its server carries the probes,
// the writes and the promotions, and the timeline's faults; the replication events are made
// real (STOP/START SLAVE, MASTER_DELAY, the links' proxy of --links); a failover promotes for
// real. It prints the live events, then the decisions and the client's view, simulated
// against live, and the verdict: agree (exit 0) or differ (exit 1).
func (m *Main) runReplayLiveRepl(ctx context.Context, c *cobra.Command, o *replayFlags, tl *timeline.Timeline, sm *statemap.Map, dsns []string, f report.Format, log zerolog.Logger) error {
	r := tl.Repl
	if !r.Workload {
		return usageErr(&fileline.Error{File: tl.File, Line: monitor.ReplLine(tl),
			Err: errors.New("a live replay of replication statements needs a workload (workload writes=N/s): its writes are what it measures")}, "")
	}
	if c.Flags().Changed("speed") && o.speed != 1 {
		return usageErr(fmt.Errorf("--speed %v: a timeline with a workload plays live at speed 1 only (the write rate is never scaled); %s:%d", o.speed, tl.File, r.WorkloadLine), "leave --speed out")
	}
	acts, err := monitor.ReplicationActions(tl, o.links != "")
	if err != nil {
		return usageErr(err, "")
	}
	admin := liveUser{"--admin", o.admin, adminPasswordEnv}
	writer := liveUser{"--writer", o.writer, writerPasswordEnv}
	for _, u := range []liveUser{admin, writer} {
		if u.user == "" {
			return usageErr(fmt.Errorf("a live replay with a workload needs %s USER on every node's server, its password from %s", u.flag, u.env), "docs/live.md lists the grants each user needs")
		}
	}
	bases := make([]*mysql.Config, len(dsns))
	names := tl.Names()
	for i, d := range dsns {
		if bases[i], err = monitor.ProxyDSN(d); err != nil {
			return usageErr(fmt.Errorf("--mysql %s: %w", names[i], err), "a DSN looks like probe:PASSWORD@tcp(127.0.0.1:3306)/")
		}
	}
	var links *linkProxy
	if o.links != "" {
		token, _, err := controlToken(ctx, c, "", o.tokenFile)
		if err != nil {
			return err
		}
		if links, err = newLinkProxy(ctx, o.links, token, names); err != nil {
			return err
		}
		for _, a := range acts {
			if a.Kind == monitor.LinkFreeze || a.Kind == monitor.LinkHeal || a.Kind == monitor.StreamLag {
				if len(links.of[a.Node]) == 0 {
					return usageErr(fmt.Errorf("--links %s: no node %s<-SOURCE carries %s's stream (its nodes: %s)", o.links, names[a.Node], names[a.Node], strings.Join(links.all, ", ")), "")
				}
			}
		}
	}

	// Every user logs in to every server before the run: a run whose writes all fail at login
	// says nothing about the faults, and takes the whole timeline to say it.
	var pools []*sql.DB
	defer func() {
		for _, p := range pools {
			p.Close()
		}
	}()
	pool := func(dsn string, size int) (*sql.DB, error) {
		cfg, err := mysql.ParseDSN(dsn)
		if err != nil {
			return nil, err
		}
		cfg.Timeout = 2 * time.Second
		cfg.Logger = &mysql.NopLogger{}
		conn, err := mysql.NewConnector(cfg)
		if err != nil {
			return nil, err
		}
		db := sql.OpenDB(conn)
		db.SetMaxOpenConns(size)
		db.SetMaxIdleConns(size)
		pools = append(pools, db)
		return db, nil
	}
	readers := make([]*sql.DB, len(dsns))
	for i, b := range bases {
		chk, err := monitor.NewChecker(monitor.CheckerConfig{DSN: b.FormatDSN(), Budget: tl.Timeout})
		if err != nil {
			return usageErr(fmt.Errorf("--mysql %s: %w", names[i], err), "")
		}
		if res := chk.Probe(ctx); res.Condition != statemap.OK {
			return usageErr(fmt.Errorf("--mysql %s: a probe of %s with no fault ended in %s: %v", names[i], chk.Addr(), res.Condition, res.Err),
				"the live replay needs every node's server running, the probe user able to log in and query")
		}
		if readers[i], err = pool(b.FormatDSN(), 4); err != nil {
			return usageErr(fmt.Errorf("--mysql %s: %w", names[i], err), "")
		}
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		for _, u := range []liveUser{admin, writer} {
			db, err := pool(u.dsn(b, b.Addr), 1)
			if err == nil {
				err = db.PingContext(pctx)
			}
			if err != nil {
				cancel()
				return usageErr(fmt.Errorf("%s %s on %s (%s): %v", u.flag, u.user, names[i], b.Addr, err), "its password comes from "+u.env)
			}
		}
		cancel()
	}
	master := r.Config.Master
	var top sql.NullInt64
	if err := readers[master].QueryRowContext(ctx, "SELECT MAX(id) FROM "+ledgerTable).Scan(&top); err != nil {
		return usageErr(fmt.Errorf("the ledger on %s, the master: %v", names[master], err),
			"create "+ledgerTable+" (id BIGINT PRIMARY KEY) on the master, and grant the probe user SELECT and --writer INSERT on it")
	}

	// One proxy per node in front of its server: the probes, the writes and the promotions go
	// through it, and the timeline's faults are set on it.
	pcfg := proxy.Config{Log: log}
	for i, b := range bases {
		pcfg.Nodes = append(pcfg.Nodes, proxy.NodeConfig{Name: names[i], Listen: "127.0.0.1:0", Upstream: b.Addr})
	}
	px, err := proxy.New(pcfg)
	if err != nil {
		return &exitError{code: 1, err: fmt.Errorf("start the proxies: %w", err)}
	}
	defer px.Close()
	lcfg := monitor.LiveReplicationConfig{
		Config:      monitor.Config{Map: sm, Policy: tl.Policy, Interval: tl.Interval, Log: log},
		Precedence:  r.Config.Precedence,
		Replication: acts,
		Rate:        r.Config.Rate, Deadline: r.Config.Deadline, Base: top.Int64 + 1,
		ApplyWait: r.Config.ApplyWait,
		Readers:   readers,
	}
	if r.Config.Mode == repl.Semisync {
		lcfg.Semisync = cmpOr(r.Config.Timeout, repl.DefaultTimeout)
	}
	for i, b := range bases {
		pn, _ := px.Node(names[i])
		c := b.Clone()
		c.Addr = pn.Addr()
		chk, err := monitor.NewChecker(monitor.CheckerConfig{DSN: c.FormatDSN(), Budget: tl.Timeout})
		if err != nil {
			return usageErr(fmt.Errorf("--mysql %s: %w", names[i], err), "")
		}
		lcfg.Nodes = append(lcfg.Nodes, monitor.Node{Name: names[i], Role: tl.Nodes[i].Role, Prober: chk})
		adb, err := pool(admin.dsn(b, pn.Addr()), 8)
		if err != nil {
			return usageErr(err, "")
		}
		wdb, err := pool(writer.dsn(b, pn.Addr()), 64)
		if err != nil {
			return usageErr(err, "")
		}
		lcfg.Admins, lcfg.Writers = append(lcfg.Admins, adb), append(lcfg.Writers, wdb)
	}
	replUser := liveUser{"--repl-user", o.replUser, replPasswordEnv}
	lcfg.Route = func(rep, src int) replica.Source {
		s := replica.Source{Addr: bases[src].Addr}
		if a, ok := links.route(rep, src); ok {
			s.Addr = a
		}
		if replUser.user != "" {
			s.User, s.Password = replUser.user, os.Getenv(replUser.env)
		}
		return s
	}
	lcfg.SetLink = func(node int, md proxy.Mode) error { return links.set(ctx, node, md) }
	var injectErr error
	lcfg.Script = monitor.TimelineScript(tl, func(i int, ft fault.Fault) {
		if err := px.SetMode(names[i], proxy.Mode{Fault: ft}); err != nil && injectErr == nil {
			injectErr = fmt.Errorf("set %s to %s: %w", names[i], ft, err)
		}
	})

	simulated, predicted := simulateRepl(tl, sm)
	out := newLivePrinter(m.Stdout, f, tl.Start, names)
	// The replication actions are told from their own goroutine, the runtime's events from its
	// loop: one lock keeps the observers' order.
	obs := &lockedObservers{obs: []drive.Observer{out}}
	var run *reportRun
	if o.report != "" {
		run = newReportRun(tl, sm)
		obs.obs = append(obs.obs, run.observers()...)
		lcfg.Config.OnProbe = func(at time.Duration, node int, res monitor.Result) {
			obs.mu.Lock()
			defer obs.mu.Unlock()
			run.rec.Counted(at, node, res.Condition)
		}
	}
	lcfg.Config.Observers = []drive.Observer{obs}
	lcfg.OnAction = func(a monitor.ReplicationAction, err error) {
		if err == nil && a.Input != nil {
			obs.Event(repl.Applied{At: a.At, Input: a.Input})
		}
	}
	if f == report.Text {
		fmt.Fprintf(m.Stdout, "live replay of %s at 1x on %d servers, %d writes every %v with a %v deadline: %s\n", tl.File, len(dsns), r.Config.Rate.Writes, r.Config.Rate.Per, r.Config.Deadline, tl.End)
	}
	res, err := monitor.LiveReplication(ctx, lcfg)
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	lines, decisionsOK := monitor.Compare(tl.Start, simulated, res.Decisions)
	live := res.Writes.Summary()
	client, clientOK := monitor.CompareReplication(tl.Start, predicted, live, int64(len(res.Lost)), r.Config.Rate, r.Config.Deadline)
	// A promotion or a replication action that failed, or a fault not set, makes the live run
	// another run than the timeline's: it cannot agree.
	var notes []string
	made := injectErr == nil && len(res.Errors) == 0
	for _, p := range res.Promotions {
		notes = append(notes, promotionNote(tl.Start, names, p))
		made = made && p.Err == nil
	}
	for _, e := range append(res.Errors, injectErr) {
		if e != nil {
			notes = append(notes, "not made real: "+e.Error())
		}
	}
	if run != nil {
		// The report's writes row is the live client's view; what was lost is the ledger's.
		fin := live
		fin.Lost = int64(len(res.Lost))
		if len(res.Promotions) == 1 && len(res.Lost) > 0 {
			p := res.Promotions[0]
			fin.Losses = []repl.Loss{{At: p.At, Cause: repl.LostAtFailover, Master: p.From, Keeper: p.To, Count: fin.Lost,
				First: res.Lost[0], Last: res.Lost[len(res.Lost)-1]}}
		}
		obs.Event(repl.Final{At: tl.End, Config: r.Config, Summary: fin, Workload: true})
		run.extra = "decisions, simulated against live (within one tick):\n  " + strings.Join(lines, "\n  ") +
			"\n\nthe client's view, simulated against live (the writes row above is the live one; lost writes are ledger ids):\n  " + strings.Join(client, "\n  ")
		if len(notes) > 0 {
			run.extra += "\n\n" + strings.Join(notes, "\n")
		}
		if err := m.writeReport(o.report, "html", run); err != nil {
			return err
		}
	}
	outcome := liveReplOutcome{file: tl.File, servers: len(dsns), decisions: lines, client: client, notes: notes,
		agree:     decisionsOK && clientOK && made,
		simulated: predicted, live: live, liveLost: int64(len(res.Lost))}
	if err := outcome.write(m.Stdout, f); err != nil {
		return err
	}
	if out.err != nil {
		return out.err
	}
	if !outcome.agree {
		return failedErr()
	}
	return nil
}

// lockedObservers tells its observers every event and instant under one lock.
type lockedObservers struct {
	mu  sync.Mutex
	obs []drive.Observer
}

func (l *lockedObservers) Instant(at time.Duration, e *fence.Engine) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, o := range l.obs {
		o.Instant(at, e)
	}
}

func (l *lockedObservers) Event(ev fence.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, o := range l.obs {
		o.Event(ev)
	}
}

// liveReplOutcome is what a live replay with a workload prints after its live events.
type liveReplOutcome struct {
	file      string
	servers   int
	decisions []string // monitor.Compare's lines
	client    []string // monitor.CompareReplication's lines
	notes     []string // the promotions and what could not be made real
	agree     bool
	simulated repl.Summary
	live      repl.Summary
	liveLost  int64
}

// write prints o: in text the decisions, the client's view and the notes, then the verdict;
// in JSON one {"live_summary": {...}} object.
func (o liveReplOutcome) write(w io.Writer, f report.Format) error {
	if f == report.JSON {
		b, err := json.Marshal(map[string]any{"live_summary": map[string]any{"file": o.file, "speed": 1, "servers": o.servers,
			"agree": o.agree, "decisions": o.decisions, "client": o.client, "notes": o.notes,
			"simulated": availabilityJSON(o.simulated, o.simulated.Lost), "live": availabilityJSON(o.live, o.liveLost)}})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\ndecisions, simulated against live (within one tick):\n  %s\n", strings.Join(o.decisions, "\n  "))
	fmt.Fprintf(&b, "\nthe client's view, simulated against live (lost writes within one deadline's worth, the longest outage within one tick):\n  %s\n", strings.Join(o.client, "\n  "))
	if len(o.notes) > 0 {
		fmt.Fprintf(&b, "\n%s\n", strings.Join(o.notes, "\n"))
	}
	if o.agree {
		b.WriteString("verdict: agree\n")
	} else {
		b.WriteString("verdict: differ\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ledgerTable is the table the writer inserts one row into per write.
const ledgerTable = "failsim.ledger"

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// simulateRepl replays tl in the simulator and returns its fencing decisions and the client's
// view (the replication model's summary), to set beside the live ones.
func simulateRepl(tl *timeline.Timeline, sm *statemap.Map) ([]monitor.Decision, repl.Summary) {
	rec := &monitor.Recorder{Names: tl.Names()}
	fin := &finalCatcher{}
	sim.Replay(tl, sm, rec, fin)
	return rec.Decisions, fin.summary
}

// finalCatcher keeps the replication model's summary from the run's repl.Final.
type finalCatcher struct{ summary repl.Summary }

func (f *finalCatcher) Instant(time.Duration, *fence.Engine) {}

func (f *finalCatcher) Event(ev fence.Event) {
	if fin, ok := ev.(repl.Final); ok {
		f.summary = fin.Summary
	}
}

// promotionNote says what a live promotion did.
func promotionNote(start time.Time, names []string, p monitor.LivePromotion) string {
	s := fmt.Sprintf("live promotion at %s: %s -> %s", narrate.Clock(start, p.At), names[p.From], names[p.To])
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

// availabilityJSON is the client's view of one side for --format json.
func availabilityJSON(s repl.Summary, lost int64) map[string]any {
	return map[string]any{"offered": s.Offered, "acknowledged": s.Acknowledged, "failed": s.Failed, "lost": lost,
		"longest_outage_s": s.Outage.Length().Seconds(), "outage_from_s": s.Outage.From.Seconds(), "outage_to_s": s.Outage.To.Seconds(),
		"unavailable_s": s.Unavailable.Seconds()}
}

// linkProxy is the running failsim proxy that carries the replicas' streams, one node
// REPLICA<-SOURCE per stream, driven through its control API.
type linkProxy struct {
	client *proxy.Client
	all    []string         // every node of the proxy, sorted
	of     map[int][]string // per replica: its link nodes
	addr   map[[2]int]string
}

// newLinkProxy lists the links' proxy's nodes; a node named REPLICA<-SOURCE of two of the
// timeline's nodes is a link.
func newLinkProxy(ctx context.Context, url, token string, names []string) (*linkProxy, error) {
	l := &linkProxy{client: &proxy.Client{Addr: url, Token: token}, of: map[int][]string{}, addr: map[[2]int]string{}}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	nodes, err := l.client.Nodes(ctx)
	if err != nil {
		return nil, usageErr(fmt.Errorf("--links %s: %w", url, err), "--links is the control API of the failsim proxy that carries the replicas' streams (failsim proxy --control ADDR)")
	}
	index := map[string]int{}
	for i, n := range names {
		index[n] = i
	}
	for _, n := range nodes {
		l.all = append(l.all, n.Name)
		rep, src, ok := strings.Cut(n.Name, "<-")
		ri, rok := index[rep]
		si, sok := index[src]
		if !ok || !rok || !sok || ri == si {
			continue
		}
		l.of[ri] = append(l.of[ri], n.Name)
		l.addr[[2]int{ri, si}] = n.Listen
	}
	sort.Strings(l.all)
	return l, nil
}

// route is the address replica rep dials to stream from src through the links' proxy.
func (l *linkProxy) route(rep, src int) (string, bool) {
	if l == nil {
		return "", false
	}
	a, ok := l.addr[[2]int{rep, src}]
	return a, ok
}

// set sets mode md on every link of replica node.
func (l *linkProxy) set(ctx context.Context, node int, md proxy.Mode) error {
	if l == nil {
		return errors.New("no --links")
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for _, name := range l.of[node] {
		if _, err := l.client.SetMode(ctx, name, md.String()); err != nil {
			return fmt.Errorf("--links: set %s to %s: %w", name, md, err)
		}
	}
	return nil
}
