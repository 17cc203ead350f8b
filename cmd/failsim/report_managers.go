package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/failsim/failsim/htmlreport"
	"github.com/failsim/failsim/orchestrator"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/timeline"
)

// sideManagers checks a --managers list: managers failsim knows, each once.
func sideManagers(list []string) error {
	seen := map[string]bool{}
	for _, name := range list {
		if !slices.Contains(timeline.Managers(), name) {
			return usageErr(fmt.Errorf("--managers: %q: failsim knows %s", name, strings.Join(timeline.Managers(), " and ")), "failsim replay --managers tungsten,orchestrator FILE")
		}
		if seen[name] {
			return usageErr(fmt.Errorf("--managers: %s twice", name), "")
		}
		seen[name] = true
	}
	return nil
}

// runReportManagers is failsim report --managers: the report of the Tungsten run, its chart
// with a lane per manager of the list above the nodes' lanes, on the one time axis (each
// manager's master, decisions and client's writes; Orchestrator's analysis code), and the
// other managers' replays, as failsim replay prints them, under the Tungsten verdict. The
// nodes' lanes and the expectations are the Tungsten run's, so the list must name tungsten.
func (m *Main) runReportManagers(ctx context.Context, c *cobra.Command, o *reportFlags, path string) error {
	list := o.side.side
	switch {
	case !c.Flags().Changed("managers"):
		return usageErr(errors.New("--manager-config is orchestrator.conf.json, for --managers tungsten,orchestrator"), "failsim report --managers tungsten,orchestrator --manager-config FILE TIMELINE")
	case c.Flags().Changed("manager"):
		return usageErr(errors.New("--manager with --managers: each manager drawn is named in --managers"), "failsim report --managers tungsten,orchestrator FILE")
	}
	if err := sideManagers(list); err != nil {
		return err
	}
	if !slices.Contains(list, "tungsten") {
		return usageErr(fmt.Errorf("--managers %s: the nodes' lanes and the expectations are the Tungsten run's: name tungsten too", strings.Join(list, ",")), "failsim report --managers tungsten,orchestrator FILE")
	}
	if c.Flags().Changed("manager-config") && !slices.Contains(list, "orchestrator") {
		return usageErr(errors.New("--manager-config is orchestrator.conf.json, for --managers tungsten,orchestrator"), "")
	}
	return m.runReport(ctx, o, path, func(tl *timeline.Timeline, run *reportRun) (func() error, error) {
		var cfg orchestrator.Config
		if slices.Contains(list, "orchestrator") {
			var err error
			if cfg, err = m.orchestratorConfig(ctx, c, &o.side, tl); err != nil {
				return nil, err
			}
		}
		lanes := make([]*htmlreport.ManagerLane, len(list))
		for i, name := range list {
			lanes[i] = htmlreport.NewManagerLane(name, tl)
			if name == "tungsten" {
				run.lane = lanes[i]
			}
		}
		return func() error {
			for i, name := range list {
				if name != "orchestrator" {
					continue
				}
				if _, err := sim.ReplayOrchestrator(tl, cfg, lanes[i]); err != nil {
					return usageErr(err, "")
				}
				var text bytes.Buffer
				if err := sim.RunOrchestrator(&text, tl, cfg); err != nil {
					return usageErr(err, "")
				}
				if run.extra != "" {
					run.extra += "\n"
				}
				run.extra += "== manager orchestrator\n" + strings.TrimSuffix(text.String(), "\n")
			}
			run.rec.Managers(lanes...)
			return nil
		}, nil
	})
}
