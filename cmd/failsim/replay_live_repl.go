package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/monitor"
	"github.com/failsim/failsim/monitor/livereplay"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
	"github.com/failsim/failsim/writer"
)

// Where the passwords of a live replay's other users come from: never the command line.
const (
	adminPasswordEnv  = "FAILSIM_ADMIN_PASSWORD"
	writerPasswordEnv = "FAILSIM_WRITER_PASSWORD"
	replPasswordEnv   = "FAILSIM_REPL_PASSWORD"
)

// liveWorkloadFlags are the flags only a live replay with a workload takes.
var liveWorkloadFlags = []string{"admin", "writer", "repl-user", "links", "control-token-file"}

// liveTarget is what --mysql names: one server for every node (single, "" for the built-in
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
	line := livereplay.ReplLine(tl)
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

// replUser is a user given by flag, its password from the environment variable env.
func replUser(user, env string) livereplay.ReplUser {
	return livereplay.ReplUser{Name: user, Password: os.Getenv(env)}
}

// runReplayLiveRepl plays a timeline with a workload live on one real server per node (dsns,
// in cluster order) with livereplay.ReplayRepl: one failsim proxy per node in front of its server
// carries the probes, the writes and the promotions, and the timeline's faults; the
// replication events are made real (STOP/START SLAVE, MASTER_DELAY, the links' proxy of
// --links); a failover promotes for real. It prints the live events, then the decisions and
// the client's view, simulated against live, and the verdict: agree (exit 0) or differ (exit 1).
func (m *Main) runReplayLiveRepl(ctx context.Context, c *cobra.Command, o *replayFlags, tl *timeline.Timeline, sm *statemap.Map, dsns []string, f report.Format, log zerolog.Logger) error {
	r := tl.Repl
	if !r.Workload {
		return usageErr(&fileline.Error{File: tl.File, Line: livereplay.ReplLine(tl),
			Err: errors.New("a live replay of replication statements needs a workload (workload writes=N/s): its writes are what it measures")}, "")
	}
	if c.Flags().Changed("speed") && o.speed != 1 {
		return usageErr(fmt.Errorf("--speed %v: a timeline with a workload plays live at speed 1 only (the write rate is never scaled); %s:%d", o.speed, tl.File, r.WorkloadLine), "leave --speed out")
	}
	if o.links != "" {
		// Before anything else: a bad URL never reaches the network.
		if err := livereplay.CheckLinksURL(o.links); err != nil {
			return liveUsage(err)
		}
	}
	acts, err := livereplay.ReplicationActions(tl, o.links != "")
	if err != nil {
		return usageErr(needsLinks(err), "")
	}
	for _, u := range []struct {
		field livereplay.Field
		name  string
	}{{livereplay.FieldAdmin, o.admin}, {livereplay.FieldWriter, o.writer}} {
		if u.name == "" {
			return usageErr(fmt.Errorf("a live replay with a workload needs %s USER on every node's server, its password from %s",
				liveUsers[u.field].flag, liveUsers[u.field].env), "docs/live.md lists the grants each user needs")
		}
	}
	names := tl.Names()
	bases, err := livereplay.ReplServers(names, dsns)
	if err != nil {
		return liveUsage(err)
	}
	simulated, predicted := simulateRepl(tl, sm)
	xs := livereplay.NewLiveExpectations(tl, sm)
	cfg := livereplay.ReplayReplConfig{Timeline: tl, Map: sm, Servers: bases, Replication: acts,
		Admin: replUser(o.admin, adminPasswordEnv), Writer: replUser(o.writer, writerPasswordEnv), Repl: replUser(o.replUser, replPasswordEnv),
		Simulated: simulated.Decisions, SimulatedStates: simulated.States, Predicted: predicted, Log: log}
	if o.links != "" {
		token, _, err := controlToken(ctx, c, "", o.tokenFile)
		if err != nil {
			return err
		}
		links, err := livereplay.NewProxyLinks(ctx, o.links, token, names, acts)
		if err != nil {
			return liveUsage(err)
		}
		cfg.Links = links
	}

	out := newLivePrinter(m.Stdout, f, tl.Start, names)
	cfg.Observers = []drive.Observer{out, xs.Observer()}
	var run *reportRun
	if o.report != "" {
		run = newReportRun(tl, sm)
		cfg.Observers = append(cfg.Observers, run.observers()...)
		cfg.OnProbe = func(at time.Duration, node int, res monitor.Result) { run.rec.Counted(at, node, res.Condition) }
	}
	cfg.Ready = func() {
		if f == report.Text {
			fmt.Fprintf(m.Stdout, "live replay of %s at 1x on %d servers, %d writes every %v with a %v deadline: %s\n", tl.File, len(dsns), r.Config.Rate.Writes, r.Config.Rate.Per, r.Config.Deadline, tl.End)
		}
	}
	res, err := livereplay.ReplayRepl(ctx, cfg)
	if err != nil {
		if len(res.Notes) > 0 && f == report.Text {
			fmt.Fprintf(m.Stdout, "\n%s\n", strings.Join(res.Notes, "\n"))
		} else if len(res.Notes) > 0 {
			b, _ := json.Marshal(livereplay.Output[livereplay.Interrupted]{LiveSummary: livereplay.Interrupted{File: tl.File, Interrupted: true, Notes: res.Notes}})
			fmt.Fprintf(m.Stdout, "%s\n", b)
		}
		return liveUsage(err)
	}
	live := res.Live
	if run != nil {
		// The report's writes row is the live client's view; what was lost is the ledger's.
		fin := live
		fin.Lost = int64(len(res.Lost))
		promotions := make([]writer.Promotion, len(res.Promotions))
		for i, p := range res.Promotions {
			promotions[i] = writer.Promotion{At: p.At, From: p.From, To: p.To}
		}
		fin.Losses = writer.Losses(res.Lost, promotions)
		for _, ob := range cfg.Observers {
			ob.Event(&repl.Final{At: tl.End, Config: r.Config, Summary: fin, Workload: true})
		}
		run.extra = "decisions, simulated against live (within one tick):\n  " + strings.Join(res.Decisions, "\n  ") +
			"\n\nstate changes, simulated against live (within one tick):\n  " + strings.Join(res.States, "\n  ") +
			"\n\nthe client's view, simulated against live (the writes row above is the live one; lost writes are ledger ids):\n  " + strings.Join(res.Client, "\n  ")
		if len(res.Notes) > 0 {
			run.extra += "\n\n" + strings.Join(res.Notes, "\n")
		}
		if err := m.writeReport(ctx, o.report, "html", run, tl.File, o.statemap); err != nil {
			return err
		}
	}
	results := xs.Results()
	xlines, held := livereplay.ExpectationLines(tl.File, results)
	if run != nil && len(xlines) > 0 {
		run.extra += "\n\n" + strings.Join(xlines, "\n")
	}
	outcome := liveReplOutcome{file: tl.File, servers: len(dsns), decisions: res.Decisions, states: res.States, client: res.Client, notes: res.Notes,
		agree: res.Agree, simulated: predicted, live: live, liveLost: int64(len(res.Lost)), expectations: results, xlines: xlines}
	if err := outcome.write(m.Stdout, f); err != nil {
		return err
	}
	if out.err != nil {
		return out.err
	}
	if !outcome.agree || !held {
		return failedErr()
	}
	return nil
}

