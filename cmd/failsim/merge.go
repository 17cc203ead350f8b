package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/failsim/failsim/check"
	"github.com/failsim/failsim/internal/input"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sweep"
)

// shareMax is a share file's cap: a share holds counts and a few shrunk timelines.
const shareMax = 64 << 20

// mergeFlags are failsim merge's flags.
type mergeFlags struct {
	format, junit string
	out           string
}

func (m *Main) mergeCmd() *cobra.Command {
	var o mergeFlags
	c := &cobra.Command{
		Use:   "merge",
		Short: "join the shares of a sharded run into what one run prints",
		Long: `Join the share files that the N shards of one run wrote (failsim check --shard K/N, or
failsim sweep --shard K/N) into exactly what the run would have printed in one piece: the same text, or --format json, the same
--junit file, the same counterexamples written to the run's --out, and the same exit status:
0 when every property held, 1 when one was violated, 2 for bad input (shares of different runs,
a shard missing or given twice, a broken file). A sweep's shares are joined into the files one
sweep writes (sweep.csv, sweep.json, sweep.svg, sweep.png) in --out.`,
		Annotations: map[string]string{argsAnnotation: "FILE..."},
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr(errors.New("merge needs the share file of every shard"), "failsim merge check-shard-*.json")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error { return m.runMerge(c.Context(), &o, args) },
	}
	formatVar(c, &o.format)
	c.Flags().StringVar(&o.junit, "junit", "", "also write JUnit XML to `FILE`, one test case per property")
	c.MarkFlagFilename("junit", "xml")
	c.Flags().StringVarP(&o.out, "out", "o", "sweep", "`DIR` to write a sweep's files to (created if missing; a check's counterexamples go to its run's --out)")
	c.MarkFlagDirname("out")
	return c
}

func (m *Main) runMerge(ctx context.Context, o *mergeFlags, files []string) error {
	format, err := parseFormat(o.format)
	if err != nil {
		return err
	}
	if o.junit != "" {
		if err := writableDir(filepath.Dir(o.junit)); err != nil {
			return usageErr(fmt.Errorf("--junit %s: %w", o.junit, err), "--junit names the file the JUnit XML is written to: give one failsim can write")
		}
	}
	kind, data := "", make([][]byte, len(files))
	for i, path := range files {
		b, err := input.ReadFile(ctx, path, "share", shareMax)
		if err != nil {
			return loadErr(ctx, "merge", err)
		}
		k, err := check.PeekKind(path, b)
		if err != nil {
			return usageErr(err, "")
		}
		if i > 0 && k != kind {
			return usageErr(fmt.Errorf("%s: a %q file, but %s is a %q: one merge joins the shares of one run", path, k, files[0], kind), "")
		}
		kind, data[i] = k, b
	}
	switch kind {
	case check.ShareKind:
		return m.mergeCheck(files, data, format == report.JSON, o.junit)
	case sweep.ShareKind:
		if o.junit != "" {
			return usageErr(fmt.Errorf("--junit %s: a sweep's shares make no JUnit report", o.junit), "--junit is for the shares of failsim check")
		}
		shares := make([]sweep.ShareFile, len(files))
		for i := range files {
			shares[i] = sweep.ShareFile{Name: files[i], Data: data[i]}
		}
		res, err := sweep.MergeShares(shares)
		if err != nil {
			return usageErr(err, "give the shares of one sweep, every one: the sweep-shard-K-of-N.json files failsim sweep --shard K/N wrote for K from 0 to N-1")
		}
		return m.writeSweep(res, o.out, format == report.JSON)
	case check.ReportKind:
		return usageErr(fmt.Errorf("%s: the output of a whole failsim check run, not a shard's share", files[0]), "failsim check --shard K/N writes the shares to merge")
	}
	return usageErr(fmt.Errorf("%s: kind %q: failsim merge joins %q and %q files", files[0], kind, check.ShareKind, sweep.ShareKind), "")
}

// mergeCheck joins the shares of a failsim check run and prints what the run would have.
func (m *Main) mergeCheck(files []string, data [][]byte, json bool, junit string) error {
	shares := make([]*check.Share, len(files))
	for i, path := range files {
		s, err := check.ParseShare(path, data[i])
		if err != nil {
			return usageErr(err, "")
		}
		shares[i] = s
	}
	outcomes, err := check.Merge(shares)
	if err != nil {
		return usageErr(err, "give the shares of one run, every one: the check-shard-K-of-N.json files failsim check --shard K/N wrote for K from 0 to N-1")
	}
	out := &checkOutput{m: m, flags: shares[0].Flags, digest: shares[0].Statemap, json: json, junit: junit}
	out.start()
	for _, o := range outcomes {
		if err := out.family(o); err != nil {
			return err
		}
	}
	return out.finish()
}
