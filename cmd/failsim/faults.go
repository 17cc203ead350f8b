package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/failsim/failsim/faultmodel"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

func (m *Main) faultsCmd() *cobra.Command {
	var (
		smFlag, format string
		timeout        time.Duration
	)
	c := &cobra.Command{
		Use:   "faults",
		Short: "print the fault table and what the statemap does with each fault",
		Long: `Print the fault table: each fault a timeline or the proxy can set, the probe outcome it
gives within the checker's budget (--timeout), and what the statemap does with it.`,
		Args: noArgs(""),
		RunE: func(c *cobra.Command, _ []string) error { return m.runFaults(c.Context(), smFlag, timeout, format) },
	}
	statemapVar(c, &smFlag, "statemap override `FILE` to layer on the defaults")
	c.Flags().DurationVar(&timeout, "timeout", timeline.DefaultTimeout, "the checker's probe budget, a `DURATION`")
	formatVar(c, &format)
	return c
}

func (m *Main) runFaults(ctx context.Context, smFlag string, timeout time.Duration, format string) error {
	f, err := parseFormat(format)
	if err != nil {
		return err
	}
	if timeout <= 0 {
		return usageErr(fmt.Errorf("--timeout %s: want a positive duration", timeout), "")
	}
	sm, err := statemap.LoadContext(ctx, smFlag)
	if err != nil {
		return loadErr(ctx, "faults", err)
	}
	if f == report.JSON {
		var rows []faultJSON
		for _, row := range faultmodel.Table(sm, timeout) {
			rows = append(rows, faultRow(row))
		}
		head := struct {
			Timeout seconds `json:"timeout_s"`
		}{secs(timeout)}
		return writeTable(m.Stdout, head, "faults", rows)
	}
	tw := tabwriter.NewWriter(m.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FAULT\tWHAT\tPROBE OUTCOME\tAFTER\tSTATE\tTHRESHOLD\tACTION\tEFFECT")
	for _, row := range faultmodel.Table(sm, timeout) {
		after := "at once"
		if row.Outcome.Took > 0 {
			after = row.Outcome.Took.String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", row.Fault, row.What, row.Outcome.Condition, after, row.State, row.Rule.Threshold, row.Rule.Action, row.Effect)
	}
	return tw.Flush()
}
