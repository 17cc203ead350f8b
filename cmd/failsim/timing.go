package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
	"github.com/failsim/failsim/timing"
)

// timingFlags are failsim timing's flags.
type timingFlags struct {
	statemap, format  string
	interval, timeout time.Duration
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
Computed exactly: the latest is a bound approached and never reached; "never" is never.`,
		Args: noArgs(""),
		RunE: func(c *cobra.Command, _ []string) error { return m.runTiming(c.Context(), &o) },
	}
	statemapVar(c, &o.statemap, "statemap override `FILE` to layer on the defaults")
	intervalVar(c, &o.interval)
	c.Flags().DurationVar(&o.timeout, "timeout", timeline.DefaultTimeout, "the checker's probe budget, a `DURATION`")
	formatVar(c, &o.format)
	return c
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
