package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/failsim/failsim/check"
	"github.com/failsim/failsim/internal/input"
	"github.com/failsim/failsim/internal/output"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/sweep"
	"github.com/failsim/failsim/timeline"
)

// varyFlag collects repeated --vary flags: the statemap's and checker's settings, and
// (orch) Orchestrator's keys, for --manager orchestrator.
type varyFlag struct {
	axes []sweep.Axis
	orch []sweep.OrchAxis
}

func (v *varyFlag) String() string { return "" }
func (v *varyFlag) Type() string   { return "vary" }
func (v *varyFlag) repeatable()    {}

func (v *varyFlag) Set(s string) error {
	if sweep.IsOrchKey(s) {
		a, err := sweep.ParseOrchVary(s)
		if err != nil {
			return err
		}
		for _, o := range v.orch {
			if o.Key == a.Key {
				return fmt.Errorf("%s is varied twice", a.Key)
			}
		}
		v.orch = append(v.orch, a)
		return nil
	}
	a, err := sweep.ParseVary(s)
	if err != nil {
		return err
	}
	for _, o := range v.axes {
		if o.Name == a.Name {
			return fmt.Errorf("%s is varied twice", a.Name)
		}
	}
	v.axes = append(v.axes, a)
	return nil
}

// sweepFlags are failsim sweep's flags.
type sweepFlags struct {
	vary             varyFlag
	statemap, family string
	statemapSet      bool // --statemap was given: '' is the defaults alone, no incident's statement read
	traces           int
	seed             uint64
	nodes            int
	length           time.Duration
	out, shard       string
	format           string
	workers          int
	logLevel         string
	workload         string
	manager          managerFlags // --manager, --manager-config: orchestrator sweeps its settings instead
}

func (m *Main) sweepCmd() *cobra.Command {
	var o sweepFlags
	c := &cobra.Command{
		Use:   "sweep",
		Short: "vary statemap thresholds and the checker over a grid and measure the trade",
		Long: `Vary statemap thresholds and the checker's interval and timeout over a grid, replay one set of
generated traces at every point, and measure the trade: the false-failover rate on benign
traces against the time to fence a dead master on fatal ones, and which incidents change
verdict. With --family partition it replays check's partition traces (witnesses, partitions,
host crashes) and measures split brain per trace (two or more nodes writable at once): the
share of traces with a window and its p50, p95 and max; only there do the group's
gap-threshold and failsafe-threshold act, so only there may they be varied. With --workload every trace also gets writes and replication (as failsim check
--workload), and each point measures the client's view: the unavailable time per trace
(p50, p95, max) and the acknowledged writes lost (in all, and the p95 of one trace). Writes
sweep.csv, sweep.json, sweep.svg and sweep.png in --out; with --shard, one share of the
grid for 'failsim merge'. With --manager orchestrator it varies one or two of Orchestrator's
keys (--vary InstancePollSeconds=1..10) instead: per point, the earliest and latest delay to
its first problem code and to DeadMaster for each fault on the master (in closed form), and
each INCIDENT replayed under its rules, written to DIR/sweep-orchestrator.csv. Exit 0 when the
sweep ran, 2 for bad input.`,
		Annotations: map[string]string{argsAnnotation: "[INCIDENT...]"},
		RunE: func(c *cobra.Command, args []string) error {
			o.statemapSet = c.Flags().Changed("statemap")
			if c.Flags().Changed("manager") || c.Flags().Changed("manager-config") {
				return m.runSweepManager(c.Context(), c, &o, args)
			}
			return m.runSweep(c.Context(), &o, args)
		},
	}
	f := c.Flags()
	f.Var(&o.vary, "vary", "what to vary, `NAME=FROM..TO[:STEP]`: CONDITION.threshold, interval or timeout (durations with units), gap-threshold or failsafe-threshold (ticks; --family partition), or with --manager orchestrator one of its keys (InstancePollSeconds=1..10), at most twice")
	markRequired(f, "vary")
	statemapVar(c, &o.statemap, "the statemap in force, `FILE`, whose thresholds the grid varies and the incidents run under (default: the shipped defaults, and each incident's statemap statement; '' for the shipped defaults alone)")
	f.StringVar(&o.family, "family", "all", "trace `FAMILY`: benign (false failovers), fatal (time to fence), all: both, or partition (split brain; the only one where gap-threshold and failsafe-threshold act)")
	complete(c, "family", "benign", "fatal", "all", "partition")
	f.IntVar(&o.traces, "traces", 2000, "`N` traces per family, generated once and replayed at every point")
	f.Uint64Var(&o.seed, "seed", 1, "random seed `S`: the same seed gives the same traces and results")
	f.IntVar(&o.nodes, "nodes", check.DefaultShape().Nodes, "cluster size `N` of each trace; the first node is the master")
	f.DurationVar(&o.length, "length", check.DefaultShape().Length, "virtual time each trace spans, a `DURATION`")
	f.StringVarP(&o.out, "out", "o", "sweep", "`DIR` to write the files to (created if missing)")
	c.MarkFlagDirname("out")
	f.StringVar(&o.shard, "shard", "", "compute share `K/N` of the grid (K from 0 to N-1, or auto/N: K from JOB_COMPLETION_INDEX) and write it to DIR/sweep-shard-K-of-N.json")
	formatVar(c, &o.format)
	f.IntVar(&o.workers, "workers", 0, "`N` replays in parallel (default: every core)")
	f.StringVar(&o.workload, "workload", "", "give every trace a workload, `writes=N/s,deadline=D` (as failsim check --workload), and measure the client's outage and lost writes at each point")
	logLevelVar(c, &o.logLevel)
	managerVars(c, &o.manager)
	return c
}

