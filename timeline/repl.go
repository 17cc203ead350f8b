package timeline

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/propspec"
	"github.com/failsim/failsim/repl"
)

// Replication is what a timeline says of replication and of the application's writes: the
// workload, the replication settings, each node's precedence and the replication events. A
// replay runs package repl's model beside the engine from it, and the engine promotes by the
// model's ranking. A Timeline that says none of it has a nil Replication: its replay runs no
// model and decides exactly as it always has.
type Replication struct {
	// Config is what the model starts from: the nodes, the master at t=0, the workload (Rate
	// and Deadline; the zero Rate for none), the mode, semisync's timeout, the lag cap, the
	// apply wait and the precedences (nil: cluster order). A zero Timeout or LagCap stands for
	// repl's default.
	Config repl.Config
	// Workload is whether a "workload" statement starts writes; WorkloadLine is its line.
	Workload     bool
	WorkloadLine int
	// Near is the node the application sits beside: the cluster line's first, or the
	// workload's "near NODE". It matters only during a partition: the application then writes
	// to the writable master on Near's side, if any (docs/engine.md, "The client's view during
	// a partition").
	Near int
	// Events are the replication events, in time order (file order among equal times).
	Events []ReplEvent
}

// ReplEvent is one timed replication statement: NODE lag DUR, NODE apply-lag DUR, NODE link
// freeze|heal, NODE replicator stop|start. At one instant a replay applies the replication
// events before the other events.
type ReplEvent struct {
	At    time.Duration // virtual time since the start
	Line  int           // the line that states it
	Input repl.Input    // a repl.SetLag, SetApplyLag, SetStream or SetReplicator
}

// DefaultDeadline is the client's deadline on each write when the workload names none.
const DefaultDeadline = 2 * time.Second

// maxWritesPerSecond bounds a workload's rate: enough for any database, and small enough that
// every write of a timeline's whole span can be counted.
const maxWritesPerSecond = 1_000_000

// The replication event words, after NODE.
var replEventWords = map[string]bool{"lag": true, "apply-lag": true, "link": true, "replicator": true}

// repl returns the timeline's Replication, making it on first use.
func (p *parser) repl() *Replication {
	if p.tl.Repl == nil {
		p.tl.Repl = &Replication{}
	}
	return p.tl.Repl
}

// replSetting parses a "workload" or "replication" statement.
func (p *parser) replSetting(w []string) error {
	r := p.repl()
	if w[0] == "workload" {
		return p.workload(r, w[1:])
	}
	usage := "want \"replication async|semisync [timeout=DURATION] [lag-cap=DURATION] [apply-wait=DURATION]\""
	if len(w) < 2 {
		return p.errf("replication takes a mode: %s", usage)
	}
	switch w[1] {
	case "async":
		r.Config.Mode = repl.Async
	case "semisync":
		r.Config.Mode = repl.Semisync
	default:
		return p.errf("replication mode %q: want async or semisync", w[1])
	}
	for _, a := range w[2:] {
		k, v, ok := strings.Cut(a, "=")
		var dst *time.Duration
		switch k {
		case "timeout":
			dst = &r.Config.Timeout
		case "lag-cap":
			dst = &r.Config.LagCap
		case "apply-wait":
			dst = &r.Config.ApplyWait
		}
		if !ok || dst == nil {
			return p.errf("replication setting %q: %s", a, usage)
		}
		d, err := p.positive("replication "+k, v)
		if err != nil {
			return err
		}
		*dst = d
	}
	return nil
}

