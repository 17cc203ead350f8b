package sim

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
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
		p.json(eventJSON(p.start, p.names, ev))
		return
	}
	_, p.err = fmt.Fprintf(p.w, "%s %s\n", Clock(p.start, ev.When()), Describe(p.names, ev))
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

// Describe says what an event is, in words, without its time; names are the nodes' names in
// cluster order.
func Describe(names []string, ev fence.Event) string {
	switch ev := ev.(type) {
	case *fence.StateChanged:
		return fmt.Sprintf("%s state %s -> %s (%s)", names[ev.Node], ev.From, ev.To, ev.Condition)
	case *fence.AlarmRaised:
		return fmt.Sprintf("%s alarm raised: %s (threshold %d, action %s)", names[ev.Node], ev.Condition, ev.Threshold, ev.Action)
	case *fence.AlarmExpired:
		return fmt.Sprintf("%s alarm expired: %s after %s (threshold %d): action %s, coordinator %s", names[ev.Node], ev.Condition, plural(ev.Count, "tick"), ev.Threshold, ev.Action, names[ev.Coordinator])
	case *fence.AlarmHealed:
		return fmt.Sprintf("%s alarm self-healed: %s after %s (threshold %d)", names[ev.Node], ev.Condition, plural(ev.Count, "tick"), ev.Threshold)
	case *fence.AlarmCleared:
		by := "maintenance"
		if ev.By == fence.ClearedByRecover {
			by = "the operator's recover"
		}
		return fmt.Sprintf("%s alarm cleared by %s: %s after %s (threshold %d)", names[ev.Node], by, ev.Condition, plural(ev.Count, "tick"), ev.Threshold)
	case *fence.ExpiryWaiting:
		return fmt.Sprintf("%s alarm expired: %s after %s, but no manager is up to fence: waiting", names[ev.Node], ev.Condition, plural(ev.Count, "tick"))
	case *fence.Logged:
		return fmt.Sprintf("%s %s: action none, logged only", names[ev.Node], ev.Condition)
	case *fence.AlertNotImplemented:
		return fmt.Sprintf("%s %s: action alert: ALERT NOT IMPLEMENTED", names[ev.Node], ev.Condition)
	case *fence.AlreadyFailed:
		return fmt.Sprintf("%s %s: action fail, but %s is already failed", names[ev.Node], ev.Condition, names[ev.Node])
	case *fence.NodeFailed:
		if d := nodeFailedDetail(ev); d != "" {
			return fmt.Sprintf("%s FAILED: %s out of service (%s); %s", names[ev.Node], ev.Role, ev.Condition, d)
		}
		return fmt.Sprintf("%s FAILED: %s out of service (%s)", names[ev.Node], ev.Role, ev.Condition)
	case *fence.Failover:
		return fmt.Sprintf("%s FAILOVER: master %s failed (%s), %s is master", names[ev.Node], names[ev.Node], ev.Condition, names[ev.To])
	case *fence.NoCandidate:
		return fmt.Sprintf("%s FAILED: master out of service (%s); no failover: no replica eligible (%s); the cluster has no master", names[ev.Node], ev.Condition, ineligibleText(names, ev.Ineligible))
	case *fence.NodeRecovered:
		return fmt.Sprintf("%s recovered: back in service as %s (%s)", names[ev.Node], ev.Role, ev.By)
	case *fence.RecoverIgnored:
		return fmt.Sprintf("%s recover ignored: %s", names[ev.Node], recoverIgnoredDetail)
	case *fence.PolicyChanged:
		return fmt.Sprintf("cluster policy %s", ev.Policy)
	case *fence.ManagerDown:
		return fmt.Sprintf("%s manager down", names[ev.Node])
	case *fence.ManagerUp:
		return fmt.Sprintf("%s manager up", names[ev.Node])
	case *fence.CoordinatorChanged:
		if ev.Coordinator < 0 {
			return "cluster coordinator none: no manager is up"
		}
		return "cluster coordinator " + names[ev.Coordinator]
	case *FaultSet:
		return names[ev.Node] + " fault " + ev.Fault.String()
	}
	return fmt.Sprintf("%T", ev)
}

// The fixed details of the JSON output, as the events of old carried them.
const (
	alertDetail          = "ALERT NOT IMPLEMENTED"
	manualDetail         = "manual policy: no failover"
	recoverIgnoredDetail = "not failed"
)

// nodeFailedDetail says why a failed node is no failover: a master is failed without one only
// under manual policy. A replica's needs no word.
func nodeFailedDetail(ev *fence.NodeFailed) string {
	if ev.Role == fence.Master {
		return manualDetail
	}
	return ""
}