// loadIncident reads the incident at path and its statemap in force as replay's loadTimeline
// does: --statemap's file (smFlag; set says the flag was given), with an empty --statemap the
// shipped defaults alone, the incident's statemap statement unread, without --statemap the
// statement's file, or the defaults. A sweep reads no incident from standard input.
func loadIncident(ctx context.Context, path, smFlag string, set bool) (*timeline.Timeline, *statemap.Map, error) {
	if set && smFlag == "" {
		tl, err := timeline.ReadContext(ctx, path, nil)
		if err != nil {
			return nil, nil, err
		}
		return tl, statemap.Default(), tungstenOnly(tl, "sweep")
	}
	tl, sm, err := timeline.LoadContext(ctx, path, nil, smFlag)
	if err == nil {
		err = tungstenOnly(tl, "sweep")
	}
	return tl, sm, err
}

func (m *Main) runSweep(ctx context.Context, o *sweepFlags, args []string) error {
	log, err := m.newLogger(o.logLevel)
	if err != nil {
		return err
	}
	format, err := parseFormat(o.format)
	if err != nil {
		return err
	}
	if len(o.vary.orch) > 0 {
		return usageErr(fmt.Errorf("--vary %s: an Orchestrator setting, for --manager orchestrator", o.vary.orch[0].Key), "failsim sweep --manager orchestrator --vary InstancePollSeconds=1..10 [INCIDENT...]")
	}
	if len(o.vary.axes) == 0 {
		return usageErr(errors.New("nothing to vary"), "name a setting and its range: --vary login_response_timeout.threshold=1..12")
	}
	if len(o.vary.axes) > 2 {
		return usageErr(fmt.Errorf("--vary given %d times: a sweep varies at most two settings", len(o.vary.axes)), "sweep two at a time; a grid of more has no picture")
	}
	g := sweep.Grid{Axes: o.vary.axes}
	if n := g.Len(); n > sweep.MaxPoints {
		return usageErr(fmt.Errorf("the grid has %d points, more than %d", n, sweep.MaxPoints), "use a larger STEP in --vary")
	}
	cfg := sweep.Config{Grid: g, Seed: o.seed, Workers: o.workers}
	switch o.family {
	case "all":
		cfg.Benign, cfg.Fatal = o.traces, o.traces
	case "benign":
		cfg.Benign = o.traces
	case "fatal":
		cfg.Fatal = o.traces
	case "partition":
		cfg.Partition = o.traces
	default:
		return usageErr(fmt.Errorf("--family %q: want benign, fatal, all or partition", o.family), "a sweep measures false failovers on benign traces, the time to fence on fatal ones and split brain on partition ones")
	}
	for _, a := range o.vary.axes {
		if a.Liveness() && cfg.Partition == 0 {
			return usageErr(fmt.Errorf("--vary %s with --family %s: %w", a.Name, o.family, sweep.ErrNeedsPartitions), "vary it with --family partition")
		}
	}
	if o.traces < 1 {
		return usageErr(fmt.Errorf("--traces %d: want at least 1", o.traces), "")
	}
	if o.workload != "" {
		w, err := check.ParseWorkload(o.workload)
		if err != nil {
			return usageErr(fmt.Errorf("--workload %s: %w", o.workload, err), "--workload writes=200/s,deadline=2s")
		}
		cfg.Workload = &w
	}
	if o.nodes < 1 {
		return usageErr(fmt.Errorf("--nodes %d: want at least 1", o.nodes), "")
	}
	families := []check.Family{check.Benign, check.Fatal}
	if cfg.Partition > 0 {
		families = []check.Family{check.Partition}
	}
	if err := nodesFit(o.nodes, families...); err != nil {
		return err
	}
	if o.length < time.Minute || o.length > 24*time.Hour {
		return usageErr(fmt.Errorf("--length %s: want a duration from 1m to 24h", o.length), "")
	}
	if o.shard != "" {
		if cfg.Shard, err = parseSweepShard(o.shard); err != nil {
			return usageErr(fmt.Errorf("--shard %s: %w", o.shard, err), "")
		}
	}
	if err := writableDir(o.out); err != nil {
		return usageErr(fmt.Errorf("--out %s: %w", o.out, err), "--out names the directory the sweep's files are written to: give one failsim can write")
	}
	cfg.Shape = check.DefaultShape()
	cfg.Shape.Nodes, cfg.Shape.Length = o.nodes, o.length
	if cfg.Map, cfg.StatemapText, err = readStatemap(ctx, o.statemap); err != nil {
		return loadErr(ctx, "sweep", err)
	}
	cfg.StatemapPath = o.statemap
	for _, path := range args {
		tl, sm, err := loadIncident(ctx, path, o.statemap, o.statemapSet)
		if err != nil {
			return loadErr(ctx, "sweep", err)
		}
		data, err := input.ReadFile(ctx, path, "timeline", input.TimelineMax)
		if err != nil {
			return loadErr(ctx, "sweep", err)
		}
		sum := sha256.Sum256(data)
		cfg.Incidents = append(cfg.Incidents, sweep.Incident{Timeline: tl, Map: sm, SHA256: hex.EncodeToString(sum[:])})
	}
	// What the run writes is refused now, not at its end: a symlink, a FIFO, a device, an input.
	names := sweep.FileNames()
	if o.shard != "" {
		names = []string{sweep.FileName(cfg.Shard)}
	}
	for _, name := range names {
		if err := output.Check(filepath.Join(o.out, name), append([]string{o.statemap}, args...)...); err != nil {
			return usageErr(fmt.Errorf("--out: %w", err), "--out names the directory the sweep's files are written to: give another, or remove what is in the way")
		}
	}
	log.Debug().Int("points", g.Len()).Int("traces", o.traces).Msg("sweeping")
	if o.shard != "" {
		sh, err := sweep.Compute(ctx, cfg)
		if err != nil {
			return sweepErr(ctx, err)
		}
		data, err := sh.Marshal()
		if err != nil {
			return err
		}
		path := filepath.Join(o.out, sweep.FileName(cfg.Shard))
		if err := sweep.WriteFile(path, data); err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "failsim sweep: shard %d of %d: %d of %d points, written to %s\n", sh.Shard, sh.Of, len(sh.Computed), sh.Points, path)
		return nil
	}
	res, err := sweep.Run(ctx, cfg)
	if err != nil {
		return sweepErr(ctx, err)
	}
	return m.writeSweep(res, o.out, format == report.JSON)
}

