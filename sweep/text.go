package sweep

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteText writes the result as failsim sweep prints it: the run, a line per point (the
// grid's, then the point in force if off it), the Pareto frontier, and each incident's
// outcome in force and the settings that change it.
func (r *Result) WriteText(w io.Writer) error {
	sm := "the shipped defaults"
	if r.Run.Statemap != "" {
		sm = r.Run.Statemap
	}
	var traces []string
	if n := r.Run.BenignTraces; n > 0 {
		traces = append(traces, fmt.Sprintf("%d benign", n))
	}
	if n := r.Run.FatalTraces; n > 0 {
		traces = append(traces, fmt.Sprintf("%d fatal", n))
	}
	if n := r.Run.PartitionTraces; n > 0 {
		traces = append(traces, fmt.Sprintf("%d partition", n))
	}
	work := ""
	if r.Run.Workload != "" {
		work = ", workload " + r.Run.Workload
	}
	fmt.Fprintf(w, "failsim sweep: %s under %s, seed %d, %s traces a setting, %d nodes, %s each%s\n",
		strings.Join(r.Run.Vary, " "), sm, r.Run.Seed, strings.Join(traces, " and "), r.Run.Nodes, r.Run.Length, work)
	if len(r.FatalFaults) > 0 {
		fmt.Fprintf(w, "fatal faults: %s\n", strings.Join(r.FatalFaults, ", "))
	}
	fmt.Fprintln(w)
	var table bytes.Buffer
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	var head []string
	for _, a := range r.Grid.Axes {
		head = append(head, a.Name)
	}
	trade := r.Run.BenignTraces > 0 || r.Run.FatalTraces > 0 // the columns of the trade
	if trade {
		head = append(head, "false failovers", "fenced p50", "p95", "max", "missed")
	}
	if work != "" && trade {
		head = append(head, "benign unavail p95", "lost", "fatal unavail p50", "p95", "max", "lost", "lost p95")
	}
	part := r.Run.PartitionTraces > 0
	if part {
		head = append(head, "split brain", "split p50", "p95", "max", "no writer p50", "p95", "max", "at end")
		if work != "" {
			head = append(head, "unavail p50", "p95", "max", "lost", "lost p95")
		}
	}
	head = append(head, "incidents changed", "")
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	rows := r.Points
	if !slices.Contains(rows, r.InForce) {
		rows = append(rows[:len(rows):len(rows)], r.InForce)
	}
	var frontier []string
	for _, p := range rows {
		var cells []string
		for k, a := range r.Grid.Axes {
			cells = append(cells, a.Format(p.Values[k]))
		}
		if b := p.Benign; b != nil {
			cells = append(cells, fmt.Sprintf("%d (%.2f%%)", b.FalseFailovers, 100*b.Rate))
		} else if trade {
			cells = append(cells, "-")
		}
		if f := p.Fatal; f != nil {
			cells = append(cells, secs(f.P50), secs(f.P95), secs(f.Max), strconv.Itoa(f.Missed))
		} else if trade {
			cells = append(cells, "-", "-", "-", "-")
		}
		if work != "" && trade {
			cells = append(cells, clientCells(p)...)
		}
		if part {
			if s := p.Partition; s != nil {
				d := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) + "s" }
				cells = append(cells, fmt.Sprintf("%d (%.2f%%)", s.SplitBrain, 100*s.Share), d(s.SplitBrainP50), d(s.SplitBrainP95), d(s.SplitBrainMax),
					d(s.NoWriterP50), d(s.NoWriterP95), d(s.NoWriterMax), strconv.Itoa(s.NoWriterAtEnd))
			} else {
				cells = append(cells, "-", "-", "-", "-", "-", "-", "-", "-")
			}
			if work != "" {
				cells = append(cells, partitionClientCells(p)...)
			}
		}
		n := 0
		for _, inc := range p.Incidents {
			if inc.Changed {
				n++
			}
		}
		cells = append(cells, strconv.Itoa(n))
		var marks []string
		if p.InForce {
			marks = append(marks, "in force")
		}
		if p.Pareto {
			marks = append(marks, "frontier")
			var v []string
			for k, a := range r.Grid.Axes {
				v = append(v, a.Format(p.Values[k]))
			}
			frontier = append(frontier, strings.Join(v, ","))
		}
		cells = append(cells, strings.Join(marks, ", "))
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
	for _, line := range strings.SplitAfter(table.String(), "\n") {
		fmt.Fprint(w, strings.TrimRight(line, " \n")+strings.Repeat("\n", strings.Count(line, "\n")))
	}
	if len(frontier) > 0 {
		fmt.Fprintf(w, "\nPareto frontier: %s\n", strings.Join(frontier, " "))
	}
	for _, inc := range r.InForce.Incidents {
		var changed []string
		for _, p := range r.Points {
			for _, pi := range p.Incidents {
				if pi.File == inc.File && pi.Changed {
					var v []string
					for k, a := range r.Grid.Axes {
						v = append(v, a.Format(p.Values[k]))
					}
					changed = append(changed, strings.Join(v, ","))
				}
			}
		}
		switch {
		case len(changed) == 0:
			fmt.Fprintf(w, "%s: %s everywhere\n", inc.File, inc.Outcome)
		case len(changed) > 12:
			fmt.Fprintf(w, "%s: %s in force; changes at %d of %d settings (sweep.csv, incidents_changed)\n", inc.File, inc.Outcome, len(changed), len(r.Points))
		default:
			fmt.Fprintf(w, "%s: %s in force; changes at %s\n", inc.File, inc.Outcome, strings.Join(changed, " "))
		}
	}
	return nil
}

func secs(s *float64) string {
	if s == nil {
		return "never"
	}
	return strconv.FormatFloat(*s, 'f', -1, 64) + "s"
}

// clientCells are a point's cells of the client's view: the unavailable time's p95 and the
// writes lost on benign traces, the unavailable time's p50, p95 and max, the writes lost and
// their p95 a replay on fatal ones.
func clientCells(p *Point) []string {
	d := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) + "s" }
	out := []string{"-", "-", "-", "-", "-", "-", "-"}
	if p.Benign != nil && p.Benign.Client != nil {
		c := p.Benign.Client
		out[0], out[1] = d(c.UnavailableP95), strconv.FormatInt(c.Lost, 10)
	}
	if p.Fatal != nil && p.Fatal.Client != nil {
		c := p.Fatal.Client
		out[2], out[3], out[4] = d(c.UnavailableP50), d(c.UnavailableP95), d(c.UnavailableMax)
		out[5], out[6] = strconv.FormatInt(c.Lost, 10), strconv.FormatInt(c.LostP95, 10)
	}
	return out
}

// partitionClientCells are a point's cells of the client's view on partition traces: the
// unavailable time's p50, p95 and max, the writes lost and their p95 a replay.
func partitionClientCells(p *Point) []string {
	if p.Partition == nil || p.Partition.Client == nil {
		return []string{"-", "-", "-", "-", "-"}
	}
	d := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) + "s" }
	c := p.Partition.Client
	return []string{d(c.UnavailableP50), d(c.UnavailableP95), d(c.UnavailableMax), strconv.FormatInt(c.Lost, 10), strconv.FormatInt(c.LostP95, 10)}
}
