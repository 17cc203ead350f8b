package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
	"github.com/failsim/failsim/timing"
)

// shippedIncidents is where statemap diff finds the incidents it replays when given none,
// relative to the current directory.
const shippedIncidents = "testdata/incidents/*.timeline"

func (m *Main) statemapDiffCmd() *cobra.Command {
	var interval, timeout time.Duration
	c := &cobra.Command{
		Use:   "diff",
		Short: "compare two statemaps: the rules, the faults' fences and the incidents' verdicts that differ",
		Long: `Compare statemap A with statemap B, each an override file layered on the shipped defaults
('' for the defaults alone), and print: the conditions whose rule (state, threshold, action)
differs; the faults of the fault table that B fences sooner, later, no longer or newly, with
failsim timing's earliest-latest under each (--interval, --timeout); and the incidents whose
verdict changes when each is replayed under A and under B (A and B win over an incident's
statemap statement). INCIDENTS are timeline files, or directories of failsim watch's
recordings (each one run, its files joined: docs/live.md); without any, the shipped incidents,
testdata/incidents/*.timeline, read from the current directory (run it from a checkout).`,
		Annotations: map[string]string{argsAnnotation: "A B [INCIDENTS...]"},
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usageErr(fmt.Errorf("statemap diff takes two statemap files, then any incidents; got %s", plural(len(args), "argument")),
					"failsim statemap diff conf/statemap.properties.defaults conf/examples/aggressive.properties")
			}
			return nil
		},
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return []cobra.Completion{"properties", "timeline"}, cobra.ShellCompDirectiveFilterFileExt
		},
		RunE: func(c *cobra.Command, args []string) error {
			return m.runStatemapDiff(c.Context(), interval, timeout, args[0], args[1], args[2:])
		},
	}
	intervalVar(c, &interval)
	c.Flags().DurationVar(&timeout, "timeout", timeline.DefaultTimeout, "the checker's probe budget, a `DURATION`")
	return c
}

func (m *Main) runStatemapDiff(ctx context.Context, interval, timeout time.Duration, pathA, pathB string, incidents []string) error {
	if err := checkerFlags(interval, timeout); err != nil {
		return err
	}
	a, err := statemap.LoadContext(ctx, pathA)
	if err != nil {
		return loadErr(ctx, "statemap diff", err)
	}
	b, err := statemap.LoadContext(ctx, pathB)
	if err != nil {
		return loadErr(ctx, "statemap diff", err)
	}
	given := len(incidents) > 0
	if !given {
		incidents, _ = filepath.Glob(shippedIncidents) // sorted; the pattern is well formed
	}
	tls := make([]*timeline.Timeline, len(incidents))
	for i, path := range incidents {
		tl, err := readIncident(ctx, path)
		tls[i] = tl
		if err != nil {
			return loadErr(ctx, "statemap diff", err)
		}
	}

	w := m.Stdout
	fmt.Fprintf(w, "A: %s\nB: %s\n", statemapName(pathA), statemapName(pathB))
	diffRules(w, a, b)
	diffFences(w, a, b, interval, timeout)
	switch {
	case given:
		fmt.Fprintf(w, "\nIncidents whose verdict changes (the %s given, each replayed under A and under B):\n", plural(len(tls), "incident"))
	case len(tls) > 0:
		fmt.Fprintf(w, "\nIncidents whose verdict changes (the %d shipped ones, %s, each replayed under A and under B):\n", len(tls), shippedIncidents)
	default:
		fmt.Fprintf(w, "\nIncidents whose verdict changes: none replayed (no %s in the current directory: give incident files, or run from a checkout)\n", shippedIncidents)
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	changed := 0
	for _, tl := range tls {
		va, err := verdict(ctx, tl, a)
		if err != nil {
			return interrupted(ctx, "statemap diff")
		}
		vb, err := verdict(ctx, tl, b)
		if err != nil {
			return interrupted(ctx, "statemap diff")
		}
		if va != vb {
			if changed == 0 {
				fmt.Fprintln(tw, "INCIDENT\tUNDER A\tUNDER B")
			}
			changed++
			fmt.Fprintf(tw, "%s\t%s\t%s\n", tl.File, va, vb)
		}
	}
	if changed == 0 {
		fmt.Fprintln(tw, "none")
	}
	return tw.Flush()
}

// statemapName is how the diff names a statemap argument.
func statemapName(path string) string {
	if path == "" {
		return "the shipped defaults"
	}
	return path + " (over the shipped defaults)"
}

// diffRules writes the conditions whose rule differs between a and b.
func diffRules(w io.Writer, a, b *statemap.Map) {
	fmt.Fprintln(w, "\nRules that differ (state, threshold, action):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	n := 0
	for _, c := range statemap.Conditions() {
		ra, rb := a.Rule(c), b.Rule(c)
		if ra.State == rb.State && ra.Threshold == rb.Threshold && ra.Action == rb.Action {
			continue
		}
		if n == 0 {
			fmt.Fprintln(tw, "CONDITION\tUNDER A\tUNDER B")
		}
		n++
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c, ruleText(ra), ruleText(rb))
	}
	if n == 0 {
		fmt.Fprintln(tw, "none")
	}
	tw.Flush()
}

// diffFences writes the faults whose fence moves from a to b, with their timing under each.
func diffFences(w io.Writer, a, b *statemap.Map, interval, timeout time.Duration) {
	fmt.Fprintf(w, "\nFaults whose fence changes (from the fault's start; probes every %s within %s, ticks every %s):\n", interval, timeout, statemap.TickInterval)
	ta, tb := timing.Table(a, interval, timeout), timing.Table(b, interval, timeout)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	n := 0
	for i := range ta {
		ch := timing.Compare(ta[i].Fence, tb[i].Fence)
		if ch == timing.Same {
			continue
		}
		if n == 0 {
			fmt.Fprintln(tw, "FAULT\tPROBE OUTCOME\tFENCES\tUNDER A\tUNDER B")
		}
		n++
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", ta[i].Fault, ta[i].Outcome.Condition, ch, spanText(ta[i].Fence), spanText(tb[i].Fence))
	}
	if n == 0 {
		fmt.Fprintln(tw, "none")
	}
	tw.Flush()
}

// verdict replays tl under m and returns its verdict's headline (report.Headline's text).
func verdict(ctx context.Context, tl *timeline.Timeline, m *statemap.Map) (string, error) {
	run := report.NewRun(tl, m, nil) // no log: only the verdict is read
	if _, err := sim.ReplayContext(ctx, tl, m, run.Observers()...); err != nil {
		return "", err
	}
	return run.Verdict().Headline().Text(), nil
}

// plural says n words, with an s unless n is 1.
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
