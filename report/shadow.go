package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/failsim/failsim/shadow"
	"github.com/failsim/failsim/timeline"
)

// shadowsJSON is the object a JSON replay with shadows writes after its summary.
type shadowsJSON struct {
	Shadows []shadowJSON `json:"shadows"`
}

// shadowJSON is one shadow and its divergences.
type shadowJSON struct {
	Name        string           `json:"name"`
	File        string           `json:"file"`
	Decisions   int              `json:"decisions"`
	Divergences []divergenceJSON `json:"divergences"`
}

// divergenceJSON is one divergence.
type divergenceJSON struct {
	T         float64 `json:"t"`
	Time      string  `json:"time"`
	Side      string  `json:"side"`
	Kind      string  `json:"kind"`
	Node      string  `json:"node"`
	To        string  `json:"to,omitempty"`
	Condition string  `json:"condition"`
	Cause     string  `json:"cause"`
	Text      string  `json:"text"`
}

// WriteShadows writes, after a run's summary, each shadow's divergences (those tally holds,
// specs in the order given; start is the clock time of t=0 and names the nodes' names, as for
// NewPrinter). In text, a paragraph: a "shadow NAME (FILE): N divergences" line for each
// shadow, then each divergence indented, its clock time first. In JSON, one object
// {"shadows": [...]}, after the summary object: the summary stays what a run without shadows
// writes.
func WriteShadows(w io.Writer, f Format, start time.Time, names []string, specs []shadow.Spec, tally *shadow.Tally) error {
	b := bufio.NewWriter(w)
	if f == JSON {
		out := shadowsJSON{Shadows: []shadowJSON{}}
		for i, s := range specs {
			sj := shadowJSON{Name: s.Name, File: s.File, Decisions: tally.Decisions[i], Divergences: []divergenceJSON{}}
			for _, d := range tally.Of(s.Name) {
				dj := divergenceJSON{T: d.At.Seconds(), Time: timeline.Clock(start, d.At), Side: d.Side.String(), Kind: d.Kind.String(),
					Node: names[d.Node], Condition: d.Condition.String(), Cause: d.Cause(), Text: d.Describe(names)}
				if d.To >= 0 {
					dj.To = names[d.To]
				}
				sj.Divergences = append(sj.Divergences, dj)
			}
			out.Shadows = append(out.Shadows, sj)
		}
		data, err := json.Marshal(out)
		if err != nil {
			return err
		}
		b.Write(data)
		b.WriteByte('\n')
		return b.Flush()
	}
	b.WriteString("\n")
	for i, s := range specs {
		ds := tally.Of(s.Name)
		file := s.File
		if file == "" {
			file = "the shipped defaults"
		}
		fmt.Fprintf(b, "shadow %s (%s): %s, %s\n", s.Name, file, count(len(ds), "divergence"), count(tally.Decisions[i], "decision"))
		for _, d := range ds {
			fmt.Fprintf(b, "  %s %s\n", timeline.Clock(start, d.At), d.Describe(names))
		}
	}
	return b.Flush()
}

// count is "no divergence" for 0, else plural's "1 divergence", "2 divergences".
func count(n int, word string) string {
	if n == 0 {
		return "no " + word
	}
	return plural(n, word)
}
