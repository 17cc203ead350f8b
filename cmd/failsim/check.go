package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/failsim/failsim/check"
	"github.com/failsim/failsim/internal/output"
	"github.com/failsim/failsim/property"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/statemap"
)

// specsFlag collects repeated --property flags.
type specsFlag []property.Spec

func (s *specsFlag) String() string { return "" }
func (s *specsFlag) Type() string   { return "property" }
func (s *specsFlag) repeatable()    {}

func (s *specsFlag) Set(v string) error {
	sp, err := property.ParseSpec(v)
	if err != nil {
		return err
	}
	for _, o := range *s {
		if o.Name == sp.Name {
			return fmt.Errorf("%s is named twice", sp.Name)
		}
	}
	*s = append(*s, sp)
	return nil
}

// checkFlags are failsim check's flags.
type checkFlags struct {
	statemap, family string
	specs            specsFlag
	traces           int
	seed             uint64
	out              string
	nodes            int
	length           time.Duration
	workers          int
	logLevel         string
	report           bool
	format, junit    string
	shard            string
	workload         string
	manager          managerFlags // --manager, --manager-config: orchestrator's rules instead
}

func (m *Main) checkCmd() *cobra.Command {
	var o checkFlags
	c := &cobra.Command{
		Use:   "check",
		Short: "property-test a statemap against generated fault traces",
		Long: `Property-test a statemap: generate --traces seeded fault traces of each family, replay each
under the statemap, and judge properties on every one. A violation is shrunk to a minimal
timeline, written to --out, that 'failsim replay' reproduces. Exit 0 when every property
held, 1 when one was violated, 2 for bad input.

With --shard K/N it judges the K-th of N contiguous blocks of each family's traces (K from 0;
auto/N reads K from JOB_COMPLETION_INDEX, as a Kubernetes Indexed Job sets it), writes
check-shard-K-of-N.json to --out and exits 0; 'failsim merge' joins the N shares into what one
run prints, with its exit status.

With --manager orchestrator [--manager-config FILE] it judges the properties under
Orchestrator's rules instead, on benign and fatal traces generated for it; a property that
means nothing under Orchestrator (one of the Tungsten managers' fencing, coordinator, alarms
or group) is bad input that says why.`,
		Args: noArgs("name the statemap with --statemap FILE"),
		RunE: func(c *cobra.Command, _ []string) error {
			if c.Flags().Changed("manager") || c.Flags().Changed("manager-config") {
				return m.checkedStdout(func(m *Main) error { return m.runCheckManager(c.Context(), c, &o) })
			}
			return m.checkedStdout(func(m *Main) error { return m.runCheck(c.Context(), &o) })
		},
	}
	f := c.Flags()
	statemapVar(c, &o.statemap, "statemap override `FILE` to check (default: the shipped defaults)")
	f.StringVar(&o.family, "family", "all", "trace `FAMILY`: benign, fatal, mixed, partition, or all (the first three)")
	complete(c, "family", "benign", "fatal", "mixed", "partition", "all")
	f.Var(&o.specs, "property", "property to check, `NAME[=ARG]`, repeatable (default: every one that applies to the family)")
	complete(c, "property", property.Names()...)
	f.IntVar(&o.traces, "traces", 10000, "`N` traces to generate per family")
	f.Uint64Var(&o.seed, "seed", 1, "random seed `S`: the same seed gives the same traces and results")
	f.StringVar(&o.out, "out", ".", "`DIR` to write counterexample timelines to (created if missing)")
	c.MarkFlagDirname("out")
	f.IntVar(&o.nodes, "nodes", check.DefaultShape().Nodes, "cluster size `N` of each trace; the first node is the master")
	f.DurationVar(&o.length, "length", check.DefaultShape().Length, "virtual time each trace spans, a `DURATION`")
	f.StringVar(&o.workload, "workload", "", "give every trace a workload, `writes=N/s,deadline=D` (the timeline's words joined by commas), and replication: lags, frozen links, stopped replicators, semisync")
	f.IntVar(&o.workers, "workers", 0, "`N` traces replayed in parallel (default: every core)")
	logLevelVar(c, &o.logLevel)
	f.BoolVar(&o.report, "report", false, "write an HTML report beside each counterexample timeline (failsim report)")
	formatVar(c, &o.format)
	f.StringVar(&o.junit, "junit", "", "also write JUnit XML to `FILE`, one test case per property")
	c.MarkFlagFilename("junit", "xml")
	f.StringVar(&o.shard, "shard", "", "judge only shard `K/N` of the traces (K from 0, or auto: $JOB_COMPLETION_INDEX) and write its share to --out")
	managerVars(c, &o.manager)
	return c
}

