package main

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/failsim/failsim/check"
	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/internal/input"
	"github.com/failsim/failsim/internal/output"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sweep"
)

// shareMax is a share file's cap: a share holds counts and a few shrunk timelines.
const shareMax = 64 << 20

// mergeMax caps the bytes of all the shares of one merge together: each share is judged as it
// is read and only its sums are kept, but a thousand large files are still not a run's shares.
// A variable only so that a test can lower it.
var mergeMax int64 = 1 << 30

// mergeFlags are failsim merge's flags.
type mergeFlags struct {
	format, junit string
	out           string
	outGiven      bool // -o was given: a check's counterexamples go there
}

func (m *Main) mergeCmd() *cobra.Command {
	var o mergeFlags
	c := &cobra.Command{
		Use:   "merge",
		Short: "join the shares of a sharded run into what one run prints",
		Long: `Join the share files that the N shards of one run wrote (failsim check --shard K/N, or
failsim sweep --shard K/N) into exactly what the run would have printed in one piece: the same text, or --format json, the same
--junit file, the same counterexamples, and the same exit status:
0 when every property held, 1 when one was violated, 2 for bad input (shares of different runs,
a shard missing or given twice, a broken file). A check's counterexamples are written to -o DIR
or, without it, to the run's --out under the current directory (a share never chooses where
merge writes: an absolute --out, or one with "..", needs -o). A sweep's shares are joined into
the files one sweep writes (sweep.csv, sweep.json, sweep.svg, sweep.png) in -o DIR.`,
		Annotations: map[string]string{argsAnnotation: "FILE..."},
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr(errors.New("merge needs the share file of every shard"), "failsim merge check-shard-*.json")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			o.outGiven = c.Flags().Changed("out")
			return m.checkedStdout(func(m *Main) error { return m.runMerge(c.Context(), &o, args) })
		},
	}
	formatVar(c, &o.format)
	c.Flags().StringVar(&o.junit, "junit", "", "also write JUnit XML to `FILE`, one test case per property")
	c.MarkFlagFilename("junit", "xml")
	c.Flags().StringVarP(&o.out, "out", "o", "sweep", "`DIR` to write a sweep's files or a check's counterexamples to (created if missing; a check's default: the run's --out, under the current directory)")
	c.MarkFlagDirname("out")
	return c
}

// mergeHint is the hint for shares that do not make one run.
const (
	checkMergeHint = "give the shares of one run, every one: the check-shard-K-of-N.json files failsim check --shard K/N wrote for K from 0 to N-1"
	sweepMergeHint = "give the shares of one sweep, every one: the sweep-shard-K-of-N.json files failsim sweep --shard K/N wrote for K from 0 to N-1"
)

// runMerge reads the shares one at a time, judging each as it is read (a broken one, another
// run's or a shard given twice stops the merge before the next is read), and prints and writes
// what the run would have, or nothing at all when it refuses them.
func (m *Main) runMerge(ctx context.Context, o *mergeFlags, files []string) error {
	format, err := parseFormat(o.format)
	if err != nil {
		return err
	}
	var refused *output.Error // a symlink, a device...; a directory that cannot be made is said later
	if o.junit != "" && errors.As(output.Check(o.junit), &refused) {
		return usageErr(fmt.Errorf("--junit: %w", refused), "")
	}
	var (
		kind   string
		total  int64
		checks check.Merger
		sweeps sweep.Merger
		dir    string // where a check's counterexamples go
	)
	for i, path := range files {
		b, err := input.ReadFile(ctx, path, "share", shareMax)
		if err != nil {
			return loadErr(ctx, "merge", err)
		}
		if total += int64(len(b)); total > mergeMax {
			return usageErr(fmt.Errorf("%s: the shares up to it are %d bytes, more than the %d one merge reads", path, total, mergeMax), "a share holds counts and a few shrunk timelines: give the shares of one run")
		}
		k, err := check.PeekKind(path, b)
		if err != nil {
			return usageErr(err, "")
		}
		if i == 0 {
			kind = k
			switch kind {
			case check.ShareKind:
			case sweep.ShareKind:
				if o.junit != "" {
					return usageErr(fmt.Errorf("--junit %s: a sweep's shares make no JUnit report", o.junit), "--junit is for the shares of failsim check")
				}
			case check.ReportKind:
				return usageErr(fmt.Errorf("%s: the output of a whole failsim check run, not a shard's share", path), "failsim check --shard K/N writes the shares to merge")
			default:
				return usageErr(fmt.Errorf("%s: kind %q: failsim merge joins %q and %q files", path, kind, check.ShareKind, sweep.ShareKind), "")
			}
		} else if k != kind {
			return usageErr(fmt.Errorf("%s: a %q file, but %s is a %q: one merge joins the shares of one run", path, k, files[0], kind), "")
		}
		if kind == sweep.ShareKind {
			if err := sweeps.Add(sweep.ShareFile{Name: path, Data: b}); err != nil {
				return usageErr(err, sweepMergeHint)
			}
			continue
		}
		s, err := check.ParseShare(path, b)
		if err != nil {
			return usageErr(err, "")
		}
		if i == 0 {
			if dir, err = counterexampleDir(o, s.Flags.Out, path, b); err != nil {
				return err
			}
		}
		if err := checks.Add(s); err != nil {
			return usageErr(check.Locate(err, b), checkMergeHint)
		}
	}
	if kind == sweep.ShareKind {
		res, err := sweeps.Result()
		if err != nil {
			return usageErr(err, sweepMergeHint)
		}
		return m.writeSweep(res, o.out, format == report.JSON)
	}
	return m.mergeCheck(&checks, dir, format == report.JSON, o.junit)
}

