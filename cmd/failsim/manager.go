package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/internal/input"
	"github.com/failsim/failsim/orchestrator"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// managerFlags are --manager, --manager-config and replay's --managers.
type managerFlags struct {
	name, config string
	side         []string // --managers: the managers to replay side by side
}

// managerVars adds --manager and --manager-config to c.
func managerVars(c *cobra.Command, o *managerFlags) {
	f := c.Flags()
	f.StringVar(&o.name, "manager", "", "the failover manager `NAME` whose rules to apply: tungsten or orchestrator (default: a timeline's manager statement, else tungsten)")
	f.StringVar(&o.config, "manager-config", "", "with --manager orchestrator: its orchestrator.conf.json `FILE` (default: the manager statement's config, else Orchestrator's defaults)")
	complete(c, "manager", timeline.Managers()...)
	if c.Name() == "replay" {
		f.StringSliceVar(&o.side, "managers", nil, "replay the timeline under each manager of `LIST` in turn, side by side: tungsten,orchestrator (text; the expectations are judged under tungsten's rules)")
	}
	c.MarkFlagFilename("manager-config", "json")
}

// manager is the manager a command runs tl under: --manager, else tl's statement, else
// tungsten; a name failsim does not know is a usage error.
func (o *managerFlags) manager(c *cobra.Command, tl *timeline.Timeline) (string, error) {
	name := tl.Manager
	if c.Flags().Changed("manager") {
		name = o.name
		if !slices.Contains(timeline.Managers(), name) {
			return "", usageErr(fmt.Errorf("--manager %q: failsim knows %s", name, strings.Join(timeline.Managers(), " and ")), "failsim replay --manager orchestrator FILE")
		}
	}
	if name == "" {
		name = "tungsten"
	}
	if name != "orchestrator" && c.Flags().Changed("manager-config") {
		return "", usageErr(errors.New("--manager-config is orchestrator.conf.json, for --manager orchestrator"), "the Tungsten Manager's settings are its statemap: --statemap FILE")
	}
	return name, nil
}

// orchestratorConfig reads the orchestrator.conf.json of --manager-config, else of tl's
// manager statement (an error reading it at the statement's line), else Orchestrator's
// defaults; it notes on stderr the keys failsim does not model.
func (m *Main) orchestratorConfig(ctx context.Context, c *cobra.Command, o *managerFlags, tl *timeline.Timeline) (orchestrator.Config, error) {
	path, fromStatement := o.config, false
	if !c.Flags().Changed("manager-config") {
		path, fromStatement = tl.ManagerConfig, true
	}
	if path == "" {
		return orchestrator.Defaults(), nil
	}
	data, err := input.ReadFile(ctx, path, "orchestrator configuration", orchestrator.ConfigMax)
	if err != nil {
		if fromStatement {
			err = fileline.Errorf(tl.File, tl.ManagerLine, "manager orchestrator config %s: %w", path, err)
		}
		return orchestrator.Config{}, usageErr(err, "")
	}
	cfg, unknown, err := orchestrator.Parse(path, data)
	if err != nil {
		return orchestrator.Config{}, usageErr(err, "")
	}
	if len(unknown) > 0 {
		fmt.Fprintf(m.Stderr, "failsim: note: %s: failsim does not model %s; it replays without them\n", path, strings.Join(unknown, ", "))
	}
	return cfg, nil
}

// runReplaySideBySide is failsim replay --managers: the timeline under each manager in turn,
// each headed by its name and settings. The timeline's expectations are judged under
// Tungsten's rules (they speak its states); it exits 1 when one fails there.
func (m *Main) runReplaySideBySide(ctx context.Context, c *cobra.Command, o *replayFlags, tl *timeline.Timeline, sm *statemap.Map) error {
	for _, name := range []string{"manager", "live", "report", "shadow"} {
		if c.Flags().Changed(name) {
			return usageErr(fmt.Errorf("--%s with --managers: the side by side replay is in the simulator, as text, each manager named in --managers", name), "failsim replay --managers tungsten,orchestrator FILE")
		}
	}
	if o.format != "text" {
		return usageErr(fmt.Errorf("--format %s with --managers: the side by side replay is text only", o.format), "")
	}
	if err := sideManagers(o.manager.side); err != nil {
		return err
	}
	var cfg orchestrator.Config
	if slices.Contains(o.manager.side, "orchestrator") {
		var err error
		if cfg, err = m.orchestratorConfig(ctx, c, &o.manager, tl); err != nil {
			return err
		}
	}
	failed := false
	for i, name := range o.manager.side {
		if i > 0 {
			fmt.Fprintln(m.Stdout)
		}
		if name == "orchestrator" {
			fmt.Fprintf(m.Stdout, "== manager orchestrator\n")
			if err := sim.RunOrchestrator(m.Stdout, tl, cfg); err != nil {
				return usageErr(err, "")
			}
			continue
		}
		from := "the shipped defaults"
		switch {
		case c.Flags().Changed("statemap"):
			if o.statemap != "" {
				from = o.statemap
			}
		case tl.Statemap != "":
			from = tl.Statemap
		}
		fmt.Fprintf(m.Stdout, "== manager tungsten: statemap %s\n", from)
		results, err := sim.Run(ctx, m.Stdout, report.Text, tl, sm)
		if err != nil {
			if ctx.Err() != nil {
				return interrupted(ctx, "replay")
			}
			return err
		}
		for _, r := range results {
			failed = failed || !r.Held
		}
	}
	if failed {
		return failedErr()
	}
	return nil
}

// runReplayOrchestrator is failsim replay --manager orchestrator: the timeline under
// Orchestrator's rules, in virtual time, printed as text.
func (m *Main) runReplayOrchestrator(ctx context.Context, c *cobra.Command, o *replayFlags, tl *timeline.Timeline) error {
	for _, name := range []string{"live", "report", "statemap", "shadow"} {
		if c.Flags().Changed(name) {
			return usageErr(fmt.Errorf("--%s: failsim replays Orchestrator's rules in the simulator, as text, and no more yet", name), "failsim replay --manager orchestrator [--manager-config FILE] FILE")
		}
	}
	if o.format != "text" {
		return usageErr(fmt.Errorf("--format %s: Orchestrator's replay is text only", o.format), "")
	}
	cfg, err := m.orchestratorConfig(ctx, c, &o.manager, tl)
	if err != nil {
		return err
	}
	if err := sim.RunOrchestrator(m.Stdout, tl, cfg); err != nil {
		var fe *fileline.Error
		if errors.As(err, &fe) {
			return usageErr(err, "")
		}
		return err
	}
	return nil
}

// tungstenOnly refuses a timeline whose manager statement names another manager than
// Tungsten, for a command that runs Tungsten's rules alone (bad input: the caller makes it a
// usage error).
func tungstenOnly(tl *timeline.Timeline, command string) error {
	if tl.Manager == "" || tl.Manager == "tungsten" {
		return nil
	}
	return fileline.Errorf(tl.File, tl.ManagerLine, "manager %s: failsim %s runs the Tungsten Manager's rules only; failsim replay runs %s's", tl.Manager, command, tl.Manager)
}
