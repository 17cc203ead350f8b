package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/failsim/failsim/check"
	"github.com/failsim/failsim/internal/output"
	"github.com/failsim/failsim/timeline"
)

// runCheckManager is failsim check --manager NAME: tungsten is the check of a statemap, and
// orchestrator judges the properties under Orchestrator's rules (check.RunOrchestrator): per
// family, each property's count of violating traces and its first violation, shrunk and
// written to --out as a timeline that failsim replay replays under Orchestrator. A property that means nothing
// under Orchestrator is bad input, with why.
func (m *Main) runCheckManager(ctx context.Context, c *cobra.Command, o *checkFlags) error {
	name := o.manager.name
	if !c.Flags().Changed("manager") {
		name = "tungsten"
	}
	switch name {
	case "tungsten":
		if c.Flags().Changed("manager-config") {
			return usageErr(errors.New("--manager-config is orchestrator.conf.json, for --manager orchestrator"), "the Tungsten Manager's settings are its statemap: --statemap FILE")
		}
		return m.runCheck(ctx, o)
	case "orchestrator":
	default:
		return usageErr(fmt.Errorf("--manager %q: failsim knows %s", name, strings.Join(timeline.Managers(), " and ")), "failsim check --manager orchestrator")
	}
	for _, flag := range []string{"statemap", "report", "format", "junit", "shard", "workers"} {
		if c.Flags().Changed(flag) {
			return usageErr(fmt.Errorf("--%s with --manager orchestrator: the check under Orchestrator's rules is text, on one core, not sharded", flag), "failsim check --manager orchestrator [--manager-config FILE] [--family benign|fatal|all]")
		}
	}
	var fams []check.Family
	switch o.family {
	case "all":
		fams = []check.Family{check.Benign, check.Fatal}
	case "benign":
		fams = []check.Family{check.Benign}
	case "fatal":
		fams = []check.Family{check.Fatal}
	default:
		return usageErr(fmt.Errorf("--family %s with --manager orchestrator: want benign, fatal or all", o.family), "mixed and partition traces are the Tungsten managers'")
	}
	var work *check.Workload
	if o.workload != "" {
		w, err := check.ParseWorkload(o.workload)
		if err != nil {
			return usageErr(fmt.Errorf("--workload %s: %w", o.workload, err), "--workload writes=200/s,deadline=2s")
		}
		work = &w
	}
	cfg, err := m.orchestratorConfig(ctx, c, &o.manager, &timeline.Timeline{})
	if err != nil {
		return err
	}
	if err := writableDir(o.out); err != nil {
		return usageErr(fmt.Errorf("--out %s: %w", o.out, err), "")
	}
	fmt.Fprintf(m.Stdout, "manager orchestrator: %s\n", cfg)
	violated := false
	for _, f := range fams {
		start := time.Now()
		res, err := check.RunOrchestrator(ctx, check.OrchConfig{Orchestrator: cfg, Family: f, Properties: o.specs, Nodes: o.nodes,
			Length: o.length, Traces: o.traces, Seed: o.seed, Workload: work})
		if err != nil {
			if ctx.Err() != nil {
				return interrupted(ctx, "check")
			}
			return usageErr(fmt.Errorf("--family %s: %w", f, err), "")
		}
		fmt.Fprintf(m.Stdout, "family %s: %d traces, seed %d\n", f, res.Traces, o.seed)
		for k, s := range res.Properties {
			if res.Violated[k] == 0 {
				fmt.Fprintf(m.Stdout, "  held      %s\n", s)
				continue
			}
			violated = true
			tl := res.Shrunk[k]
			tl.Manager = "orchestrator"
			path := filepath.Join(o.out, fmt.Sprintf("orchestrator-%s-%s-seed%d-trace%d.timeline", f, s.Name, o.seed, res.First[k]))
			if err := output.WriteFile(path, timeline.Format(tl)); err != nil {
				return err
			}
			fmt.Fprintf(m.Stdout, "  VIOLATED  %s: %d of %d traces; the first, trace %d: %s\n", s, res.Violated[k], res.Traces, res.First[k], res.Why[k])
			fmt.Fprintf(m.Stdout, "  shrunk in %d replays to %s on %s over %s:\n    %s\n    written to %s\n", res.Replays[k],
				check.Plural(check.Events(tl), "event"), check.Plural(len(tl.Nodes), "node"), tl.End, res.ShrunkWhy[k], path)
		}
		log := m.Stderr
		fmt.Fprintf(log, "failsim: note: family %s: %d traces judged in %s\n", f, res.Traces, time.Since(start).Round(time.Millisecond))
	}
	if violated {
		return failedErr()
	}
	return nil
}