// ineligibleText says why no node was promoted at a NoCandidate, node by node in cluster order:
// "db2 is failed, db3's manager is down"; "the cluster has no replica" when it has no other
// node.
func ineligibleText(names []string, why []fence.Ineligible) string {
	if len(why) == 0 {
		return "the cluster has no replica"
	}
	var b strings.Builder
	for k, x := range why {
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(names[x.Node])
		switch x.Why {
		case fence.IsFailed:
			b.WriteString(" is failed")
		case fence.ManagerIsDown:
			b.WriteString("'s manager is down")
		case fence.NeverProbed:
			b.WriteString(" has not been probed yet")
		case fence.LastProbeNotOK:
			b.WriteString("'s last probe was not ok")
		case fence.NotChosen:
			b.WriteString(" was eligible, but the candidate rule chose no node")
		default:
			b.WriteString(": " + x.Why.String())
		}
	}
	return b.String()
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

func eventJSON(start time.Time, names []string, ev fence.Event) EventJSON {
	at := ev.When()
	j := EventJSON{T: at.Seconds(), Time: Clock(start, at), Text: Describe(names, ev)}
	if d, ok := ev.(fence.Decision); ok {
		j.Event = d.Kind().String()
	}
	ints := func(a, b int) (*int, *int) { return &a, &b }
	switch ev := ev.(type) {
	case *fence.StateChanged:
		j.Node, j.Condition, j.From, j.To = names[ev.Node], ev.Condition.String(), ev.From.String(), ev.To.String()
	case *fence.AlarmRaised:
		thr := ev.Threshold
		j.Node, j.Condition, j.Threshold, j.Action = names[ev.Node], ev.Condition.String(), &thr, ev.Action.String()
	case *fence.AlarmExpired:
		j.Node, j.Condition, j.Action = names[ev.Node], ev.Condition.String(), ev.Action.String()
		j.Count, j.Threshold = ints(ev.Count, ev.Threshold)
	case *fence.ExpiryWaiting:
		j.Node, j.Condition, j.Action = names[ev.Node], ev.Condition.String(), ev.Action.String()
		j.Count, j.Threshold = ints(ev.Count, ev.Threshold)
	case *fence.AlarmHealed:
		j.Node, j.Condition = names[ev.Node], ev.Condition.String()
		j.Count, j.Threshold = ints(ev.Count, ev.Threshold)
	case *fence.AlarmCleared:
		j.Node, j.Condition, j.Detail = names[ev.Node], ev.Condition.String(), ev.By.String()
		j.Count, j.Threshold = ints(ev.Count, ev.Threshold)
	case *fence.Logged:
		j.Node, j.Condition = names[ev.Node], ev.Condition.String()
	case *fence.AlertNotImplemented:
		j.Node, j.Condition, j.Detail = names[ev.Node], ev.Condition.String(), alertDetail
	case *fence.AlreadyFailed:
		j.Node, j.Condition = names[ev.Node], ev.Condition.String()
	case *fence.NodeFailed:
		j.Node, j.Condition, j.Role, j.Detail = names[ev.Node], ev.Condition.String(), ev.Role.String(), nodeFailedDetail(ev)
	case *fence.Failover:
		j.Node, j.Condition, j.Master = names[ev.Node], ev.Condition.String(), names[ev.To]
	case *fence.NoCandidate:
		j.Node, j.Condition, j.Detail = names[ev.Node], ev.Condition.String(), ineligibleText(names, ev.Ineligible)
	case *fence.NodeRecovered:
		j.Node, j.Role, j.Detail = names[ev.Node], ev.Role.String(), ev.By.String()
	case *fence.RecoverIgnored:
		j.Node, j.Detail = names[ev.Node], recoverIgnoredDetail
	case *fence.PolicyChanged:
		j.Policy = ev.Policy.String()
	case *fence.ManagerDown:
		j.Node = names[ev.Node]
	case *fence.ManagerUp:
		j.Node = names[ev.Node]
	case *fence.CoordinatorChanged:
		c := ""
		if ev.Coordinator >= 0 {
			c = names[ev.Coordinator]
		}
		j.Coord = &c
	case *FaultSet:
		j.Event, j.Node, j.Detail = "fault", names[ev.Node], ev.Fault.String()
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
			s.Summary.Failovers = append(s.Summary.Failovers, failoverJSON{T: ev.At.Seconds(), Time: Clock(p.start, ev.At), From: p.names[ev.Node], To: p.names[ev.To], Condition: ev.Condition.String()})
		}
		for _, ev := range r.NoCandidates() {
			s.Summary.NoCandidate = append(s.Summary.NoCandidate, failoverJSON{T: ev.At.Seconds(), Time: Clock(p.start, ev.At), From: p.names[ev.Node], Condition: ev.Condition.String()})
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
	printer := NewPrinter(w, f, tl.Start, tl.Names())
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