// counterexampleDir is where a merge writes a check's counterexamples: -o DIR when given, else
// the run's --out, out, read from the share file name (data), resolved under the current
// directory. A share names out, so whoever wrote one would choose where the merge writes: an
// absolute out, one with "..", or one output.Join refuses is refused, at its line.
func counterexampleDir(o *mergeFlags, out, name string, data []byte) (string, error) {
	if o.outGiven {
		return o.out, nil
	}
	hint := "a share does not choose where merge writes: give -o DIR, the directory to write the counterexamples to"
	at := fileline.JSONLine(data, "flags", "out")
	switch {
	case filepath.IsAbs(out):
		return "", usageErr(fileline.Errorf(name, at, "the run's --out %q is an absolute path", out), hint)
	case slices.Contains(strings.Split(filepath.ToSlash(out), "/"), ".."):
		return "", usageErr(fileline.Errorf(name, at, "the run's --out %q leaves the current directory (..)", out), hint)
	}
	clean := path.Clean(filepath.ToSlash(out))
	if clean == "." {
		return ".", nil
	}
	dir, err := output.Join(".", clean)
	if err != nil {
		return "", usageErr(&fileline.Error{File: name, Line: at, Err: fmt.Errorf("the run's --out: %w", err)}, hint)
	}
	return dir, nil
}

// mergeCheck prints what the run whose shares checks joined would have, and writes its
// counterexamples in dir: every path is checked before anything is printed or written.
func (m *Main) mergeCheck(checks *check.Merger, dir string, json bool, junit string) error {
	outcomes, err := checks.Outcomes()
	if err != nil {
		return usageErr(err, checkMergeHint)
	}
	flags := checks.Flags()
	for _, o := range outcomes {
		for i := range o.Properties {
			p := &o.Properties[i]
			if p.Counterexample == nil {
				continue
			}
			spec, err := p.Spec()
			if err != nil {
				return usageErr(err, "")
			}
			if err := output.Check(filepath.Join(dir, check.FileName(spec, flags.Seed, p.Counterexample.Trace)), flags.Statemap); err != nil {
				return usageErr(fmt.Errorf("counterexample: %w", err), "")
			}
		}
	}
	if junit != "" {
		if err := writableDir(filepath.Dir(junit)); err != nil {
			return usageErr(fmt.Errorf("--junit %s: %w", junit, err), "--junit names the file the JUnit XML is written to: give one failsim can write")
		}
	}
	if err := writableDir(dir); err != nil {
		return usageErr(fmt.Errorf("-o %s: %w", dir, err), "give -o DIR, a directory failsim can write the counterexamples to")
	}
	out := &checkOutput{m: m, flags: flags, digest: checks.Digest(), json: json, junit: junit, dir: dir}
	out.start()
	for _, o := range outcomes {
		if err := out.family(o); err != nil {
			return err
		}
	}
	return out.finish()
}
