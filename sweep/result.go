package sweep

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strconv"
	"strings"
)

// Result is a whole run: every point of the grid, and the point in force.
type Result struct {
	Run         Identity
	Grid        Grid
	FatalFaults []string // the faults the fatal traces drew from
	Points      []*Point // in grid order
	InForce     *Point   // the statemap and checker in force: one of Points, or a point of its own

	replays int // the replays Run took
}

// Point is what the traces and incidents said at one setting.
type Point struct {
	Values    []int64 // one per axis
	InForce   bool    // the statemap and checker in force
	Pareto    bool    // on the frontier of the trade (see pareto)
	Benign    *BenignStats
	Fatal     *FatalStats
	Partition *PartitionStats
	Incidents []IncidentResult
}

// IncidentResult is an incident's verdict at a point.
type IncidentResult struct {
	File               string `json:"file"`
	Outcome            string `json:"outcome"`      // "failover of db1 to db2", "db1 failed, no replica eligible", "no failover"
	At                 string `json:"at,omitempty"` // the clock time of the outcome
	ExpectationsFailed int    `json:"expectations_failed"`
	Changed            bool   `json:"changed"` // the outcome or an expectation's verdict differs from the incident's under its statemap in force
}

// ResultKind is the "kind" of sweep.json.
const ResultKind = "failsim-sweep"

type axisJSON struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

type pointJSON struct {
	Setting   map[string]string `json:"setting"`
	InForce   bool              `json:"in_force"`
	Pareto    bool              `json:"pareto"`
	Benign    *BenignStats      `json:"benign,omitempty"`
	Fatal     *FatalStats       `json:"fatal,omitempty"`
	Partition *PartitionStats   `json:"partition,omitempty"`
	Incidents []IncidentResult  `json:"incidents,omitempty"`
}

type resultJSON struct {
	Kind        string      `json:"kind"`
	Run         Identity    `json:"run"`
	Axes        []axisJSON  `json:"axes"`
	FatalFaults []string    `json:"fatal_faults"`
	InForce     pointJSON   `json:"in_force"`
	Points      []pointJSON `json:"points"`
}

func (r *Result) pointJSON(p *Point) pointJSON {
	set := map[string]string{}
	for k, a := range r.Grid.Axes {
		set[a.Name] = a.Format(p.Values[k])
	}
	return pointJSON{Setting: set, InForce: p.InForce, Pareto: p.Pareto, Benign: p.Benign, Fatal: p.Fatal, Partition: p.Partition, Incidents: p.Incidents}
}

// JSON is sweep.json: the run, the axes, and every point.
func (r *Result) JSON() []byte {
	doc := resultJSON{Kind: ResultKind, Run: r.Run, FatalFaults: r.FatalFaults, InForce: r.pointJSON(r.InForce)}
	if doc.FatalFaults == nil {
		doc.FatalFaults = []string{}
	}
	for _, a := range r.Grid.Axes {
		aj := axisJSON{Name: a.Name}
		for _, v := range a.Values {
			aj.Values = append(aj.Values, a.Format(v))
		}
		doc.Axes = append(doc.Axes, aj)
	}
	for _, p := range r.Points {
		doc.Points = append(doc.Points, r.pointJSON(p))
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic("sweep: a result does not encode: " + err.Error())
	}
	return append(b, '\n')
}

