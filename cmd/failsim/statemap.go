package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/failsim/failsim/statemap"
)

func (m *Main) runStatemap(ctx context.Context, args []string) error {
	fs := m.newFlags("statemap", "[--statemap FILE]")
	smFlag := fs.String("statemap", "", "statemap override `FILE` to layer on the defaults")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErr(fmt.Errorf("statemap takes no arguments, got %q", fs.Args()), "")
	}
	sm, err := statemap.Load(*smFlag)
	if err != nil {
		return usageErr(err, "")
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