func (m *Main) runCheck(ctx context.Context, o *checkFlags) error {
	log, err := m.newLogger(o.logLevel)
	if err != nil {
		return err
	}
	flags := check.Flags{Statemap: o.statemap, Family: o.family, Properties: []string{}, Traces: o.traces, Seed: o.seed, Out: o.out,
		Nodes: o.nodes, Length: o.length.String(), Workload: o.workload}
	for _, sp := range o.specs {
		if sp.Arg != "" {
			sp.Name += "=" + sp.Arg // as --property takes it
		}
		flags.Properties = append(flags.Properties, sp.Name)
	}
	plan, err := flags.Plan() // what the run judges: the share it writes is refused otherwise
	if err != nil {
		return planErr(err, o.specs)
	}
	var work *check.Workload
	if o.workload != "" {
		w, err := check.ParseWorkload(o.workload)
		if err != nil {
			return usageErr(fmt.Errorf("--workload %s: %w", o.workload, err), "--workload writes=200/s,deadline=2s")
		}
		work = &w
	}
	if o.traces < 1 {
		return usageErr(fmt.Errorf("--traces %d: %w: want --traces of at least 1", o.traces, check.ErrNoTraces), "a run that checks no trace proves nothing")
	}
	if o.nodes < 1 {
		return usageErr(fmt.Errorf("--nodes %d: want at least 1", o.nodes), "")
	}
	for _, p := range plan {
		if err := nodesFit(o.nodes, p.Family); err != nil {
			return err
		}
	}
	if o.length < time.Minute || o.length > 24*time.Hour {
		return usageErr(fmt.Errorf("--length %s: want a duration from 1m to 24h", o.length), "")
	}
	format, err := parseFormat(o.format)
	if err != nil {
		return err
	}
	shard, shards, err := parseShard(o.shard, o.traces)
	if err != nil {
		return err
	}
	if shards > 0 && o.junit != "" {
		return usageErr(errors.New("--junit with --shard: a shard writes its share, not a verdict"), "give --junit to 'failsim merge', which writes the run's")
	}
	if shards > 0 && format == report.JSON {
		return usageErr(errors.New("--format json with --shard: a shard writes its share as JSON to --out"), "give --format json to 'failsim merge', which prints the run's")
	}
	if err := writableDir(o.out); err != nil {
		return usageErr(fmt.Errorf("--out %s: %w", o.out, err), "--out names the directory the counterexamples are written to: give one failsim can write")
	}
	if o.junit != "" {
		if err := writableDir(filepath.Dir(o.junit)); err != nil {
			return usageErr(fmt.Errorf("--junit %s: %w", o.junit, err), "--junit names the file the JUnit XML is written to: give one failsim can write")
		}
		// Refused now, not at the end of the run: a symlink, a FIFO, a device, the statemap.
		if err := output.Check(o.junit, o.statemap); err != nil {
			return usageErr(fmt.Errorf("--junit: %w", err), "--junit names the file the JUnit XML is written to: give a new path or a regular file")
		}
	}
	if shards > 0 {
		if err := output.Check(filepath.Join(o.out, check.ShareFileName(shard, shards)), o.statemap); err != nil {
			return usageErr(fmt.Errorf("--shard %s: %w", o.shard, err), "the share is written to --out: give another --out")
		}
	}
	sm, err := statemap.LoadContext(ctx, o.statemap)
	if err != nil {
		return loadErr(ctx, "check", err)
	}
	shape := check.DefaultShape()
	shape.Nodes, shape.Length = o.nodes, o.length

	var runs []check.Config
	for _, p := range plan {
		cfg := check.Config{Map: sm, Family: p.Family, Properties: p.Properties, Shape: shape, Traces: o.traces, Seed: o.seed, Workers: o.workers, Workload: work}
		if shards > 0 {
			cfg.First, cfg.Traces = check.ShardRange(shard, shards, o.traces)
		}
		if err := cfg.Validate(); err != nil {
			hint := ""
			if errors.Is(err, check.ErrNothingFatal) {
				hint = "give some condition action fail with a threshold, check a longer --length, or use --family benign"
			}
			if errors.Is(err, check.ErrNoWorkload) {
				hint = "give the traces a workload: --workload writes=200/s,deadline=2s"
			}
			return usageErr(err, hint)
		}
		runs = append(runs, cfg)
	}
	out := &checkOutput{m: m, flags: flags, digest: check.Digest(sm), json: format == report.JSON, junit: o.junit}
	stdout := out.stdout()
	if err := out.start(); err != nil {
		return err
	}
	if shards > 0 {
		first, n := check.ShardRange(shard, shards, o.traces)
		if _, err := fmt.Fprintf(stdout, "shard %d of %d: traces %d to %d of each family\n", shard, shards, first, first+n-1); err != nil {
			return err
		}
	}
	var share []check.ShareFamily
	for _, cfg := range runs {
		f := cfg.Family
		bar := m.progressBar(f.String(), cfg.Traces)
		var done atomic.Int64
		cfg.Progress = func(n int) {
			done.Store(int64(n))
			bar.update(n)
		}
		log.Debug().Str("family", f.String()).Int("first", cfg.First).Int("traces", cfg.Traces).Msg("checking")
		res, err := check.Run(ctx, cfg)
		bar.clear()
		if err != nil {
			if ctx.Err() != nil {
				if !out.json {
					fmt.Fprintf(stdout, "\n%s:\n  interrupted after %d of %d traces: no verdict\n", f, done.Load(), cfg.Traces)
				}
				return interrupted(ctx, "check")
			}
			return usageErr(err, "")
		}
		if shards > 0 {
			share = append(share, check.ShareFamily{First: cfg.First, Outcome: check.NewOutcome(f, res)})
			continue
		}
		if err := out.family(check.NewOutcome(f, res)); err != nil {
			return err
		}
		if o.report {
			if err := m.checkReports(ctx, res, o.seed, o.out); err != nil {
				return err
			}
		}
	}
	if shards > 0 {
		s := &check.Share{Kind: check.ShareKind, Version: check.ShareVersion, Shard: shard, Shards: shards, Flags: flags, Statemap: out.digest, Families: share}
		path := filepath.Join(o.out, check.ShareFileName(shard, shards))
		if err := output.WriteFile(path, s.Marshal()); err != nil {
			return fmt.Errorf("share: %w", err)
		}
		_, err := fmt.Fprintf(stdout, "wrote %s: join every shard's share with 'failsim merge'\n", path)
		return err
	}
	return out.finish()
}

