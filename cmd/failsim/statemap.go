package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/failsim/failsim/statemap"
)

func (m *Main) statemapCmd() *cobra.Command {
	var smFlag string
	c := &cobra.Command{
		Use:   "statemap",
		Short: "print the effective statemap (defaults plus an optional override)",
		Long: `Print the effective statemap, the shipped defaults with --statemap's override on top:
for each condition its state, threshold in ticks and the time it means, action, where the row
came from, and what it does.`,
		Args: noArgs(""),
		RunE: func(c *cobra.Command, _ []string) error { return m.runStatemap(c.Context(), smFlag) },
	}
	statemapVar(c, &smFlag, "statemap override `FILE` to layer on the defaults")
	return c
}

func (m *Main) runStatemap(ctx context.Context, smFlag string) error {
	sm, err := statemap.LoadContext(ctx, smFlag)
	if err != nil {
		return loadErr(ctx, "statemap", err)
	}
	tw := tabwriter.NewWriter(m.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CONDITION\tSTATE\tTHRESHOLD\tTIME\tACTION\tSOURCE\tEFFECT")
	for _, c := range statemap.Conditions() {
		r := sm.Rule(c)
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", c, r.State, r.Threshold, window(r), r.Action, r.Source, r.Explain(c))
	}
	return tw.Flush()
}

// window writes the span of sustained failure after which a rule's alarm expires.
func window(r statemap.Rule) string {
	lo, hi, ok := r.Window()
	switch {
	case !ok:
		return "never"
	case r.Threshold == 0:
		return "at once"
	}
	return fmt.Sprintf("%d-%ds", int(lo.Seconds()), int(hi.Seconds()))
}
