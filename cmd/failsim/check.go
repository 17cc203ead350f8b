package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/failsim/failsim/check"
	"github.com/failsim/failsim/statemap"
)

// specsFlag collects repeated --property flags.
type specsFlag []check.Spec

func (s *specsFlag) String() string { return "" }

func (s *specsFlag) Set(v string) error {
	sp, err := check.ParseSpec(v)
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

func (m *Main) runCheck(ctx context.Context, args []string) error {
	fs := m.newFlags("check", "[--statemap FILE] [--family benign|fatal|mixed|all] [--property NAME[=ARG]]... [--traces N] [--seed S] [--out DIR]")
	smFlag := fs.String("statemap", "", "statemap override `FILE` to check (default: the shipped defaults)")
	familyFlag := fs.String("family", "all", "trace `family`: benign, fatal, mixed, or all three")
	var specs specsFlag
	fs.Var(&specs, "property", "property to check, `NAME[=ARG]`, repeatable (default: every one that applies to the family)")
	traces := fs.Int("traces", 10000, "traces to generate per family")
	seed := fs.Uint64("seed", 1, "random seed: the same seed gives the same traces and results")
	out := fs.String("out", ".", "`DIR` to write counterexample timelines to")
	nodes := fs.Int("nodes", check.DefaultShape().Nodes, "cluster size of each trace; the first node is the master")
	length := fs.Duration("length", check.DefaultShape().Length, "virtual time each trace spans")
	workers := fs.Int("workers", 0, "traces replayed in parallel (default: every core)")
	level := logLevelFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	log, err := m.newLogger(*level)
	if err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErr(fmt.Errorf("check takes no arguments, got %q", fs.Args()), "name the statemap with --statemap FILE")
	}
	var families []check.Family
	if *familyFlag == "all" {
		families = []check.Family{check.Benign, check.Fatal, check.Mixed}
	} else if f, ok := check.ParseFamily(*familyFlag); ok {
		families = []check.Family{f}
	} else {
		return usageErr(fmt.Errorf("--family %q: want benign, fatal, mixed or all", *familyFlag), "")
	}
	for _, s := range specs {
		applies := false
		for _, f := range families {
			applies = applies || f.Applies(s.Name)
		}
		if !applies {
			return usageErr(fmt.Errorf("--property %s is not judged on %s traces", s.Name, *familyFlag), propertyHint(s.Name))
		}
	}
	if *traces < 1 {
		return usageErr(fmt.Errorf("--traces %d: %w", *traces, check.ErrNoTraces), "a run that checks no trace proves nothing")
	}
	if *nodes < 1 {
		return usageErr(fmt.Errorf("--nodes %d: want at least 1", *nodes), "")
	}
	if *length < time.Minute || *length > 24*time.Hour {
		return usageErr(fmt.Errorf("--length %s: want a duration from 1m to 24h", *length), "")
	}
	sm, err := statemap.Load(*smFlag)
	if err != nil {
		return usageErr(err, "")
	}
	shape := check.DefaultShape()
	shape.Nodes, shape.Length = *nodes, *length

	smName := "the shipped defaults"
	if *smFlag != "" {
		smName = *smFlag
	}
	var runs []check.Config
	for _, f := range families {
		var props []check.Spec
		for _, s := range specs {
			if f.Applies(s.Name) {
				props = append(props, s)
			}
		}
		if len(specs) > 0 && len(props) == 0 {
			continue
		}
		cfg := check.Config{Map: sm, Family: f, Properties: props, Shape: shape, Traces: *traces, Seed: *seed, Workers: *workers}
		if err := cfg.Validate(); err != nil {
			hint := ""
			if errors.Is(err, check.ErrNothingFatal) {
				hint = "give some condition action fail with a threshold, check a longer --length, or use --family benign"
			}
			return usageErr(err, hint)
		}
		runs = append(runs, cfg)
	}
	fmt.Fprintf(m.Stdout, "failsim check: statemap %s, seed %d, %d traces per family, %d nodes, %s each\n", smName, *seed, *traces, shape.Nodes, shape.Length)
	violated, checked := 0, 0
	for _, cfg := range runs {
		f := cfg.Family
		bar := m.progressBar(f.String(), *traces)
		cfg.Progress = bar.update
		log.Debug().Str("family", f.String()).Int("traces", *traces).Msg("checking")
		res, err := check.Run(ctx, cfg)
		bar.clear()
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			return usageErr(err, "")
		}
		checked += len(res.Properties)
		violated += len(res.Violations)
		if err := m.report(f, res, *seed, *smFlag, *out); err != nil {
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
	for _, f := range []check.Family{check.Benign, check.Fatal, check.Mixed} {
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

var _ flag.Value = (*specsFlag)(nil)