// planErr is err, from check.Flags.Plan of the flags of specs, as failsim check refuses it
// (exit 2): naming the flag as it is typed, with a hint.
func planErr(err error, specs []property.Spec) error {
	var fe *check.FlagError
	switch {
	case errors.Is(err, check.ErrNoWorkload):
		return usageErr(err, "give the traces a workload: --workload writes=200/s,deadline=2s")
	case errors.As(err, &fe) && fe.Flag == "property" && fe.Index < len(specs):
		return usageErr(fmt.Errorf("--%w", err), propertyHint(specs[fe.Index].Name))
	}
	return usageErr(fmt.Errorf("--%w", err), "")
}

// nodesFit refuses (exit 2) a --nodes more than a trace of one of families may have.
func nodesFit(nodes int, families ...check.Family) error {
	for _, f := range families {
		if err := f.CheckNodes(nodes); err != nil {
			return usageErr(fmt.Errorf("--nodes %d: %w", nodes, err), fmt.Sprintf("give --nodes from 1 to %d", f.MaxNodes()))
		}
	}
	return nil
}

// propertyHint says which family a property is judged on.
func propertyHint(name string) string {
	var fams []string
	for _, f := range []check.Family{check.Benign, check.Fatal, check.Mixed, check.Partition} {
		if f.Applies(name) {
			fams = append(fams, f.String())
		}
	}
	return fmt.Sprintf("%s is judged on %s traces: use --family %s", name, strings.Join(fams, " and "), fams[0])
}

