package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/internal/output"
	"github.com/failsim/failsim/sweep"
	"github.com/failsim/failsim/timeline"
)

// runSweepManager is failsim sweep --manager NAME: tungsten is the sweep of the statemap, and
// orchestrator varies Orchestrator's settings (sweep.Orchestrator): at each point the closed-form
// detection of each fault of sweep.OrchFaults on the master, and each incident's replay under
// Orchestrator's rules, printed and written to DIR/sweep-orchestrator.csv.
func (m *Main) runSweepManager(ctx context.Context, c *cobra.Command, o *sweepFlags, args []string) error {
	name := o.manager.name
	if !c.Flags().Changed("manager") {
		name = "tungsten"
	}
	switch name {
	case "tungsten":
		if c.Flags().Changed("manager-config") {
			return usageErr(errors.New("--manager-config is orchestrator.conf.json, for --manager orchestrator"), "the Tungsten Manager's settings are its statemap: --statemap FILE")
		}
		return m.runSweep(ctx, o, args)
	case "orchestrator":
	default:
		return usageErr(fmt.Errorf("--manager %q: failsim knows %s", name, strings.Join(timeline.Managers(), " and ")), "failsim sweep --manager orchestrator --vary InstancePollSeconds=1..10")
	}
	if len(o.vary.axes) > 0 {
		return usageErr(fmt.Errorf("--vary %s with --manager orchestrator: a setting of the Tungsten Manager's; Orchestrator's are %s", o.vary.axes[0].Name, strings.Join(sweep.OrchKeys(), ", ")), "failsim sweep --manager orchestrator --vary InstancePollSeconds=1..10")
	}
	if len(o.vary.orch) == 0 || len(o.vary.orch) > 2 {
		return usageErr(fmt.Errorf("--vary given %d times: a sweep under Orchestrator varies one or two of its keys", len(o.vary.orch)), "failsim sweep --manager orchestrator --vary InstancePollSeconds=1..10")
	}
	for _, flag := range []string{"statemap", "family", "traces", "seed", "nodes", "length", "shard", "workload", "format"} {
		if c.Flags().Changed(flag) {
			return usageErr(fmt.Errorf("--%s with --manager orchestrator: the sweep under Orchestrator measures its detection in closed form and replays the incidents given, no generated traces", flag), "failsim sweep --manager orchestrator --vary InstancePollSeconds=1..10 [INCIDENT...]")
		}
	}
	if err := writableDir(o.out); err != nil {
		return usageErr(fmt.Errorf("--out %s: %w", o.out, err), "--out names the directory the sweep's files are written to: give one failsim can write")
	}
	var cfg sweep.OrchConfig
	cfg.Axes = o.vary.orch
	var first *timeline.Timeline
	for _, path := range args {
		tl, err := timeline.ReadContext(ctx, path, nil)
		if err != nil {
			return loadErr(ctx, "sweep", err)
		}
		if first == nil {
			first = tl
		}
		cfg.Incidents = append(cfg.Incidents, sweep.Incident{Timeline: tl})
	}
	if first == nil {
		first = &timeline.Timeline{}
	}
	base, err := m.orchestratorConfig(ctx, c, &o.manager, first)
	if err != nil {
		return err
	}
	cfg.Base = base
	csv := filepath.Join(o.out, "sweep-orchestrator.csv")
	if err := output.Check(csv, append([]string{o.manager.config}, args...)...); err != nil {
		return usageErr(fmt.Errorf("--out: %w", err), "--out names the directory the sweep's files are written to: give another, or remove what is in the way")
	}
	res, err := sweep.Orchestrator(ctx, cfg)
	if err != nil {
		if ctx.Err() != nil {
			return interrupted(ctx, "sweep")
		}
		var fe *fileline.Error
		if errors.As(err, &fe) {
			return usageErr(err, "")
		}
		return usageErr(err, "")
	}
	if err := sweep.WriteFile(csv, res.CSV()); err != nil {
		return err
	}
	if _, err := fmt.Fprint(m.Stdout, res.Text()); err != nil {
		return err
	}
	_, err = fmt.Fprintf(m.Stdout, "\nwrote %s\n", csv)
	return err
}
