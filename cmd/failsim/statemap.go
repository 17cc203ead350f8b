package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/statemap"
)

func (m *Main) statemapCmd() *cobra.Command {
	var smFlag, format string
	c := &cobra.Command{
		Use:   "statemap",
		Short: "print the effective statemap (defaults plus an optional override), or diff two",
		Long: `Print the effective statemap, the shipped defaults with --statemap's override on top:
for each condition its state, threshold in ticks and the time it means, action, where the row
came from, and what it does. 'failsim statemap diff A B' compares two.`,
		Args: statemapArgs,
		RunE: func(c *cobra.Command, _ []string) error { return m.runStatemap(c.Context(), smFlag, format) },
	}
	statemapVar(c, &smFlag, "statemap override `FILE` to layer on the defaults")
	formatVar(c, &format)
	c.AddCommand(m.statemapDiffCmd())
	return c
}

// statemapArgs refuses arguments to failsim statemap itself, suggesting diff for a near miss.
func statemapArgs(c *cobra.Command, args []string) error {
	hint := ""
	if len(args) > 0 && suggestCommand(c, args[0]) != "" {
		hint = fmt.Sprintf("did you mean 'failsim statemap %s'?", suggestCommand(c, args[0]))
	}
	return noArgs(hint)(c, args)
}

func (m *Main) runStatemap(ctx context.Context, smFlag, format string) error {
	f, err := parseFormat(format)
	if err != nil {
		return err
	}
	sm, err := statemap.LoadContext(ctx, smFlag)
	if err != nil {
		return loadErr(ctx, "statemap", err)
	}
	if f == report.JSON {
		var rows []ruleJSON
		for _, c := range statemap.Conditions() {
			r := sm.Rule(c)
			row := ruleJSON{Condition: c.String(), State: r.State.String(), Threshold: r.Threshold, Action: r.Action.String(), Source: r.Source, Effect: r.Explain(c)}
			if lo, hi, ok := r.Window(); ok {
				row.Expires = &spanJSON{Earliest: secs(lo), Latest: secs(hi)}
			}
			rows = append(rows, row)
		}
		head := struct {
			Tick seconds `json:"tick_s"`
		}{secs(statemap.TickInterval)}
		return writeTable(m.Stdout, head, "conditions", rows)
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