// writeSweep writes a sweep's files to dir and prints its summary (or its JSON): what a whole
// run does at its end, and what failsim merge does with the shares of one.
func (m *Main) writeSweep(res *sweep.Result, dir string, json bool) error {
	if err := res.WriteDir(dir); err != nil {
		return err
	}
	if json {
		_, err := m.Stdout.Write(res.JSON())
		return err
	}
	if err := res.WriteText(m.Stdout); err != nil {
		return err
	}
	_, err := fmt.Fprintf(m.Stdout, "\nwrote %s\n", strings.Join([]string{filepath.Join(dir, "sweep.csv"),
		filepath.Join(dir, "sweep.json"), filepath.Join(dir, "sweep.svg"), filepath.Join(dir, "sweep.png")}, ", "))
	return err
}

// sweepErr is the error of a sweep that could not run: interrupted, or bad input.
func sweepErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return interrupted(ctx, "sweep")
	}
	hint := ""
	switch {
	case errors.Is(err, check.ErrNothingFatal):
		hint = "vary a condition the statemap in force fences (action fail, threshold >= 0), or use --family benign"
	case errors.Is(err, sweep.ErrTooBig):
		hint = "give fewer --traces, or a larger STEP in --vary"
	case errors.Is(err, sweep.ErrNeedsPartitions):
		hint = "vary it with --family partition"
	case errors.Is(err, sweep.ErrTooLong):
		hint = "give a longer --length, or a smaller range"
	}
	return usageErr(err, hint)
}

// readStatemap reads the statemap in force and its bytes; "" is the shipped defaults.
func readStatemap(ctx context.Context, path string) (*statemap.Map, string, error) {
	if path == "" {
		return statemap.Default(), "", nil
	}
	data, err := input.ReadFile(ctx, path, "statemap", input.StatemapMax)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", err
		}
		return nil, "", fmt.Errorf("statemap: %w", err)
	}
	m, err := statemap.FromBytes(path, data)
	return m, string(data), err
}

// parseShard reads --shard: K/N, or auto/N with K from JOB_COMPLETION_INDEX (a Kubernetes
// indexed job's).
func parseSweepShard(s string) (sweep.Shard, error) {
	ks, ns, ok := strings.Cut(s, "/")
	n, err := strconv.Atoi(ns)
	if !ok || err != nil || n < 1 {
		return sweep.Shard{}, errors.New("want K/N with 0 <= K < N, or auto/N")
	}
	if ks == "auto" {
		env, set := os.LookupEnv("JOB_COMPLETION_INDEX")
		if !set {
			return sweep.Shard{}, errors.New("auto: JOB_COMPLETION_INDEX is not set")
		}
		ks = env
	}
	k, err := strconv.Atoi(ks)
	if err != nil || k < 0 || k >= n {
		return sweep.Shard{}, fmt.Errorf("shard %q: want K from 0 to %d", ks, n-1)
	}
	return sweep.Shard{K: k, N: n}, nil
}
