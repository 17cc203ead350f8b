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
	"github.com/failsim/failsim/property"
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
}

func (m *Main) checkCmd() *cobra.Command {
	var o checkFlags
	c := &cobra.Command{
		Use:   "check",
		Short: "property-test a statemap against generated fault traces",
		Long: `Property-test a statemap: generate --traces seeded fault traces of each family, replay each
under the statemap, and judge properties on every one. A violation is shrunk to a minimal
timeline, written to --out, that 'failsim replay' reproduces. Exit 0 when every property
held, 1 when one was violated, 2 for bad input.`,
		Args: noArgs("name the statemap with --statemap FILE"),
		RunE: func(c *cobra.Command, _ []string) error { return m.runCheck(c.Context(), &o) },
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
	f.IntVar(&o.workers, "workers", 0, "`N` traces replayed in parallel (default: every core)")
	logLevelVar(c, &o.logLevel)
	return c
}

func (m *Main) runCheck(ctx context.Context, o *checkFlags) error {
	log, err := m.newLogger(o.logLevel)
	if err != nil {
		return err
	}
	var families []check.Family
	if o.family == "all" {
		families = []check.Family{check.Benign, check.Fatal, check.Mixed}
	} else if f, ok := check.ParseFamily(o.family); ok {
		families = []check.Family{f}
	} else {
		return usageErr(fmt.Errorf("--family %q: want benign, fatal, mixed, partition or all", o.family), "")
	}
	for _, s := range o.specs {
		applies := false
		for _, f := range families {
			applies = applies || f.Applies(s.Name)
		}
		if !applies {
			return usageErr(fmt.Errorf("--property %s is not judged on %s traces", s.Name, o.family), propertyHint(s.Name))
		}
	}
	if o.traces < 1 {
		return usageErr(fmt.Errorf("--traces %d: %w: want --traces of at least 1", o.traces, check.ErrNoTraces), "a run that checks no trace proves nothing")
	}
	if o.nodes < 1 {
		return usageErr(fmt.Errorf("--nodes %d: want at least 1", o.nodes), "")
	}
	if o.length < time.Minute || o.length > 24*time.Hour {
		return usageErr(fmt.Errorf("--length %s: want a duration from 1m to 24h", o.length), "")
	}
	if err := writableDir(o.out); err != nil {
		return usageErr(fmt.Errorf("--out %s: %w", o.out, err), "--out names the directory the counterexamples are written to: give one failsim can write")
	}
	sm, err := statemap.LoadContext(ctx, o.statemap)
	if err != nil {
		return loadErr(ctx, "check", err)
	}
	shape := check.DefaultShape()
	shape.Nodes, shape.Length = o.nodes, o.length

	smName := "the shipped defaults"
	if o.statemap != "" {
		smName = o.statemap
	}
	var runs []check.Config
	for _, f := range families {
		var props []property.Spec
		for _, s := range o.specs {
			if f.Applies(s.Name) {
				props = append(props, s)
			}
		}
		if len(o.specs) > 0 && len(props) == 0 {
			continue
		}
		cfg := check.Config{Map: sm, Family: f, Properties: props, Shape: shape, Traces: o.traces, Seed: o.seed, Workers: o.workers}
		if err := cfg.Validate(); err != nil {
			hint := ""
			if errors.Is(err, check.ErrNothingFatal) {
				hint = "give some condition action fail with a threshold, check a longer --length, or use --family benign"
			}
			return usageErr(err, hint)
		}
		runs = append(runs, cfg)
	}
	fmt.Fprintf(m.Stdout, "failsim check: statemap %s, seed %d, %d traces per family, %d nodes, %s each\n", smName, o.seed, o.traces, shape.Nodes, shape.Length)
	violated, checked := 0, 0
	for _, cfg := range runs {
		f := cfg.Family
		bar := m.progressBar(f.String(), o.traces)
		var done atomic.Int64
		cfg.Progress = func(n int) {
			done.Store(int64(n))
			bar.update(n)
		}
		log.Debug().Str("family", f.String()).Int("traces", o.traces).Msg("checking")
		res, err := check.Run(ctx, cfg)
		bar.clear()
		if err != nil {
			if ctx.Err() != nil {
				fmt.Fprintf(m.Stdout, "\n%s:\n  interrupted after %d of %d traces: no verdict\n", f, done.Load(), o.traces)
				return interrupted(ctx, "check")
			}
			return usageErr(err, "")
		}
		checked += len(res.Properties)
		violated += len(res.Violations)
		if err := m.report(f, res, o.seed, o.statemap, o.out); err != nil {
			return err
		}
	}
	if violated > 0 {
		fmt.Fprintf(m.Stdout, "\n%d of %d properties violated\n", violated, checked)
		return failedErr()
	}
	fmt.Fprintf(m.Stdout, "\nall %d properties held\n", checked)
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

// report prints one family's result and writes its counterexamples.
func (m *Main) report(f check.Family, res *check.Result, seed uint64, smPath, out string) error {
	var held []string
	for _, p := range res.Properties {
		held = append(held, p.String())
	}
	for _, v := range res.Violations {
		for i, h := range held {
			if h == v.Property.String() {
				held = append(held[:i], held[i+1:]...)
				break
			}
		}
	}
	fmt.Fprintf(m.Stdout, "\n%s:\n", f)
	if len(held) > 0 {
		// A run stops early only once every property is violated: what held, held on all.
		fmt.Fprintf(m.Stdout, "  held on every one of %d traces: %s\n", res.Traces, strings.Join(held, ", "))
	}
	for _, v := range res.Violations {
		path, err := writeCounterexample(f, v, seed, smPath, out)
		if err != nil {
			return err
		}
		s := v.Shrunk
		fmt.Fprintf(m.Stdout, "  VIOLATED %s, first in trace %d:\n    %s\n", v.Property, v.Trace, v.Why)
		fmt.Fprintf(m.Stdout, "  shrunk in %d replays to %s on %s over %s:\n    %s\n", v.Replays, plural(len(s.Events), "event"), plural(len(s.Nodes), "node"), s.End, v.ShrunkWhy)
		fmt.Fprintf(m.Stdout, "  counterexample: %s\n  reproduce: failsim replay %s\n", path, path)
	}
	return nil
}

// writeCounterexample writes v's shrunk trace as a timeline in out and returns its path.
func writeCounterexample(f check.Family, v check.Violation, seed uint64, smPath, out string) (string, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", fmt.Errorf("counterexample: %w", err)
	}
	path := filepath.Join(out, check.FileName(v, seed))
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
		fmt.Sprintf("failsim check counterexample: %s trace %d of seed %d violates %s.", f, v.Trace, seed, v.Property),
		fmt.Sprintf("As generated (%s on %s): %s", plural(len(v.Original.Events), "event"), plural(len(v.Original.Nodes), "node"), v.Why),
		fmt.Sprintf("Shrunk in %d replays to %s on %s: %s", v.Replays, plural(len(v.Shrunk.Events), "event"), plural(len(v.Shrunk.Nodes), "node"), v.ShrunkWhy),
		"Reproduce: failsim replay " + path,
	}
	if err := os.WriteFile(path, check.Timeline(v.Shrunk, header, ref, v.Property), 0o644); err != nil {
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

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
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
