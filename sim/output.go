package sim

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
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
	err    error
}

// NewPrinter returns a printer of events in format f to w; start is the clock time of t=0.
func NewPrinter(w io.Writer, f Format, start time.Time) *Printer {
	return &Printer{w: bufio.NewWriter(w), format: f, start: start}
}

// Instant implements Observer.
func (p *Printer) Instant(time.Duration, *fence.Engine) {}

// Event implements Observer.
func (p *Printer) Event(ev fence.Event) {
	if p.err != nil {
		return
	}
	if p.format == JSON {
		p.json(eventJSON(p.start, ev))
		return
	}
	_, p.err = fmt.Fprintf(p.w, "%s %s\n", Clock(p.start, ev.At), Describe(ev))
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

// Describe says what an event is, in words, without its time.
func Describe(ev fence.Event) string {
	switch ev.Kind {
	case fence.StateChanged:
		return fmt.Sprintf("%s state %s -> %s (%s)", ev.Node, ev.From, ev.To, ev.Condition)
	case fence.AlarmRaised:
		return fmt.Sprintf("%s alarm raised: %s (threshold %d, action %s)", ev.Node, ev.Condition, ev.Threshold, ev.Action)
	case fence.AlarmExpired:
		return fmt.Sprintf("%s alarm expired: %s after %s (threshold %d): action %s, coordinator %s", ev.Node, ev.Condition, plural(ev.Count, "tick"), ev.Threshold, ev.Action, ev.Other)
	case fence.AlarmHealed:
		return fmt.Sprintf("%s alarm self-healed: %s after %s (threshold %d)", ev.Node, ev.Condition, plural(ev.Count, "tick"), ev.Threshold)
	case fence.AlarmCleared:
		by := "maintenance"
		if ev.Detail == "recover" {
			by = "the operator's recover"
		}
		return fmt.Sprintf("%s alarm cleared by %s: %s after %s (threshold %d)", ev.Node, by, ev.Condition, plural(ev.Count, "tick"), ev.Threshold)
	case fence.ExpiryWaiting:
		return fmt.Sprintf("%s alarm expired: %s after %s, but no manager is up to fence: waiting", ev.Node, ev.Condition, plural(ev.Count, "tick"))
	case fence.Logged:
		return fmt.Sprintf("%s %s: action none, logged only", ev.Node, ev.Condition)
	case fence.AlertNotImplemented:
		return fmt.Sprintf("%s %s: action alert: ALERT NOT IMPLEMENTED", ev.Node, ev.Condition)
	case fence.AlreadyFailed:
		return fmt.Sprintf("%s %s: action fail, but %s is already failed", ev.Node, ev.Condition, ev.Node)
	case fence.NodeFailed:
		if ev.Detail != "" {
			return fmt.Sprintf("%s FAILED: %s out of service (%s); %s", ev.Node, ev.Role, ev.Condition, ev.Detail)
		}
		return fmt.Sprintf("%s FAILED: %s out of service (%s)", ev.Node, ev.Role, ev.Condition)
	case fence.Failover:
		return fmt.Sprintf("%s FAILOVER: master %s failed (%s), %s is master", ev.Node, ev.Node, ev.Condition, ev.Other)
	case fence.NoCandidate:
		return fmt.Sprintf("%s FAILED: master out of service (%s); no failover: no replica eligible (%s); the cluster has no master", ev.Node, ev.Condition, ev.Detail)
	case fence.NodeRecovered:
		return fmt.Sprintf("%s recovered: back in service as %s (%s)", ev.Node, ev.Role, ev.Detail)
	case fence.RecoverIgnored:
		return fmt.Sprintf("%s recover ignored: %s", ev.Node, ev.Detail)
	case fence.PolicyChanged:
		return fmt.Sprintf("cluster policy %s", ev.Policy)
	case fence.ManagerDown:
		return fmt.Sprintf("%s manager down", ev.Node)
	case fence.ManagerUp:
		return fmt.Sprintf("%s manager up", ev.Node)
	case fence.CoordinatorChanged:
		if ev.Other == "" {
			return "cluster coordinator none: no manager is up"
		}
		return "cluster coordinator " + ev.Other
	case fence.FaultInjected:
		return fmt.Sprintf("%s fault %s", ev.Node, ev.Detail)
	}
	return ev.Kind.String()
}

// EventJSON is the stable JSON form of an event.
type EventJSON struct {
	T         float64 `json:"t"`    // seconds since the start
	Time      string  `json:"time"` // clock time
	Event     string  `json:"event"`
	Node      string  `json:"node,omitempty"`
	Condition string  `json:"condition,omitempty"`
	From      string  `json:"from,omitempty"`
	To        string  `json:"to,omitempty"`
	Count     *int    `json:"count,omitempty"`
	Threshold *int    `json:"threshold,omitempty"`
	Action    string  `json:"action,omitempty"`
	Role      string  `json:"role,omitempty"`
	Master    string  `json:"master,omitempty"`
	Coord     *string `json:"coordinator,omitempty"`
	Policy    string  `json:"policy,omitempty"`
	Detail    string  `json:"detail,omitempty"`
	Text      string  `json:"text"`
}

func eventJSON(start time.Time, ev fence.Event) EventJSON {
	j := EventJSON{T: ev.At.Seconds(), Time: Clock(start, ev.At), Event: ev.Kind.String(), Node: ev.Node, Detail: ev.Detail, Text: Describe(ev)}
	count, thr := ev.Count, ev.Threshold
	switch ev.Kind {
	case fence.StateChanged:
		j.Condition, j.From, j.To = ev.Condition.String(), ev.From.String(), ev.To.String()
	case fence.AlarmRaised:
		j.Condition, j.Threshold, j.Action = ev.Condition.String(), &thr, ev.Action.String()
	case fence.AlarmExpired, fence.ExpiryWaiting:
		j.Condition, j.Count, j.Threshold, j.Action = ev.Condition.String(), &count, &thr, ev.Action.String()
	case fence.AlarmHealed, fence.AlarmCleared:
		j.Condition, j.Count, j.Threshold = ev.Condition.String(), &count, &thr
	case fence.Logged, fence.AlertNotImplemented, fence.AlreadyFailed:
		j.Condition = ev.Condition.String()
	case fence.NodeFailed:
		j.Condition, j.Role = ev.Condition.String(), ev.Role.String()
	case fence.Failover:
		j.Condition, j.Master = ev.Condition.String(), ev.Other
	case fence.NoCandidate:
		j.Condition = ev.Condition.String()
	case fence.NodeRecovered:
		j.Role = ev.Role.String()
	case fence.PolicyChanged:
		j.Policy = ev.Policy.String()
	case fence.CoordinatorChanged:
		c := ev.Other
		j.Coord = &c
	}
	return j
}

// Outcome of one expectation, as the summary reports it.
type ExpectResult struct {
	Line int    `json:"line"`
	Text string `json:"text"`
	Held bool   `json:"held"`
	Why  string `json:"why,omitempty"`
}

// Judge returns the verdict of every expectation, in timeline order.
func Judge(expects []Expect) []ExpectResult {
	out := make([]ExpectResult, 0, len(expects))
	for _, x := range expects {
		held, why := x.Verdict()
		out = append(out, ExpectResult{Line: x.Line(), Text: x.Text(), Held: held, Why: why})
	}
	return out
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
		File         string         `json:"file"`
		Failover     bool           `json:"failover"`
		Failovers    []failoverJSON `json:"failovers"`
		NoCandidate  []failoverJSON `json:"no_candidate,omitempty"`
		Verdict      []string       `json:"verdict"`
		Expectations []ExpectResult `json:"expectations"`
		Held         int            `json:"held"`
		Failed       int            `json:"failed"`
	} `json:"summary"`
}

// Summary writes the verdict and the expectations' results after the events, and flushes.
func (p *Printer) Summary(file string, r *Report, results []ExpectResult) error {
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
			s.Summary.Failovers = append(s.Summary.Failovers, failoverJSON{T: ev.At.Seconds(), Time: Clock(p.start, ev.At), From: ev.Node, To: ev.Other, Condition: ev.Condition.String()})
		}
		for _, ev := range r.NoCandidates() {
			s.Summary.NoCandidate = append(s.Summary.NoCandidate, failoverJSON{T: ev.At.Seconds(), Time: Clock(p.start, ev.At), From: ev.Node, Condition: ev.Condition.String()})
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
func Run(ctx context.Context, w io.Writer, f Format, tl *Timeline, m *statemap.Map) ([]ExpectResult, error) {
	report := NewReport(tl, m)
	printer := NewPrinter(w, f, tl.Start)
	obs := []Observer{printer, report}
	for _, x := range tl.Expects {
		obs = append(obs, x)
	}
	if _, err := ReplayContext(ctx, tl, m, obs...); err != nil {
		printer.Flush()
		return nil, err
	}
	results := Judge(tl.Expects)
	return results, printer.Summary(tl.File, report, results)
}