// CSV is sweep.csv: a row per point of the grid, and one more for the point in force when it
// is none of them. A figure that was not measured, or is a miss, is empty.
func (r *Result) CSV() []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	var head []string
	for _, a := range r.Grid.Axes {
		head = append(head, a.Name)
	}
	head = append(head, "in_force", "pareto", "benign_traces", "false_failovers", "false_failover_rate",
		"fatal_traces", "fenced", "fenced_early", "missed", "detect_p50_s", "detect_p95_s", "detect_max_s", "incidents_changed")
	workload := r.Run.Workload != ""
	if workload {
		for _, f := range []string{"benign", "fatal"} {
			head = append(head, f+"_unavailable_p50_s", f+"_unavailable_p95_s", f+"_unavailable_max_s", f+"_lost", f+"_lost_p95")
		}
	}
	part := r.Run.PartitionTraces > 0
	if part {
		head = append(head, "partition_traces", "split_brain_traces", "split_brain_share", "split_brain_p50_s", "split_brain_p95_s", "split_brain_max_s", "split_brain_total_s",
			"no_writer_p50_s", "no_writer_p95_s", "no_writer_max_s", "no_writer_at_end")
		if workload {
			head = append(head, "partition_unavailable_p50_s", "partition_unavailable_p95_s", "partition_unavailable_max_s", "partition_lost", "partition_lost_p95")
		}
	}
	w.Write(head)
	rows := r.Points
	if !r.InForce.inGrid(r) {
		rows = append(rows[:len(rows):len(rows)], r.InForce)
	}
	for _, p := range rows {
		var row []string
		for k, a := range r.Grid.Axes {
			row = append(row, a.Format(p.Values[k]))
		}
		row = append(row, strconv.FormatBool(p.InForce), strconv.FormatBool(p.Pareto))
		if s := p.Benign; s != nil {
			row = append(row, strconv.Itoa(s.Traces), strconv.Itoa(s.FalseFailovers), strconv.FormatFloat(s.Rate, 'f', -1, 64))
		} else {
			row = append(row, "", "", "")
		}
		if s := p.Fatal; s != nil {
			row = append(row, strconv.Itoa(s.Traces), strconv.Itoa(s.Fenced), strconv.Itoa(s.Early), strconv.Itoa(s.Missed),
				seconds(s.P50), seconds(s.P95), seconds(s.Max))
		} else {
			row = append(row, "", "", "", "", "", "", "")
		}
		var changed []string
		for _, inc := range p.Incidents {
			if inc.Changed {
				changed = append(changed, inc.File)
			}
		}
		row = append(row, strings.Join(changed, " "))
		if workload {
			var b, f *ClientStats
			if p.Benign != nil {
				b = p.Benign.Client
			}
			if p.Fatal != nil {
				f = p.Fatal.Client
			}
			row = append(row, b.cells()...)
			row = append(row, f.cells()...)
		}
		if part {
			row = append(row, p.Partition.cells()...)
			if workload {
				var c *ClientStats
				if p.Partition != nil {
					c = p.Partition.Client
				}
				row = append(row, c.cells()...)
			}
		}
		w.Write(row)
	}
	w.Flush()
	return b.Bytes()
}

// inGrid reports whether p is one of r's grid points.
func (p *Point) inGrid(r *Result) bool {
	for _, q := range r.Points {
		if q == p {
			return true
		}
	}
	return false
}

func seconds(s *float64) string {
	if s == nil {
		return ""
	}
	return strconv.FormatFloat(*s, 'f', -1, 64)
}

// cells are the CSV's eleven cells of the partition family; empty when it was not measured.
func (s *PartitionStats) cells() []string {
	if s == nil {
		return []string{"", "", "", "", "", "", "", "", "", "", ""}
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	return []string{strconv.Itoa(s.Traces), strconv.Itoa(s.SplitBrain), f(s.Share), f(s.SplitBrainP50), f(s.SplitBrainP95), f(s.SplitBrainMax), f(s.SplitBrainTotal),
		f(s.NoWriterP50), f(s.NoWriterP95), f(s.NoWriterMax), strconv.Itoa(s.NoWriterAtEnd)}
}

// cells are the CSV's five cells of a family's client view; empty when it was not measured.
func (c *ClientStats) cells() []string {
	if c == nil {
		return []string{"", "", "", "", ""}
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	return []string{f(c.UnavailableP50), f(c.UnavailableP95), f(c.UnavailableMax), strconv.FormatInt(c.Lost, 10), strconv.FormatInt(c.LostP95, 10)}
}