// workload parses the words after "workload".
func (p *parser) workload(r *Replication, w []string) error {
	usage := "want \"workload writes=N/s|N/DURATION [deadline=DURATION] [near NODE]\""
	r.Workload, r.WorkloadLine = true, p.line
	r.Config.Deadline = DefaultDeadline
	rate := false
	for len(w) > 0 {
		a := w[0]
		w = w[1:]
		if a == "near" {
			if len(w) == 0 {
				return p.errf("workload: near needs a node; %s", usage)
			}
			i, ok := p.nodes[w[0]]
			if !ok {
				return p.errf("unknown node %q: the cluster has %s", w[0], p.nodeList())
			}
			r.Near = i
			w = w[1:]
			continue
		}
		k, v, ok := strings.Cut(a, "=")
		switch {
		case ok && k == "writes":
			rt, err := p.rate(v)
			if err != nil {
				return err
			}
			r.Config.Rate, rate = rt, true
		case ok && k == "deadline":
			d, err := p.positive("workload deadline", v)
			if err != nil {
				return err
			}
			r.Config.Deadline = d
		default:
			return p.errf("workload setting %q: %s", a, usage)
		}
	}
	if !rate {
		return p.errf("workload without writes=: %s", usage)
	}
	return nil
}

// ParseWorkload reads the words of a workload statement after "workload" (failsim check's
// --workload), as a timeline does; "near" is refused, there being no cluster to name. The
// error names no file.
func ParseWorkload(words []string) (*Replication, error) {
	p := &parser{tl: &Timeline{}, nodes: map[string]int{}}
	r := &Replication{}
	if err := p.workload(r, words); err != nil {
		var fe *fileline.Error
		if errors.As(err, &fe) {
			return nil, fe.Err
		}
		return nil, err
	}
	return r, nil
}

// rate reads N/s or N/DURATION: N writes every DURATION ("s", "ms", "m" alone mean one of
// the unit).
func (p *parser) rate(v string) (repl.Rate, error) {
	ns, per, ok := strings.Cut(v, "/")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil || n < 1 {
		return repl.Rate{}, p.errf("workload writes=%s: want a positive number of writes per time, such as 200/s or 5/100ms", v)
	}
	if per != "" && strings.IndexAny(per[:1], "0123456789.") < 0 {
		per = "1" + per
	}
	d, err := time.ParseDuration(per)
	if err != nil || d <= 0 || d > MaxChecker {
		return repl.Rate{}, p.errf("workload writes=%s: %q is not a positive period of at most %s, such as s or 100ms", v, per, MaxChecker)
	}
	// n/d <= maxWritesPerSecond/s, in integers: n·1s <= max·d.
	if n > maxWritesPerSecond || n*int64(time.Second) > maxWritesPerSecond*int64(d) {
		return repl.Rate{}, p.errf("workload writes=%s: more than %d writes a second", v, maxWritesPerSecond)
	}
	return repl.Rate{Writes: n, Per: d}, nil
}

// positive reads a positive duration of at most MaxChecker for setting what.
func (p *parser) positive(what, v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, p.errf("%s: %q is not a positive duration such as 2s", what, v)
	}
	if d > MaxChecker {
		return 0, p.errf("%s: %s is longer than %s", what, v, MaxChecker)
	}
	return d, nil
}

// precedence records node i's precedence from the cluster line's NAME:ROLE:PRECEDENCE.
func (p *parser) precedence(i int, name, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1_000_000 {
		return p.errf("node %q: precedence %q: want a whole number from 1 to 1000000 (the lowest wins a tie)", name, v)
	}
	if p.prec == nil {
		p.prec = map[int]int{}
	}
	p.prec[i] = n
	return nil
}

