package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
)

func (m *Main) runFaults(ctx context.Context, args []string) error {
	fs := m.newFlags("faults", "[--statemap FILE] [--timeout DUR]")
	smFlag := fs.String("statemap", "", "statemap override `FILE` to layer on the defaults")
	timeout := fs.Duration("timeout", sim.DefaultTimeout, "the checker's probe budget")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErr(fmt.Errorf("faults takes no arguments, got %q", fs.Args()), "")
	}
	if *timeout <= 0 {
		return usageErr(fmt.Errorf("--timeout %s: want a positive duration", *timeout), "")
	}
	sm, err := statemap.Load(*smFlag)
	if err != nil {
		return usageErr(err, "")
	}
	tw := tabwriter.NewWriter(m.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FAULT\tWHAT\tPROBE OUTCOME\tAFTER\tSTATE\tTHRESHOLD\tACTION\tEFFECT")
	for _, row := range sim.FaultTable(sm, *timeout) {
		after := "at once"
		if row.Outcome.Took > 0 {
			after = row.Outcome.Took.String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", row.Fault, row.What, row.Outcome.Condition, after, row.State, row.Rule.Threshold, row.Rule.Action, row.Effect)
	}
	return tw.Flush()
}
