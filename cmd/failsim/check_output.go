package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/failsim/failsim/check"
	"github.com/failsim/failsim/internal/output"
)

// parseShard reads --shard K/N or auto/N (K from JOB_COMPLETION_INDEX, as a Kubernetes Indexed
// Job sets it) for a run of traces per family. shards is 0 without --shard.
func parseShard(s string, traces int) (shard, shards int, err error) {
	if s == "" {
		return 0, 0, nil
	}
	hint := "--shard K/N judges the K-th of N shares of the traces, K from 0 to N-1 (or auto: $JOB_COMPLETION_INDEX)"
	k, n, ok := strings.Cut(s, "/")
	shards, err = strconv.Atoi(n)
	if !ok || err != nil || shards < 1 {
		return 0, 0, usageErr(fmt.Errorf("--shard %q: want K/N, N a whole number of shards from 1", s), hint)
	}
	if k == "auto" {
		env, set := os.LookupEnv("JOB_COMPLETION_INDEX")
		if !set {
			return 0, 0, usageErr(fmt.Errorf("--shard %s: JOB_COMPLETION_INDEX is not set", s), "a Kubernetes Indexed Job sets it in each pod; elsewhere give K: --shard 0/"+n)
		}
		shard, err = strconv.Atoi(env)
		if err != nil || shard < 0 || shard >= shards {
			return 0, 0, usageErr(fmt.Errorf("--shard %s: JOB_COMPLETION_INDEX %q: want K from 0 to %d", s, env, shards-1), "a Kubernetes Indexed Job of N completions sets it from 0 to N-1")
		}
	} else if shard, err = strconv.Atoi(k); err != nil || shard < 0 || shard >= shards {
		return 0, 0, usageErr(fmt.Errorf("--shard %s: want K from 0 to %d", s, shards-1), hint)
	}
	if shards > traces {
		return 0, 0, usageErr(fmt.Errorf("--shard %s: %d shards of %d traces: want at least one trace a shard", s, shards, traces), "")
	}
	return shard, shards, nil
}

// checkOutput prints a check run's findings, or a merge's of a run's shares, in the run's
// format: the text as each family's outcome comes, the JSON document at the end; it writes the
// counterexamples to --out and the JUnit file. A run and a merge print through it alike.
type checkOutput struct {
	m        *Main
	flags    check.Flags
	digest   string
	json     bool
	junit    string
	dir      string // where the counterexamples go; "" for flags.Out (a merge's may differ)
	outcomes []check.Outcome
	sw       *stickyWriter // standard output, keeping its first error; made by stdout
}

// stdout is standard output, through which everything the run prints goes; its error, the
// first write's that failed.
func (w *checkOutput) stdout() *stickyWriter {
	if w.sw == nil {
		w.sw = &stickyWriter{w: w.m.Stdout}
	}
	return w.sw
}

// start prints the text output's first line, so that an output that cannot be written is
// found before the run.
func (w *checkOutput) start() error {
	if !w.json {
		io.WriteString(w.stdout(), w.flags.Header())
	}
	return w.stdout().err
}

// family writes o's counterexamples and prints o as text.
func (w *checkOutput) family(o check.Outcome) error {
	for i := range o.Properties {
		p := &o.Properties[i]
		if p.Counterexample == nil {
			continue
		}
		flags := w.flags
		if w.dir != "" {
			flags.Out = w.dir
		}
		path, err := writeCounterexample(o.Family, p, flags)
		if err != nil {
			return err
		}
		p.Counterexample.File = path
	}
	w.outcomes = append(w.outcomes, o)
	if !w.json {
		o.WriteText(w.stdout())
	}
	return w.stdout().err
}

// finish prints the verdict, or the JSON document, writes the JUnit file, and returns the exit
// status: a failed one when a property was violated. When standard output could not be written,
// it writes no JUnit file and returns that error (exit 2): the run's output is incomplete.
func (w *checkOutput) finish() error {
	r := check.NewReport(w.flags, w.digest, w.outcomes)
	if w.json {
		w.stdout().Write(r.JSON())
	} else {
		io.WriteString(w.stdout(), r.Tail())
	}
	if err := w.stdout().err; err != nil {
		return err
	}
	if w.junit != "" {
		if err := output.WriteFile(w.junit, r.JUnit()); err != nil {
			return usageErr(fmt.Errorf("--junit: %w", err), "")
		}
	}
	if r.Exit != 0 {
		return failedErr()
	}
	return nil
}