// replEvent parses the replication event rest of node i (named target) at time at.
func (p *parser) replEvent(at time.Duration, i int, target string, rest []string) error {
	var in repl.Input
	switch rest[0] {
	case "lag", "apply-lag":
		if len(rest) != 2 {
			return p.errf("%s takes one duration: \"%s %s 5s\"", rest[0], target, rest[0])
		}
		d, err := time.ParseDuration(rest[1])
		if err != nil || d < 0 {
			return p.errf("%s: %q is not a duration such as 5s (0s for none)", rest[0], rest[1])
		}
		if d > MaxChecker {
			return p.errf("%s: %s is longer than %s", rest[0], rest[1], MaxChecker)
		}
		if rest[0] == "lag" {
			in = repl.SetLag{Node: i, Lag: d}
		} else {
			in = repl.SetApplyLag{Node: i, Lag: d}
		}
	case "link":
		if len(rest) != 2 || (rest[1] != "freeze" && rest[1] != "heal") {
			return p.errf("want \"%s link freeze\" or \"%s link heal\" (its replication stream)", target, target)
		}
		in = repl.SetStream{Node: i, Frozen: rest[1] == "freeze"}
	case "replicator":
		if len(rest) != 2 || (rest[1] != "stop" && rest[1] != "start") {
			return p.errf("want \"%s replicator stop\" or \"%s replicator start\"", target, target)
		}
		in = repl.SetReplicator{Node: i, Running: rest[1] == "start"}
	}
	r := p.repl()
	r.Events = append(r.Events, ReplEvent{At: at, Line: p.line, Input: in})
	p.events = true
	p.last = at
	return nil
}

// finishRepl completes the Replication once the file is read: the cluster's nodes and master,
// the precedences, and the expectations that need a workload.
func (p *parser) finishRepl() error {
	r := p.tl.Repl
	if r == nil && p.prec != nil {
		r = p.repl()
	}
	for _, x := range p.tl.Expects {
		needs := x.Kind.NeedsWorkload() || (x.Kind == ExpectProperty && propspec.NeedsWorkload(x.Property.Name))
		if needs && (r == nil || !r.Workload) {
			p.line = x.Line
			return p.errf("%q needs a workload: add \"workload writes=N/s\" before the first event", x.Text)
		}
	}
	if r == nil {
		return nil
	}
	r.Config.Nodes = len(p.tl.Nodes)
	for i, n := range p.tl.Nodes {
		if n.Role == fence.Master {
			r.Config.Master = i
		}
	}
	if p.prec != nil {
		r.Config.Precedence = make([]int, len(p.tl.Nodes))
		for i := range r.Config.Precedence {
			r.Config.Precedence[i] = i + 1
			if v, ok := p.prec[i]; ok {
				r.Config.Precedence[i] = v
			}
		}
	}
	return nil
}

// NeedsWorkload reports whether an expectation of kind k judges the workload's writes, and so
// is refused in a timeline without one.
func (k ExpectKind) NeedsWorkload() bool {
	return k == ExpectOutage || k == ExpectUnavailable || k == ExpectLostWrites
}

// replExpect parses "expect outage at most DUR", "expect unavailable at most DUR", "expect
// lost writes N" and "expect lost writes at most N"; ok is false when w is none of them.
func (p *parser) replExpect(x Expect, w []string) (Expect, bool, error) {
	switch {
	case len(w) >= 1 && (w[0] == "outage" || w[0] == "unavailable"):
		usage := "want \"expect " + w[0] + " at most DURATION\""
		if len(w) != 4 || w[1] != "at" || w[2] != "most" {
			return x, true, p.errf("%s: %s", w[0], usage)
		}
		d, err := time.ParseDuration(w[3])
		if err != nil || d < 0 {
			return x, true, p.errf("%s: %q is not a duration such as 90s; %s", w[0], w[3], usage)
		}
		x.Kind, x.Max = ExpectOutage, d
		if w[0] == "unavailable" {
			x.Kind = ExpectUnavailable
		}
		return x, true, nil
	case len(w) >= 2 && w[0] == "lost" && w[1] == "writes":
		usage := "want \"expect lost writes N\" or \"expect lost writes at most N\""
		rest := w[2:]
		if len(rest) == 3 && rest[0] == "at" && rest[1] == "most" {
			x.AtMost, rest = true, rest[2:]
		}
		if len(rest) != 1 {
			return x, true, p.errf("lost writes: %s", usage)
		}
		n, err := strconv.ParseInt(rest[0], 10, 64)
		if err != nil || n < 0 {
			return x, true, p.errf("lost writes: %q is not a count of writes; %s", rest[0], usage)
		}
		x.Kind, x.Count = ExpectLostWrites, n
		return x, true, nil
	}
	return x, false, nil
}
