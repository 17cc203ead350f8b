package report

import (
	"bufio"
	"encoding/json"
	"io"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/narrate"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/timeline"
)

// Format is the output format of an event log and its summary.
type Format uint8

// The output formats.
const (
	Text Format = iota // one line per change, clock time first
	JSON               // one JSON object per event, then a summary object
)

// Printer is an observer that writes the event log: each event as it happens, a line of text
// (its clock time and narrate.Describe's words) or a JSON object (narrate.JSON). Call Summary
// once the run has ended. The first error writing is kept, stops the writing, and is returned by
// Flush and Summary.
type Printer struct {
	w      *bufio.Writer
	format Format
	start  time.Time
	names  []string
	line   []byte // a text line, reused
	err    error
}

// NewPrinter returns a printer of events in format f to w; start is the clock time of t=0 and
// names are the nodes' names in cluster order (timeline.Timeline.Names), which the events' node
// indices stand for.
func NewPrinter(w io.Writer, f Format, start time.Time, names []string) *Printer {
	return &Printer{w: bufio.NewWriter(w), format: f, start: start, names: names}
}

// Event implements drive.Observer.
func (p *Printer) Event(ev act.Event) {
	if _, final := ev.(*repl.Final); p.err != nil || final {
		return // the replication summary is the verdict's, not the log's
	}
	if _, note := ev.(*cluster.GroupState); note {
		return // a note of how the group stands, no line of the log
	}
	if p.format == JSON {
		p.json(narrate.JSON(p.start, p.names, ev))
		return
	}
	p.line = append(timeline.AppendClock(p.line[:0], p.start, ev.When()), ' ')
	p.line = append(narrate.AppendDescribe(p.line, p.names, ev), '\n')
	_, p.err = p.w.Write(p.line)
}

// Flush writes out the events buffered so far, for a live run that prints as it goes.
func (p *Printer) Flush() error {
	if p.err != nil {
		return p.err
	}
	return p.w.Flush()
}

// json writes v as one line of JSON.
func (p *Printer) json(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		p.err = err
		return
	}
	p.w.Write(b)
	_, p.err = p.w.Write([]byte{'\n'})
}
