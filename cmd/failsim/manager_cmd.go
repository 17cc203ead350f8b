package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/failsim/failsim/internal/input"
	"github.com/failsim/failsim/orchestrator"
	"github.com/failsim/failsim/timeline"
)

func (m *Main) managerCmd() *cobra.Command {
	var config string
	c := &cobra.Command{
		Use:   "manager",
		Short: "show what failsim models of a failover manager, and of an orchestrator.conf.json",
		Long: `Show the failover manager failsim replays a timeline under and the settings it models.

"failsim manager orchestrator" lists every orchestrator.conf.json key failsim models with
its value: Orchestrator's default, or the value in --manager-config FILE, read as Orchestrator
reads it. The file's other keys are listed apart: Orchestrator may know them, failsim does not
model them and replays without them. "failsim manager tungsten" says where the Tungsten
Manager's settings are: the statemap. Exit 2 for bad input.`,
		Annotations: map[string]string{argsAnnotation: "tungsten|orchestrator"},
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr(fmt.Errorf("manager takes one manager's name, got %d arguments", len(args)), "failsim manager orchestrator --manager-config orchestrator.conf.json")
			}
			return nil
		},
		ValidArgs: timeline.Managers(),
		RunE: func(c *cobra.Command, args []string) error {
			return m.runManager(c.Context(), c, args[0], config)
		},
	}
	c.Flags().StringVar(&config, "manager-config", "", "with orchestrator: the orchestrator.conf.json `FILE` to read (default: Orchestrator's defaults)")
	c.MarkFlagFilename("manager-config", "json")
	return c
}

func (m *Main) runManager(ctx context.Context, c *cobra.Command, name, config string) error {
	w := bufio.NewWriter(m.Stdout)
	defer w.Flush()
	switch name {
	case "tungsten":
		if c.Flags().Changed("manager-config") {
			return usageErr(errors.New("--manager-config is orchestrator.conf.json, for orchestrator"), "the Tungsten Manager's settings are its statemap: failsim statemap FILE")
		}
		fmt.Fprintln(w, "manager tungsten: the Tungsten Manager's rules (docs/engine.md); its settings are the statemap's (failsim statemap, a timeline's statemap statement)")
		return nil
	case "orchestrator":
	default:
		return usageErr(fmt.Errorf("manager %q: failsim knows %s", name, strings.Join(timeline.Managers(), " and ")), "failsim manager orchestrator")
	}
	cfg, unknown := orchestrator.Defaults(), []string(nil)
	from := "Orchestrator's defaults"
	if config != "" {
		data, err := input.ReadFile(ctx, config, "orchestrator configuration", orchestrator.ConfigMax)
		if err != nil {
			return usageErr(err, "")
		}
		if cfg, unknown, err = orchestrator.Parse(config, data); err != nil {
			return usageErr(err, "")
		}
		from = config
	}
	fmt.Fprintf(w, "manager orchestrator: Orchestrator's rules at 730db91 as one process (docs/engine.md, \"Orchestrator\"); settings from %s\n", from)
	for _, s := range cfg.Settings() {
		fmt.Fprintf(w, "  %-44s %s\n", s.Key, s.Value)
	}
	if len(unknown) > 0 {
		fmt.Fprintf(w, "not modelled, replayed without: %s\n", strings.Join(unknown, ", "))
	}
	return nil
}
