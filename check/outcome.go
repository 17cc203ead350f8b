package check

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/failsim/failsim/property"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// Flags are the flags of a failsim check run that decide what it finds and what it prints:
// two shares belong to one run when theirs are equal. The number of workers, the output
// format and the JUnit file are not among them: they change neither.
type Flags struct {
	Statemap   string   `json:"statemap"`           // --statemap as given; "" for the shipped defaults
	Family     string   `json:"family"`             // --family: benign, fatal, mixed or all
	Properties []string `json:"properties"`         // each --property as given; none for every one that applies
	Traces     int      `json:"traces"`             // --traces: per family
	Seed       uint64   `json:"seed"`               // --seed
	Out        string   `json:"out"`                // --out: where the counterexamples are written
	Nodes      int      `json:"nodes"`              // --nodes
	Length     string   `json:"length"`             // --length, as time.Duration writes it: "1h0m0s"
	Workload   string   `json:"workload,omitempty"` // --workload as given; "" for none
}

// Outcome is what a run found on one family of traces, in the form a run prints it, a shard
// writes it to its share, and failsim merge adds shares up.
type Outcome struct {
	Family     string            `json:"family"`     // the family's name
	Traces     int               `json:"traces"`     // the traces generated and judged
	Properties []PropertyOutcome `json:"properties"` // in the order they were checked
}

// PropertyOutcome is one property's verdict on a family's traces.
type PropertyOutcome struct {
	Property string `json:"property"` // as an expect line states it: "detects-death-within 30s"
	Traces   int    `json:"traces"`   // the traces it judged: every one of the family's
	Violated int    `json:"violated"` // of those, the traces that violated it; 0 when it held
	// Counterexample is the violating trace of the lowest index, shrunk; nil when it held.
	Counterexample *Counterexample `json:"counterexample,omitempty"`
}

// Counterexample is a property's first violating trace, as generated and shrunk.
type Counterexample struct {
	Trace     int    `json:"trace"`      // the trace's index in the run
	Why       string `json:"why"`        // the property's verdict on the trace as generated
	Events    int    `json:"events"`     // the events of the trace as generated, its replication events included (Events)
	Nodes     int    `json:"nodes"`      // the nodes of the trace as generated
	Replays   int    `json:"replays"`    // the replays shrinking took
	ShrunkWhy string `json:"shrunk_why"` // the property's verdict on the shrunk trace
	// Timeline is the shrunk trace as timeline text, its expect property line included; the
	// file written to --out adds a header and the statemap statement.
	Timeline string `json:"timeline"`
	// File is the path the counterexample was written to, in a run's output; a share, which
	// writes none, leaves it out.
	File string `json:"file,omitempty"`

	shrunk *timeline.Timeline // Timeline parsed, once it has been
}

// NewOutcome returns what res, a run of family f, found.
func NewOutcome(f Family, res *Result) Outcome {
	o := Outcome{Family: f.String(), Traces: res.Traces}
	for k, p := range res.Properties {
		po := PropertyOutcome{Property: p.String(), Traces: res.Traces, Violated: res.Violated[k]}
		for _, v := range res.Violations {
			if v.Property == p {
				c := &Counterexample{Trace: v.Trace, Why: v.Why, Events: Events(v.Original), Nodes: len(v.Original.Nodes),
					Replays: v.Replays, ShrunkWhy: v.ShrunkWhy, Timeline: string(Timeline(v.Shrunk, nil, "", v.Property))}
				// What is printed and written is the text read back, as merge reads it from a
				// share: one path for a run and a merge.
				if _, err := c.Shrunk("counterexample"); err != nil {
					panic("check: a shrunk trace does not parse back: " + err.Error())
				}
				po.Counterexample = c
			}
		}
		o.Properties = append(o.Properties, po)
	}
	return o
}

// Events is how many events trace tl has, as its timeline text writes them: its events and its
// replication events (lags, links, replicators), not its end.
func Events(tl *timeline.Timeline) int { return len(tl.Events) + replCount(tl) }

// Spec reads the property back.
func (p *PropertyOutcome) Spec() (property.Spec, error) {
	name, arg, _ := strings.Cut(p.Property, " ")
	var args []string
	if arg != "" {
		args = []string{arg}
	}
	return property.NewSpec(name, args)
}

// Shrunk returns the shrunk trace, parsed from Timeline (the first call parses it, naming it name
// in errors), as generated traces are: its end in End, not among its events.
func (c *Counterexample) Shrunk(name string) (*timeline.Timeline, error) {
	if c.shrunk == nil {
		tl, err := timeline.Parse(name, []byte(c.Timeline))
		if err != nil {
			return nil, err
		}
		tl.Events = slices.DeleteFunc(tl.Events, func(ev timeline.Event) bool { return ev.Kind == timeline.End })
		c.shrunk = tl
	}
	return c.shrunk, nil
}

// FileName is the name of the counterexample file of property s's first violating trace, trace,
// in a run with seed.
func FileName(s property.Spec, seed uint64, trace int) string {
	return fmt.Sprintf("check-%s-seed%d-trace%d.timeline", s.Name, seed, trace)
}

// Digest is a SHA-256 of m's rules, condition by condition, in hex: two statemaps with the same
// digest decide alike, whatever their files' comments, order or layering.
func Digest(m *statemap.Map) string {
	h := sha256.New()
	for _, c := range statemap.Conditions() {
		r := m.Rule(c)
		fmt.Fprintf(h, "%s %s %d %s\n", c, r.State, r.Threshold, r.Action)
	}
	return hex.EncodeToString(h.Sum(nil))
}
