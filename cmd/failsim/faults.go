package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
)

// faultRows are the rows of the fault table: each kind, with the arguments that matter.
var faultRows = []struct {
	f    fault.Fault
	what string
}{
	{fault.Fault{Kind: fault.Heal}, "no fault"},
	{fault.Fault{Kind: fault.Refuse}, "port closed: hard death"},
	{fault.Fault{Kind: fault.Reset}, "RST on every connection"},
	{fault.Fault{Kind: fault.Close}, "FIN right after accept: clean exit"},
	{fault.Fault{Kind: fault.Freeze}, "accepted, then silence"},
	{fault.Fault{Kind: fault.Blackhole}, "SYN never answered"},
	{fault.Fault{Kind: fault.Stall}, "connect and login work, queries hang: the EBS case"},
	{fault.Fault{Kind: fault.Slow, Delay: 2 * time.Second}, "the query's reply takes 2s (under the budget)"},
	{fault.Fault{Kind: fault.Slow, Delay: 10 * time.Second}, "the query's reply takes 10s (over the budget)"},
	{fault.Fault{Kind: fault.Error, Code: 1040}, "Too many connections, instead of the greeting"},
	{fault.Fault{Kind: fault.Error, Code: 1045}, "Access denied, in reply to the login"},
	{fault.Fault{Kind: fault.Error, Code: 1205}, "any other MySQL error, instead of the greeting"},
	{fault.Fault{Kind: fault.Unreachable}, "no route to host"},
	{fault.Fault{Kind: fault.HostDown}, "host is down"},
	{fault.Fault{Kind: fault.Probe, Condition: "query_exec_timeout"}, "any condition, forced"},
}

func (m *Main) faultsCmd() *cobra.Command {
	var (
		smFlag  string
		timeout time.Duration
	)
	c := &cobra.Command{
		Use:   "faults",
		Short: "print the fault table and what the statemap does with each fault",
		Long: `Print the fault table: each fault a timeline or the proxy can set, the probe outcome it
gives within the checker's budget (--timeout), and what the statemap does with it.`,
		Args: noArgs(""),
		RunE: func(c *cobra.Command, _ []string) error { return m.runFaults(c.Context(), smFlag, timeout) },
	}
	statemapVar(c, &smFlag, "statemap override `FILE` to layer on the defaults")
	c.Flags().DurationVar(&timeout, "timeout", sim.DefaultTimeout, "the checker's probe budget, a `DURATION`")
	return c
}

func (m *Main) runFaults(ctx context.Context, smFlag string, timeout time.Duration) error {
	if timeout <= 0 {
		return usageErr(fmt.Errorf("--timeout %s: want a positive duration", timeout), "")
	}
	sm, err := statemap.LoadContext(ctx, smFlag)
	if err != nil {
		return loadErr(ctx, "faults", err)
	}
	tw := tabwriter.NewWriter(m.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FAULT\tWHAT\tPROBE OUTCOME\tAFTER\tSTATE\tTHRESHOLD\tACTION\tEFFECT")
	for _, row := range faultRows {
		o := sim.Predict(row.f, timeout)
		r := sm.Rule(o.Condition)
		state := r.State
		if o.Condition == statemap.OK {
			state = statemap.Online
		}
		after := "at once"
		if o.Took > 0 {
			after = o.Took.String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", row.f, row.what, o.Condition, after, state, r.Threshold, r.Action, r.Explain())
	}
	return tw.Flush()
}
