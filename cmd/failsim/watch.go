package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/benbjohnson/clock"
	"github.com/go-sql-driver/mysql"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/monitor"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// watchNodeFlags collects repeated --node NAME:ROLE=DSN flags. It never keeps or prints a DSN
// in an error: a DSN holds a password.
type watchNodeFlags []string

func (n *watchNodeFlags) String() string     { return "" }
func (n *watchNodeFlags) Set(s string) error { *n = append(*n, s); return nil }
func (n *watchNodeFlags) Type() string       { return "node" }
func (n *watchNodeFlags) repeatable()        {}

// watchFlags are failsim watch's flags.
type watchFlags struct {
	record                                recordFlags // watch_record.go
	nodes                                 watchNodeFlags
	statemap, onFailover, format, metrics string
	interval, timeout                     time.Duration
	query, policy                         string
	forDur, hookTimeout                   time.Duration
	logLevel                              string
	shadow                                watchShadowFlags // watch_shadow.go
}

// defaultHookTimeout bounds each --on-failover command: a hook that hangs (a pager that never
// answers, a script waiting on its terminal) must not hold watch's exit for ever.
const defaultHookTimeout = time.Minute

func (m *Main) watchCmd() *cobra.Command {
	var o watchFlags
	c := &cobra.Command{
		Use:   "watch",
		Short: "run the decision engine live against real MySQL servers",
		Long: `Probe real MySQL servers with the manager's checker and run the decision engine on the
outcomes, printing each change as 'failsim replay' does. It runs until interrupted (SIGINT or
SIGTERM) or for --for, then prints the verdict and waits for a running --on-failover command,
at most --on-failover-timeout after it started (then its process group is killed, with a
warning). See docs/live.md.

With --shadow NAME=FILE (repeatable), candidate statemaps are judged beside the live one on
the same probes, with no effect on it: where one would have decided a node's service otherwise,
a warning in the log names the shadow, node, time and cause, the metrics count it, and
--on-divergence runs (bounded by --on-divergence-timeout, as --on-failover is).

A DSN may leave its password out: failsim then reads node NAME's password from the
environment variable FAILSIM_PASSWORD_<NAME>, the name upper-cased with every character other
than A-Z and 0-9 turned into _ (db-1 reads FAILSIM_PASSWORD_DB_1). A password in a DSN on
the command line is visible to every local user in /proc. No output shows a password.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 0 {
				return usageErr(fmt.Errorf("watch takes no arguments, got %d", len(args)), "name the nodes with --node NAME:ROLE=DSN")
			}
			return nil
		},
		RunE: func(c *cobra.Command, _ []string) error { return m.runWatch(c.Context(), &o) },
	}
	f := c.Flags()
	f.Var(&o.nodes, "node", "a node to watch, `NAME:ROLE=DSN` (role master or replica; a go-sql-driver/mysql DSN, its password from FAILSIM_PASSWORD_<NAME> when it has none); repeat in the cluster's order")
	markRequired(f, "node")
	statemapVar(c, &o.statemap, "statemap override `FILE`, re-read when it changes")
	f.StringVar(&o.onFailover, "on-failover", "", "run `CMD` with sh -c at each failover (environment: FAILSIM_EVENT, FAILSIM_OLD_MASTER, FAILSIM_NEW_MASTER, FAILSIM_CONDITION, FAILSIM_TIME)")
	f.DurationVar(&o.hookTimeout, "on-failover-timeout", defaultHookTimeout, "kill an --on-failover command (and its process group) still running after this `DURATION`, with a warning")
	formatVar(c, &o.format)
	f.StringVar(&o.metrics, "metrics", "", "serve Prometheus metrics at http://`ADDR`/metrics")
	f.DurationVar(&o.interval, "interval", timeline.DefaultInterval, "time between probe starts of a node, a `DURATION`")
	f.DurationVar(&o.timeout, "timeout", monitor.DefaultBudget, "each probe's budget, a `DURATION`: connect, greeting, login and query together")
	f.StringVar(&o.query, "query", monitor.DefaultQuery, "the probe's `SQL`; use one that reads a heartbeat row to see storage stalls")
	f.StringVar(&o.policy, "policy", "automatic", "the cluster `POLICY`: automatic, manual or maintenance")
	complete(c, "policy", "automatic", "manual", "maintenance")
	f.DurationVar(&o.forDur, "for", 0, "stop after this `DURATION` and print the verdict (0: run until interrupted)")
	o.record.register(f)
	logLevelVar(c, &o.logLevel)
	shadowWatchVars(c, &o.shadow)
	return c
}

func (m *Main) runWatch(ctx context.Context, o *watchFlags) error {
	log, err := m.newLogger(o.logLevel)
	if err != nil {
		return err
	}
	f, err := parseFormat(o.format)
	if err != nil {
		return err
	}
	pol, ok := fence.ParsePolicy(o.policy)
	if !ok {
		return usageErr(fmt.Errorf("--policy %q: want automatic, manual or maintenance", o.policy), "")
	}
	if o.interval <= 0 || o.timeout <= 0 || o.forDur < 0 {
		return usageErr(errors.New("--interval and --timeout must be positive, --for not negative"), "")
	}
	if o.hookTimeout <= 0 {
		return usageErr(fmt.Errorf("--on-failover-timeout %v: want a positive duration", o.hookTimeout), "")
	}
	targets, err := parseNodes(o.nodes, o.timeout, o.query, log)
	if err != nil {
		return err
	}
	names := make([]string, len(targets))
	tl := &timeline.Timeline{File: "watch"}
	for i, t := range targets {
		names[i] = t.Name
		tl.Nodes = append(tl.Nodes, fence.NodeConfig{Name: t.Name, Role: t.Role})
	}
	log.Debug().Str("statemap", o.statemap).Msg("reading")
	sm, err := statemap.LoadContext(ctx, o.statemap)
	if err != nil {
		if ctx.Err() != nil {
			return nil // stopped before it started: no verdict to give
		}
		return usageErr(err, "")
	}
	metrics := monitor.NewMetrics(names)
	shadows, divHook, err := watchShadows(ctx, &o.shadow, metrics, names, m.Stderr, log)
	defer divHook.wait()
	if err != nil {
		return err
	}
	if o.metrics != "" {
		stop, err := serveMetrics(o.metrics, metrics, log)
		if err != nil {
			return err
		}
		defer stop()
	}
	clk := clock.New()
	start := clk.Now().Truncate(time.Millisecond) // a whole millisecond: a recording writes its times as clock times
	tl.Start = start
	rec, err := o.record.start(recordHeader(targets, o.interval, o.timeout, start, pol), sm, o.statemap != "", metrics, log)
	if err != nil {
		return err
	}
	hook := &failoverHook{hookCmd: hookCmd{flag: "--on-failover", cmd: o.onFailover, timeout: o.hookTimeout, stderr: m.Stderr}, start: start, names: names, log: log}
	// The verdict explains itself with sm, the map the runtime is given and starts with.
	run := report.NewRun(tl, sm, newLivePrinter(m.Stdout, f, start, names), metrics, hook, rec)
	rt, err := monitor.New(monitor.Config{
		Nodes: targets, Statemap: o.statemap, Map: sm, Policy: pol, Interval: o.interval, Clock: clk, Log: log,
		Budget: o.timeout, OnOutcome: rec.OnOutcome, OnReload: rec.OnReload, // a nil rec records nothing
		Observers: run.Observers(),
		OnProbe:   func(_ time.Duration, i int, r monitor.Result) { metrics.Probed(i, r.Condition) },
		Shadows:   shadows,
	}, monitor.Script{End: o.forDur})
	if err != nil {
		return usageErr(err, "")
	}
	log.Info().Int("nodes", len(targets)).Dur("interval", o.interval).Dur("timeout", o.timeout).Msg("watching")
	err = rt.Run(ctx)
	rec.Close()
	hook.wait()
	if err != nil {
		return err
	}
	_, err = run.Summary() // a watch has no expectations: its timeline states none
	return err
}

// parseNodes reads the --node flags into checkers, warning of a node whose DSN has no password
// and whose FAILSIM_PASSWORD_<NAME> is unset or empty (it will log in with none). No error
// repeats a DSN: it holds a password.
func parseNodes(specs []string, budget time.Duration, query string, log zerolog.Logger) ([]monitor.Node, error) {
	const hint = "--node db1:master='probe:PASSWORD@tcp(10.0.0.1:3306)/' --node db2:replica=..."
	if len(specs) == 0 {
		return nil, usageErr(errors.New("watch: no --node given: want one per database server"), hint)
	}
	var out []monitor.Node
	seen := map[string]bool{}
	masters := 0
	for i, spec := range specs {
		head, dsn, ok := strings.Cut(spec, "=")
		name, role, ok2 := strings.Cut(head, ":")
		if !ok || !ok2 || strings.ContainsAny(head, "@/()") {
			return nil, usageErr(fmt.Errorf("--node #%d: want NAME:ROLE=DSN (the value is not shown: it may hold a password)", i+1), hint)
		}
		if name == "" || !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
			return nil, usageErr(fmt.Errorf("--node #%d: node name %q: want UTF-8 text with no whitespace or control character", i+1, name), hint)
		}
		if seen[name] {
			return nil, usageErr(fmt.Errorf("--node %s: node named twice", name), "")
		}
		seen[name] = true
		r, ok := fence.ParseRole(role)
		if !ok {
			return nil, usageErr(fmt.Errorf("--node %s: role %q: want master or replica", name, role), "")
		}
		if r == fence.Master {
			masters++
		}
		full := withPassword(dsn, passwordVar(name))
		c, err := monitor.NewChecker(monitor.CheckerConfig{DSN: full, Budget: budget, Query: query})
		if err != nil {
			return nil, usageErr(fmt.Errorf("--node %s: %w", name, err), "a DSN looks like probe:PASSWORD@tcp(10.0.0.1:3306)/")
		}
		if cfg, err := mysql.ParseDSN(full); err == nil && cfg.Passwd == "" {
			log.Warn().Str("node", name).Msgf("its DSN has no password and %s is not set: it logs in with none", passwordVar(name))
		}
		out = append(out, monitor.Node{Name: name, Role: r, Prober: c})
	}
	if masters != 1 {
		return nil, usageErr(fmt.Errorf("watch: %d masters among the nodes: want exactly one", masters), "")
	}
	return out, nil
}

// serveMetrics serves the metrics at addr until stop is called.
func serveMetrics(addr string, metrics *monitor.Metrics, log zerolog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, &exitError{code: 1, err: fmt.Errorf("--metrics: %w", err)}
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error().Err(err).Msg("metrics server stopped")
		}
	}()
	log.Info().Str("addr", ln.Addr().String()).Msg("serving metrics at /metrics")
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}, nil
}

// livePrinter writes each event the moment it happens, in replay's format.
type livePrinter struct {
	mu  sync.Mutex // a live replay with a workload also prints its replication actions, from their goroutine
	p   *report.Printer
	err error
}

func newLivePrinter(w io.Writer, f report.Format, start time.Time, names []string) *livePrinter {
	return &livePrinter{p: report.NewPrinter(w, f, start, names)}
}

// Event implements drive.Observer: the line is written out at once.
func (l *livePrinter) Event(ev act.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	l.p.Event(ev)
	l.err = l.p.Flush()
}

// Flush implements report.Log: every line is out already; it returns the first error writing.
func (l *livePrinter) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Summary implements report.Log: after the lines, unless one could not be written, the summary.
func (l *livePrinter) Summary(file string, r *report.Report, results []expect.Result) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	l.err = l.p.Summary(file, r, results)
	return l.err
}

// failoverHook runs the --on-failover command at each failover, in the background.
type failoverHook struct {
	hookCmd
	start time.Time
	names []string // the nodes' names, in cluster order
	log   zerolog.Logger
}

// Event implements drive.Observer.
func (h *failoverHook) Event(ev act.Event) {
	if h.cmd == "" {
		return
	}
	// ev is reused once this call returns: take what the command needs now.
	var kind fence.Kind
	var at time.Duration
	var oldMaster, newMaster string
	var cond statemap.Condition
	switch ev := ev.(type) {
	case *fence.Failover:
		kind, at, oldMaster, newMaster, cond = ev.Kind(), ev.At, h.names[ev.Node], h.names[ev.To], ev.Condition
	case *fence.NoCandidate:
		kind, at, oldMaster, cond = ev.Kind(), ev.At, h.names[ev.Node], ev.Condition
	default:
		return
	}
	h.run(h.log.With().Str("old_master", oldMaster).Logger(),
		"FAILSIM_EVENT="+kind.String(),
		"FAILSIM_OLD_MASTER="+oldMaster,
		"FAILSIM_NEW_MASTER="+newMaster,
		"FAILSIM_CONDITION="+cond.String(),
		"FAILSIM_TIME="+h.start.Add(at).Format(time.RFC3339Nano),
	)
}