// liveReplOutcome is what a live replay with a workload prints after its live events.
type liveReplOutcome struct {
	file      string
	servers   int
	decisions []string // livereplay.Compare's lines
	states    []string // livereplay.CompareStates' lines
	client    []string // livereplay.CompareReplication's lines
	notes     []string // the promotions and what could not be made real
	agree     bool
	simulated repl.Summary
	live      repl.Summary
	liveLost  int64
	// expectations are the live verdicts of the expect lines, xlines their text
	// (livereplay.ExpectationLines).
	expectations []livereplay.ExpectResult
	xlines       []string
}

// write prints o: in text the decisions, the client's view and the notes, then the verdict;
// in JSON one {"live_summary": {...}} object.
func (o liveReplOutcome) write(w io.Writer, f report.Format) error {
	if f == report.JSON {
		b, err := json.Marshal(livereplay.Output[livereplay.ReplSummary]{LiveSummary: livereplay.ReplSummary{Agree: o.agree, Client: o.client,
			Decisions: o.decisions, Expectations: o.expectations, File: o.file, Live: livereplay.NewAvailability(o.live, o.liveLost), Notes: o.notes,
			Servers: o.servers, Simulated: livereplay.NewAvailability(o.simulated, o.simulated.Lost), Speed: 1, States: o.states}})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\ndecisions, simulated against live (within one tick):\n  %s\n", strings.Join(o.decisions, "\n  "))
	fmt.Fprintf(&b, "\nstate changes, simulated against live (within one tick):\n  %s\n", strings.Join(o.states, "\n  "))
	fmt.Fprintf(&b, "\nthe client's view, simulated against live (lost writes within one deadline's worth, the longest outage within one tick, failed writes and unavailable time within one deadline and a tick a failover):\n  %s\n", strings.Join(o.client, "\n  "))
	if len(o.notes) > 0 {
		fmt.Fprintf(&b, "\n%s\n", strings.Join(o.notes, "\n"))
	}
	if o.agree {
		b.WriteString("verdict: agree\n")
	} else {
		b.WriteString("verdict: differ\n")
	}
	if len(o.xlines) > 0 {
		fmt.Fprintf(&b, "\n%s\n", strings.Join(o.xlines, "\n"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// simulateRepl replays tl in the simulator and returns its fencing decisions and state
// changes and the client's view (the replication model's summary), to set beside the live
// ones.
func simulateRepl(tl *timeline.Timeline, sm *statemap.Map) (*livereplay.Recorder, repl.Summary) {
	rec := &livereplay.Recorder{Names: tl.Names()}
	fin := &finalCatcher{}
	sim.Replay(tl, sm, rec, fin)
	return rec, fin.summary
}

// finalCatcher keeps the replication model's summary from the run's repl.Final.
type finalCatcher struct{ summary repl.Summary }

func (f *finalCatcher) Event(ev act.Event) {
	if fin, ok := ev.(*repl.Final); ok {
		f.summary = fin.Summary
	}
}
