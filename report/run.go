package report

import (
	"io"

	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// Log is the event log a run is told in: an observer that writes each event as it happens,
// then, once the run has ended, its summary. *Printer is one; a live command wraps one to write
// each line out at once.
type Log interface {
	drive.Observer
	// Flush writes out the events logged so far: all that a run stopped before its end writes.
	Flush() error
	// Summary writes report r's verdict and the expectations' results (those of timeline
	// file) after the events, and flushes (Printer.Summary).
	Summary(file string, r *Report, results []expect.Result) error
}

// Run is one replay with its reports: the event log, the verdict (a Report), the expectations
// (an expect.Set) and any other observers of the same run. Give Observers to the replay; once
// it has ended, Summary tells the verdict and the expectations' results. A Run watches one
// replay: make a new one for each (a parsed timeline may be replayed again).
type Run struct {
	tl        *timeline.Timeline
	log       Log // nil: none, the run is told nothing as it goes and no summary
	verdict   *Report
	expects   *expect.Set
	observers []drive.Observer
}

// NewRun returns the reports of one replay of tl under m: log (nil for none), told every event
// and then the summary; the verdict; tl's expectations; and then others (a picture's recorder,
// a second log), told every event in that order and nothing at the end.
func NewRun(tl *timeline.Timeline, m *statemap.Map, log Log, others ...drive.Observer) *Run {
	r := &Run{tl: tl, log: log, verdict: New(tl, m), expects: expect.NewSet(tl, m)}
	if log != nil {
		r.observers = append(r.observers, log)
	}
	r.observers = append(r.observers, r.verdict, r.expects)
	r.observers = append(r.observers, others...)
	return r
}

// Observers returns the observers the replay tells: the log, the verdict, the expectations,
// then the others, in that order.
func (r *Run) Observers() []drive.Observer { return r.observers }

// Verdict returns the run's verdict.
func (r *Run) Verdict() *Report { return r.verdict }

// Results returns the verdict of every expectation of the timeline, in timeline order; an empty
// slice when it states none.
func (r *Run) Results() []expect.Result { return r.expects.Results() }

// Held reports whether every expectation held; true when the timeline states none.
func (r *Run) Held() bool {
	for _, x := range r.Results() {
		if !x.Held {
			return false
		}
	}
	return true
}

// Summary writes, once the replay has ended, the verdict and the expectations' results to the
// log and flushes it (with no log, it writes nothing); it returns the results in timeline
// order, and the log's first error.
func (r *Run) Summary() ([]expect.Result, error) {
	results := r.Results()
	if r.log == nil {
		return results, nil
	}
	return results, r.log.Summary(r.tl.File, r.verdict, results)
}

// Flush writes out the events logged so far, for a replay stopped before its end: such a run
// has no verdict. It returns the log's first error.
func (r *Run) Flush() error {
	if r.log == nil {
		return nil
	}
	return r.log.Flush()
}

// WriteSummary writes the summary to w in format f, as Summary writes it to the log: for a page
// that shows the event log and the summary apart.
func (r *Run) WriteSummary(w io.Writer, f Format) error {
	return NewPrinter(w, f, r.tl.Start, r.tl.Names()).Summary(r.tl.File, r.verdict, r.Results())
}
