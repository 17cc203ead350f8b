package sim

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/narrate"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// Format is an output format of replay.
type Format uint8

// The output formats.
const (
	Text Format = iota // one line per change, clock time first
	JSON               // one JSON object per event, then a summary object
)

// Printer is an observer that writes each event as it happens. Call Summary once the replay
// has ended. Errors writing are kept and returned by Summary.
type Printer struct {
	w      *bufio.Writer
	format Format
	start  time.Time
	names  []string
	err    error
}

// NewPrinter returns a printer of events in format f to w; start is the clock time of t=0 and
// names are the nodes' names in cluster order (Timeline.Names), which the events' node indices
// stand for.
func NewPrinter(w io.Writer, f Format, start time.Time, names []string) *Printer {
	return &Printer{w: bufio.NewWriter(w), format: f, start: start, names: names}
}

// Instant implements Observer.
func (p *Printer) Instant(time.Duration, *fence.Engine) {}

// Event implements Observer.
func (p *Printer) Event(ev fence.Event) {
	if p.err != nil {
		return
	}
	if p.format == JSON {
		p.json(narrate.JSON(p.start, p.names, ev))
		return
	}
	_, p.err = fmt.Fprintf(p.w, "%s %s\n", narrate.Clock(p.start, ev.When()), narrate.Describe(p.names, ev))
}

// Flush writes out the events buffered so far, for a live run that prints as it goes.
func (p *Printer) Flush() error {
	if p.err != nil {
		return p.err
	}
	return p.w.Flush()
}

func (p *Printer) json(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		p.err = err
		return
	}
	p.w.Write(b)
	_, p.err = p.w.Write([]byte{'\n'})
}

type failoverJSON struct {
	T         float64 `json:"t"`
	Time      string  `json:"time"`
	From      string  `json:"from"`
	To        string  `json:"to,omitempty"`
	Condition string  `json:"condition"`
}

type summaryJSON struct {
	Summary struct {
		File         string          `json:"file"`
		Failover     bool            `json:"failover"`
		Failovers    []failoverJSON  `json:"failovers"`
		NoCandidate  []failoverJSON  `json:"no_candidate,omitempty"`
		Verdict      []string        `json:"verdict"`
		Expectations []expect.Result `json:"expectations"`
		Held         int             `json:"held"`
		Failed       int             `json:"failed"`
	} `json:"summary"`
}

// Summary writes the verdict and the expectations' results after the events, and flushes.
func (p *Printer) Summary(file string, r *Report, results []expect.Result) error {
	held := 0
	for _, x := range results {
		if x.Held {
			held++
		}
	}
	if p.format == JSON {
		var s summaryJSON
		s.Summary.File = file
		s.Summary.Failover = r.FailedOver()
		s.Summary.Failovers = []failoverJSON{}
		for _, ev := range r.Failovers() {
			s.Summary.Failovers = append(s.Summary.Failovers, failoverJSON{T: ev.At.Seconds(), Time: narrate.Clock(p.start, ev.At), From: p.names[ev.Node], To: p.names[ev.To], Condition: ev.Condition.String()})
		}
		for _, ev := range r.NoCandidates() {
			s.Summary.NoCandidate = append(s.Summary.NoCandidate, failoverJSON{T: ev.At.Seconds(), Time: narrate.Clock(p.start, ev.At), From: p.names[ev.Node], Condition: ev.Condition.String()})
		}
		s.Summary.Verdict = r.Verdict()
		s.Summary.Expectations = results
		s.Summary.Held, s.Summary.Failed = held, len(results)-held
		p.json(s)
	} else if p.err == nil {
		fmt.Fprintf(p.w, "\nverdict: ")
		for _, l := range r.Verdict() {
			fmt.Fprintln(p.w, l)
		}
		if len(results) > 0 {
			fmt.Fprintf(p.w, "\nexpectations: %d held, %d failed\n", held, len(results)-held)
			for _, x := range results {
				if x.Held {
					fmt.Fprintf(p.w, "  held    %s:%d: %s\n", file, x.Line, x.Text)
				} else {
					fmt.Fprintf(p.w, "  FAILED  %s:%d: %s: %s\n", file, x.Line, x.Text, x.Why)
				}
			}
		}
	}
	if p.err != nil {
		return p.err
	}
	return p.w.Flush()
}

// Run is failsim replay: it replays tl under m, writes every event and then the verdict and the
// expectations' results to w in format f, and returns those results in timeline order. When ctx
// is done first it stops, writes the events so far and no verdict, and returns ctx's error.
func Run(ctx context.Context, w io.Writer, f Format, tl *timeline.Timeline, m *statemap.Map) ([]expect.Result, error) {
	report := NewReport(tl, m)
	printer := NewPrinter(w, f, tl.Start, tl.Names())
	expects := expect.NewSet(tl, m) // fresh observers: a parsed timeline may be replayed again
	if _, err := ReplayContext(ctx, tl, m, printer, report, expects); err != nil {
		printer.Flush()
		return nil, err
	}
	results := expects.Results()
	return results, printer.Summary(tl.File, report, results)
}