// writeCounterexample writes property p's shrunk trace, of family, as a timeline in the run's
// --out and returns its path.
func writeCounterexample(family string, p *check.PropertyOutcome, flags check.Flags) (string, error) {
	smPath, out, seed, c := flags.Statemap, flags.Out, flags.Seed, p.Counterexample
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", fmt.Errorf("counterexample: %w", err)
	}
	spec, err := p.Spec()
	if err != nil {
		return "", err
	}
	shrunk, err := c.Shrunk("counterexample")
	if err != nil {
		return "", err
	}
	path := filepath.Join(out, check.FileName(spec, seed, c.Trace))
	ref := ""
	if smPath != "" {
		ref = smPath
		absMap, err1 := filepath.Abs(smPath)
		absOut, err2 := filepath.Abs(out)
		if err1 == nil && err2 == nil {
			if rel, err := filepath.Rel(absOut, absMap); err == nil {
				ref = rel
			} else {
				ref = absMap
			}
		}
	}
	header := []string{
		fmt.Sprintf("failsim check counterexample: %s trace %d of seed %d violates %s.", family, c.Trace, seed, spec),
		fmt.Sprintf("As generated (%s on %s): %s", check.Plural(c.Events, "event"), check.Plural(c.Nodes, "node"), c.Why),
		fmt.Sprintf("Shrunk in %d replays to %s on %s: %s", c.Replays, check.Plural(check.Events(shrunk), "event"), check.Plural(len(shrunk.Nodes), "node"), c.ShrunkWhy),
		"Reproduce: failsim replay " + path,
	}
	if err := output.WriteFile(path, check.Timeline(shrunk, header, ref, spec), smPath); err != nil {
		return "", fmt.Errorf("counterexample: %w", err)
	}
	return path, nil
}

// writableDir creates dir if it is missing and proves that a file can be written in it, so
// that a run does not find out only at its end, when it writes its first counterexample.
func writableDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".failsim-check-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the temporary file's random name means nothing to the user
		}
		return fmt.Errorf("cannot create a file in it: %w", err)
	}
	name := f.Name()
	if err := f.Close(); err != nil {
		os.Remove(name)
		return err
	}
	return os.Remove(name)
}

// bar draws a progress bar on a terminal's stderr; it draws nothing in CI logs or pipes.
type bar struct {
	w     io.Writer // nil: draw nothing
	label string
	total int
	mu    sync.Mutex
	last  time.Time
}

// progressBar returns a bar for a run of total traces: live only when stderr is a terminal and
// CI is not "true".
func (m *Main) progressBar(label string, total int) *bar {
	b := &bar{label: label, total: total}
	if f, ok := m.Stderr.(*os.File); ok && os.Getenv("CI") != "true" && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())) {
		b.w = f
	}
	return b
}

func (b *bar) update(done int) {
	if b.w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if now := time.Now(); now.Sub(b.last) >= 100*time.Millisecond || done == b.total {
		b.last = now
		const width = 40
		n := width * done / b.total
		fmt.Fprintf(b.w, "\r%-6s [%s%s] %d/%d", b.label, strings.Repeat("=", n), strings.Repeat(" ", width-n), done, b.total)
	}
}

func (b *bar) clear() {
	if b.w != nil {
		fmt.Fprintf(b.w, "\r%s\r", strings.Repeat(" ", 70+len(b.label)))
	}
}

var _ pflag.Value = (*specsFlag)(nil)
