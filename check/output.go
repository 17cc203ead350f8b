package check

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// ReportKind is the "kind" of the JSON document failsim check --format json prints.
const ReportKind = "failsim-check"

// Report is everything a run found, as failsim check --format json prints it, and as failsim
// merge prints it from the shares of a run's shards.
type Report struct {
	Kind     string    `json:"kind"`            // ReportKind
	Flags    Flags     `json:"flags"`           // the run's
	Statemap string    `json:"statemap_sha256"` // Digest of the statemap checked
	Families []Outcome `json:"families"`        // in the order they were checked
	Checked  int       `json:"checked"`         // properties checked, summed over the families
	Violated int       `json:"violated"`        // of those, the properties violated
	Exit     int       `json:"exit"`            // the exit status: 0 every property held, 1 one was violated
}

// NewReport sums up a run's outcomes.
func NewReport(flags Flags, digest string, outcomes []Outcome) *Report {
	r := &Report{Kind: ReportKind, Flags: flags, Statemap: digest, Families: outcomes}
	for _, o := range outcomes {
		for _, p := range o.Properties {
			r.Checked++
			if p.Violated > 0 {
				r.Violated++
			}
		}
	}
	if r.Violated > 0 {
		r.Exit = 1
	}
	return r
}

// JSON writes r as indented JSON, ending in a newline.
func (r *Report) JSON() []byte {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		panic("check: a report does not marshal: " + err.Error())
	}
	return append(b, '\n')
}

// Header is the first line of a run's text output.
func (f Flags) Header() string {
	sm := "the shipped defaults"
	if f.Statemap != "" {
		sm = f.Statemap
	}
	if f.Workload != "" {
		return fmt.Sprintf("failsim check: statemap %s, seed %d, %d traces per family, %d nodes, %s each, workload %s\n", sm, f.Seed, f.Traces, f.Nodes, f.Length, f.Workload)
	}
	return fmt.Sprintf("failsim check: statemap %s, seed %d, %d traces per family, %d nodes, %s each\n", sm, f.Seed, f.Traces, f.Nodes, f.Length)
}

// WriteText writes one family's part of a run's text output: the properties that held on every
// trace, then each violated one with its counterexample. A counterexample's File must be set.
func (o *Outcome) WriteText(w io.Writer) {
	var held []string
	for _, p := range o.Properties {
		if p.Violated == 0 {
			held = append(held, p.Property)
		}
	}
	fmt.Fprintf(w, "\n%s:\n", o.Family)
	if len(held) > 0 {
		fmt.Fprintf(w, "  held on every one of %d traces: %s\n", o.Traces, strings.Join(held, ", "))
	}
	for _, p := range o.Properties {
		if p.Counterexample != nil {
			io.WriteString(w, p.violatedText())
			fmt.Fprintf(w, "  counterexample: %s\n  reproduce: failsim replay %s\n", p.Counterexample.File, p.Counterexample.File)
		}
	}
}

// violatedText says that p was violated, where first, and what its shrunk trace is.
func (p *PropertyOutcome) violatedText() string {
	c := p.Counterexample
	s, err := c.Shrunk("counterexample")
	if err != nil {
		panic("check: a counterexample that was checked does not parse: " + err.Error())
	}
	return fmt.Sprintf("  VIOLATED %s in %d of %d traces, first in trace %d:\n    %s\n", p.Property, p.Violated, p.Traces, c.Trace, c.Why) +
		fmt.Sprintf("  shrunk in %d replays to %s on %s over %s:\n    %s\n", c.Replays, Plural(Events(s), "event"), Plural(len(s.Nodes), "node"), s.End, c.ShrunkWhy)
}

// Tail is the last line of a run's text output, after an empty line.
func (r *Report) Tail() string {
	if r.Violated > 0 {
		return fmt.Sprintf("\n%d of %d properties violated\n", r.Violated, r.Checked)
	}
	return fmt.Sprintf("\nall %d properties held\n", r.Checked)
}

// Plural writes n and word, with an s when n is not 1: "1 event", "3 nodes".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// The JUnit XML of a run: one test suite per family, one test case per property.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string          `xml:"name,attr"`
		Tests      int             `xml:"tests,attr"`
		Failures   int             `xml:"failures,attr"`
		Properties []junitProperty `xml:"properties>property"`
		Cases      []junitCase     `xml:"testcase"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Failure   *junitFailure `xml:"failure"`
	}
	junitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",cdata"`
	}
)

// JUnit writes r as JUnit XML for a CI system to show: a test suite per family, a test case per
// property, failed with its counterexample when violated. No times: the same run gives the same
// bytes.
func (r *Report) JUnit() []byte {
	doc := junitSuites{Name: "failsim check", Tests: r.Checked, Failures: r.Violated}
	for _, o := range r.Families {
		s := junitSuite{Name: o.Family, Tests: len(o.Properties)}
		props := strings.Join(r.Flags.Properties, " ")
		if props == "" {
			props = "every one that applies"
		}
		statemap := r.Flags.Statemap
		if statemap == "" {
			statemap = "the shipped defaults"
		}
		s.Properties = []junitProperty{{"statemap", statemap}, {"statemap_sha256", r.Statemap}, {"seed", fmt.Sprint(r.Flags.Seed)},
			{"traces", fmt.Sprint(o.Traces)}, {"nodes", fmt.Sprint(r.Flags.Nodes)}, {"length", r.Flags.Length}, {"properties", props}}
		for _, p := range o.Properties {
			c := junitCase{Name: p.Property, Classname: "failsim.check." + o.Family}
			if ce := p.Counterexample; ce != nil {
				s.Failures++
				text := p.violatedText()
				if ce.File != "" {
					text += fmt.Sprintf("  counterexample: %s\n  reproduce: failsim replay %s\n", ce.File, ce.File)
				}
				c.Failure = &junitFailure{
					Message: fmt.Sprintf("violated in %d of %d traces, first in trace %d: %s", p.Violated, p.Traces, ce.Trace, ce.Why),
					Type:    "violated",
					Text:    "\n" + text + "\n" + ce.Timeline,
				}
			}
			s.Cases = append(s.Cases, c)
		}
		doc.Suites = append(doc.Suites, s)
	}
	b, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic("check: a JUnit report does not marshal: " + err.Error())
	}
	return append(append([]byte(xml.Header), b...), '\n')
}
