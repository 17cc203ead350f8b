package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/failsim/failsim/faultmodel"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
	"github.com/failsim/failsim/timing"
)

// The JSON forms of the tables failsim statemap, faults and timing print with --format json:
// one object with the settings and an array of rows, one row to a line (docs/timing.md).

// seconds is a duration as a JSON number of seconds.
type seconds float64

func secs(d time.Duration) seconds { return seconds(d.Seconds()) }

// spanJSON is a timing.Span, or a rule's window of sustained failure: null when never.
type spanJSON struct {
	Earliest seconds `json:"earliest_s"`
	Latest   seconds `json:"latest_s"`
}

func spanOf(s timing.Span) *spanJSON {
	if s.Never() {
		return nil
	}
	return &spanJSON{Earliest: secs(s.Earliest), Latest: secs(s.Latest)}
}

// ruleJSON is one row of failsim statemap --format json.
type ruleJSON struct {
	Condition string    `json:"condition"`
	State     string    `json:"state"`
	Threshold int       `json:"threshold"`
	Expires   *spanJSON `json:"expires_after"` // the window of sustained failure; null: never
	Action    string    `json:"action"`
	Source    string    `json:"source"`
	Effect    string    `json:"effect"`
}

// faultJSON is one row of failsim faults --format json, and the start of one of failsim timing's.
type faultJSON struct {
	Fault     string  `json:"fault"`
	What      string  `json:"what"`
	Condition string  `json:"condition"`
	After     seconds `json:"after_s"` // the probe's duration: 0 at once
	State     string  `json:"state"`
	Threshold int     `json:"threshold"`
	Action    string  `json:"action"`
	Effect    string  `json:"effect"`
}

func faultRow(r faultmodel.Row) faultJSON {
	return faultJSON{
		Fault: r.Fault.String(), What: r.What, Condition: r.Outcome.Condition.String(), After: secs(r.Outcome.Took),
		State: r.State.String(), Threshold: r.Rule.Threshold, Action: r.Rule.Action.String(), Effect: r.Effect,
	}
}

// timingJSON is one row of failsim timing --format json.
type timingJSON struct {
	faultJSON
	StateChange *spanJSON `json:"state_change"`
	Alarm       *spanJSON `json:"alarm"`
	Fence       *spanJSON `json:"fence"`
}

// writeTable writes one JSON object: the fields of head (a struct), then key's array of rows,
// one row to a line.
func writeTable[R any](w io.Writer, head any, key string, rows []R) error {
	h, err := json.Marshal(head)
	if err != nil {
		return err
	}
	if len(h) > 2 {
		h = append(h[:len(h)-1], ',') // "{...," : the head's fields, then the rows
	} else {
		h = h[:1]
	}
	if _, err := fmt.Fprintf(w, "%s%q:[", h, key); err != nil {
		return err
	}
	for i, r := range rows {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		sep := ",\n"
		if i == 0 {
			sep = "\n"
		}
		if _, err := fmt.Fprintf(w, "%s%s", sep, b); err != nil {
			return err
		}
	}
	_, err = io.WriteString(w, "\n]}\n")
	return err
}

// spanText writes a span in seconds, "75-88s", or "never".
func spanText(s timing.Span) string {
	if s.Never() {
		return "never"
	}
	return fmt.Sprintf("%s-%ss", secText(s.Earliest), secText(s.Latest))
}

func secText(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) }

// checkerFlags reads --interval and --timeout: each positive and at most a timeline's limit.
func checkerFlags(interval, timeout time.Duration) error {
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"interval", interval}, {"timeout", timeout}} {
		switch {
		case f.d <= 0:
			return usageErr(fmt.Errorf("--%s %s: want a positive duration", f.name, f.d), "")
		case f.d > timeline.MaxChecker:
			return usageErr(fmt.Errorf("--%s %s: want at most %s, as in a timeline's checker line", f.name, f.d, timeline.MaxChecker), "")
		}
	}
	return nil
}

// ruleText is a rule as the diff shows it: "timeout, 8, fail".
func ruleText(r statemap.Rule) string {
	return fmt.Sprintf("%s, %d, %s", r.State, r.Threshold, r.Action)
}
