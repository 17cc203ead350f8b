package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/orchestrator"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
	"github.com/failsim/failsim/timing"
)

// timingFlags are failsim timing's flags.
type timingFlags struct {
	statemap, format  string
	interval, timeout time.Duration
	manager           managerFlags
}

func (m *Main) timingCmd() *cobra.Command {
	var o timingFlags
	c := &cobra.Command{
		Use:   "timing",
		Short: "print how long after each fault starts its node shows it, raises its alarm and is fenced",
		Long: `Print, for each fault of the fault table, the earliest and the latest time from the fault's
start on a healthy node's database link to the node's state change, to its alarm, and to its fence
(a replica failed, a master failed over, under the automatic policy), over every phase of the
node's probes (every --interval, each within the --timeout budget) and of the 10 s ticks.
Computed exactly: the latest is a bound approached and never reached; "never" is never.

With --manager orchestrator, print instead, for each fault on the master's link, the earliest
and the latest time from its start to Orchestrator's first problem code, to DeadMaster and to
its recovery, under --manager-config FILE (an orchestrator.conf.json; default Orchestrator's
own) and MariaDB's default replica settings, over fault starts at every millisecond of a cycle
of its reads and the replicas' heartbeats.`,
		Args: noArgs(""),
		RunE: func(c *cobra.Command, _ []string) error {
			if c.Flags().Changed("manager") {
				return m.runTimingManager(c.Context(), c, &o)
			}
			return m.runTiming(c.Context(), &o)
		},
	}
	statemapVar(c, &o.statemap, "statemap override `FILE` to layer on the defaults")
	intervalVar(c, &o.interval)
	c.Flags().DurationVar(&o.timeout, "timeout", timeline.DefaultTimeout, "the checker's probe budget, a `DURATION`")
	formatVar(c, &o.format)
	managerVars(c, &o.manager)
	return c
}

// runTimingManager is failsim timing --manager: the Tungsten table, or Orchestrator's.
func (m *Main) runTimingManager(ctx context.Context, c *cobra.Command, o *timingFlags) error {
	name, err := o.manager.manager(c, &timeline.Timeline{})
	if err != nil {
		return err
	}
	if name == "tungsten" {
		return m.runTiming(ctx, o)
	}
	for _, f := range []string{"statemap", "interval", "timeout"} {
		if c.Flags().Changed(f) {
			return usageErr(fmt.Errorf("--%s is the Tungsten Manager's checker; Orchestrator's poll is its orchestrator.conf.json's (--manager-config)", f), "")
		}
	}
	if o.format != "text" {
		return usageErr(fmt.Errorf("--format %s: Orchestrator's timing is text only", o.format), "")
	}
	cfg, err := m.orchestratorConfig(ctx, c, &o.manager, &timeline.Timeline{})
	if err != nil {
		return err
	}
	rows, err := orchestratorTiming(cfg)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(m.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FAULT ON THE MASTER\tFIRST PROBLEM CODE\tDEADMASTER\tRECOVERY")
	for _, r := range rows {
		fmt.Fprintln(tw, r)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(m.Stdout, "\nTimes from the fault's start on the master's link, earliest-latest over fault starts at every\n"+
		"millisecond of a cycle of the reads (every InstancePollSeconds + 1 s = %s) and the replicas'\n"+
		"heartbeats (MariaDB's defaults: slave_net_timeout 60 s, a heartbeat every 30 s). RECOVERY runs at\n"+
		"the DeadMaster tick when RecoverMasterClusterFilters names the cluster (and none ran in the last\n"+
		"RecoveryPeriodBlockSeconds).\n", cfg.InstancePoll+orchestrator.HealthPoll)
	return err
}

// orchestratorTiming is the rows of Orchestrator's timing table: each fault the model covers.
func orchestratorTiming(cfg orchestrator.Config) ([]string, error) {
	span := func(a, b time.Duration) string { return fmt.Sprintf("%s-%ss", secText(a), secText(b)) }
	recovers := orchestrator.Automated(cfg.RecoverMasterClusterFilters, orchestrator.Cluster{Name: "db1"})
	var rows []string
	for _, f := range []fault.Fault{{Kind: fault.Refuse}, {Kind: fault.Reset}, {Kind: fault.Close}, {Kind: fault.Freeze},
		{Kind: fault.Blackhole}, {Kind: fault.Stall}, {Kind: fault.Error, Code: 1040}, {Kind: fault.Unreachable}, {Kind: fault.HostDown}} {
		b, ok, err := orchestrator.BoundsOf(cfg, orchestrator.DefaultReplica(), f)
		if err != nil {
			return nil, err
		}
		name := f.Kind.String()
		if f.Kind == fault.Error {
			name += " 1040"
		}
		if !ok {
			rows = append(rows, name+"\tnever\tnever\tnever")
			continue
		}
		dead, rec := "never", "never"
		if b.DeadEver {
			dead = span(b.DeadMin, b.DeadMax)
			if recovers {
				rec = dead
			}
		}
		rows = append(rows, fmt.Sprintf("%s\t%s (%s)\t%s\t%s", name, span(b.UnreachableMin, b.UnreachableMax), firstCode(b), dead, rec))
	}
	return rows, nil
}

// firstCode names the first problem code of a fault's detection: DeadMaster when the replicas
// were already seen stopped, else UnreachableMaster.
func firstCode(b orchestrator.Bounds) string {
	if b.DeadEver && b.DeadMax == b.UnreachableMax && b.DeadMin == b.UnreachableMin {
		return "DeadMaster"
	}
	return "UnreachableMaster"
}

// intervalVar adds --interval to c.
func intervalVar(c *cobra.Command, p *time.Duration) {
	c.Flags().DurationVar(p, "interval", timeline.DefaultInterval, "the time between a node's probe starts, a `DURATION`")
}

func (m *Main) runTiming(ctx context.Context, o *timingFlags) error {
	f, err := parseFormat(o.format)
	if err != nil {
		return err
	}
	if err := checkerFlags(o.interval, o.timeout); err != nil {
		return err
	}
	sm, err := statemap.LoadContext(ctx, o.statemap)
	if err != nil {
		return loadErr(ctx, "timing", err)
	}
	rows := timing.Table(sm, o.interval, o.timeout)
	if f == report.JSON {
		out := make([]timingJSON, len(rows))
		for i, r := range rows {
			out[i] = timingJSON{faultRow(r.Row), spanOf(r.StateChange), spanOf(r.Alarm), spanOf(r.Fence)}
		}
		head := struct {
			Interval seconds `json:"interval_s"`
			Timeout  seconds `json:"timeout_s"`
			Tick     seconds `json:"tick_s"`
		}{secs(o.interval), secs(o.timeout), secs(statemap.TickInterval)}
		return writeTable(m.Stdout, head, "faults", out)
	}
	tw := tabwriter.NewWriter(m.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FAULT\tPROBE OUTCOME\tSTATE\tTHRESHOLD\tACTION\tSTATE CHANGE\tALARM\tFENCE")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", r.Fault, r.Outcome.Condition, r.State, r.Rule.Threshold, r.Rule.Action,
			spanText(r.StateChange), spanText(r.Alarm), spanText(r.Fence))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(m.Stdout, "\nTimes from the fault's start, earliest-latest over every phase of probes (every %s, within %s)\n"+
		"and ticks (every %s); the latest is approached, never reached. FENCE: a replica failed, a master\n"+
		"failed over (automatic policy, a coordinator up).\n", o.interval, o.timeout, statemap.TickInterval)
	return err
}
