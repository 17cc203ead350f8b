package sim

import (
	"fmt"
	"strings"
	"time"

	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/narrate"
	"github.com/failsim/failsim/statemap"
)

// Observer watches a replay: every event as the engine decides it, the engine after every
// instant, and the end. Expectations are observers; so are the property checks of failsim check.
// It is the driver's observer (drive.Observer), so the live runtime tells the same observers.
type Observer = drive.Observer

// Expect is one expectation of a timeline, judged over a replay.
type Expect interface {
	Observer
	// Line is the timeline line that states it; Text is the statement as written.
	Line() int
	Text() string
	// Checkpoints are virtual times the replay must stop at so the expectation can look.
	Checkpoints() []time.Duration
	// Verdict judges the expectation once the replay has ended: held, and if not, why.
	Verdict() (held bool, why string)
}

type expectBase struct {
	line int
	text string
}

func (b expectBase) Line() int                                 { return b.line }
func (b expectBase) Text() string                              { return b.text }
func (b expectBase) Checkpoints() []time.Duration              { return nil }
func (b expectBase) Event(fence.Event)                         {}
func (b expectBase) Instant(at time.Duration, e *fence.Engine) {}

// window is an inclusive [after, by] span of virtual time; a missing bound is open.
type window struct {
	after, by       time.Duration
	hasAfter, hasBy bool
}

func (w window) holds(t time.Duration) bool {
	return (!w.hasAfter || t >= w.after) && (!w.hasBy || t <= w.by)
}

func (p *parser) expect(w []string) (Expect, error) {
	base := expectBase{line: p.line, text: "expect " + strings.Join(w, " ")}
	usage := "want \"expect no failover\", \"expect failover [of NODE] [to NODE] [after TIME] [by TIME]\", \"expect no master [after TIME] [by TIME]\", \"expect NODE failed [after TIME] [by TIME]\", \"expect NODE never failed\" or \"expect NODE STATE|ROLE at TIME\""
	if len(w) == 0 {
		return nil, p.errf("expect what? %s", usage)
	}
	switch {
	case len(w) == 2 && w[0] == "no" && w[1] == "failover":
		return &expectNoFailover{expectBase: base, start: p.tl.Start, names: p.names()}, nil
	case len(w) >= 2 && w[0] == "no" && w[1] == "master":
		e := &expectNoMaster{expectBase: base, start: p.tl.Start}
		rest := w[2:]
		for len(rest) > 0 {
			if len(rest) < 2 || (rest[0] != "after" && rest[0] != "by") {
				return nil, p.errf("no master: want \"expect no master [after TIME] [by TIME]\"")
			}
			if err := p.bound(&e.win, rest[0], rest[1]); err != nil {
				return nil, err
			}
			rest = rest[2:]
		}
		return e, nil
	case w[0] == "property":
		return p.property(base, w[1:])
	case w[0] == "failover":
		e := &expectFailover{expectBase: base, start: p.tl.Start, names: p.names(), from: -1, to: -1}
		rest := w[1:]
		for len(rest) > 0 {
			if len(rest) < 2 {
				return nil, p.errf("failover: %q needs a value; %s", rest[0], usage)
			}
			switch rest[0] {
			case "of", "to":
				i, ok := p.nodes[rest[1]]
				if !ok {
					return nil, p.errf("unknown node %q: the cluster has %s", rest[1], p.nodeList())
				}
				if rest[0] == "of" {
					e.from = i
				} else {
					e.to = i
				}
			case "after", "by":
				if err := p.bound(&e.win, rest[0], rest[1]); err != nil {
					return nil, err
				}
			default:
				return nil, p.errf("failover: unknown word %q: want of, to, after or by", rest[0])
			}
			rest = rest[2:]
		}
		return e, nil
	}
	i, ok := p.nodes[w[0]]
	if !ok {
		return nil, p.errf("expect %q: not a node of the cluster (%s); %s", w[0], p.nodeList(), usage)
	}
	name := w[0]
	switch {
	case len(w) == 3 && w[1] == "never" && w[2] == "failed":
		return &expectFailed{expectBase: base, node: i, name: name, never: true, start: p.tl.Start}, nil
	case len(w) >= 2 && w[1] == "failed" && (len(w) == 2 || w[2] != "at"):
		e := &expectFailed{expectBase: base, node: i, name: name, start: p.tl.Start}
		rest := w[2:]
		for len(rest) > 0 {
			if len(rest) < 2 || (rest[0] != "after" && rest[0] != "by") {
				return nil, p.errf("failed: want \"expect %s failed [after TIME] [by TIME]\"", name)
			}
			if err := p.bound(&e.win, rest[0], rest[1]); err != nil {
				return nil, err
			}
			rest = rest[2:]
		}
		return e, nil
	case len(w) == 4 && w[2] == "at":
		at, err := p.parseTime(w[3])
		if err != nil {
			return nil, err
		}
		e := &expectAt{expectBase: base, node: i, name: name, at: at, want: w[1]}
		if s, ok := statemap.ParseState(w[1]); ok {
			e.state, e.isState = s, true
		} else if w[1] != "master" && w[1] != "replica" && w[1] != "failed" {
			return nil, p.errf("%q is neither a state (online stopped timeout suspect unknown) nor a role (master replica failed)", w[1])
		}
		return e, nil
	}
	return nil, p.errf("expect %s: %s", strings.Join(w, " "), usage)
}

func (p *parser) bound(w *window, word, val string) error {
	t, err := p.parseTime(val)
	if err != nil {
		return err
	}
	if word == "after" {
		w.after, w.hasAfter = t, true
	} else {
		w.by, w.hasBy = t, true
	}
	if w.hasAfter && w.hasBy && w.by < w.after {
		return p.errf("\"by\" %s is before \"after\"", val)
	}
	return nil
}

// expectNoFailover holds when no failover happens: no replica is promoted. A master failed
// with no replica eligible is no failover.
type expectNoFailover struct {
	expectBase
	start time.Time
	names []string
	seen  []fence.Failover
}

func (x *expectNoFailover) Event(ev fence.Event) {
	if fo, ok := ev.(*fence.Failover); ok {
		x.seen = append(x.seen, *fo)
	}
}

func (x *expectNoFailover) Verdict() (bool, string) {
	if len(x.seen) == 0 {
		return true, ""
	}
	ev := x.seen[0]
	return false, fmt.Sprintf("%s failed over to %s at %s (%s)", x.names[ev.Node], x.names[ev.To], narrate.Clock(x.start, ev.At), ev.Condition)
}

// expectFailover holds when a failover matching of/to happens within the window: a replica
// is promoted. A master failed with no replica eligible is no failover.
type expectFailover struct {
	expectBase
	start    time.Time
	names    []string
	from, to int // node indices; -1 for any
	win      window
	got      []fence.Failover
	none     []fence.NoCandidate // masters failed with no replica eligible
	match    bool
}

func (x *expectFailover) Event(ev fence.Event) {
	switch ev := ev.(type) {
	case *fence.NoCandidate:
		x.none = append(x.none, *ev)
	case *fence.Failover:
		x.got = append(x.got, *ev)
		if (x.from < 0 || ev.Node == x.from) && (x.to < 0 || ev.To == x.to) && x.win.holds(ev.At) {
			x.match = true
		}
	}
}

func (x *expectFailover) Verdict() (bool, string) {
	if x.match {
		return true, ""
	}
	var none []string
	for _, ev := range x.none {
		none = append(none, fmt.Sprintf("master %s failed at %s and no replica was eligible", x.names[ev.Node], narrate.Clock(x.start, ev.At)))
	}
	if len(x.got) == 0 {
		if len(none) > 0 {
			return false, "no failover happened: " + strings.Join(none, "; ")
		}
		return false, "no failover happened"
	}
	var seen []string
	for _, ev := range x.got {
		seen = append(seen, fmt.Sprintf("%s to %s at %s", x.names[ev.Node], x.names[ev.To], narrate.Clock(x.start, ev.At)))
	}
	why := "the failovers were " + strings.Join(seen, "; ")
	if len(none) > 0 {
		why += "; and " + strings.Join(none, "; ")
	}
	return false, why
}

// expectNoMaster holds when, at some moment within the window, no node is master in service:
// the master was failed and no replica promoted. The engine is read at the end of each
// instant; the window's "after" is a checkpoint, so the state carried into the window counts.
type expectNoMaster struct {
	expectBase
	start  time.Time
	win    window
	looked bool
	hit    bool
}

func (x *expectNoMaster) Checkpoints() []time.Duration {
	if x.win.hasAfter {
		return []time.Duration{x.win.after}
	}
	return []time.Duration{0}
}

func (x *expectNoMaster) Instant(at time.Duration, e *fence.Engine) {
	if x.hit || !x.win.holds(at) {
		return
	}
	x.looked = true
	x.hit = e.Master() < 0
}

func (x *expectNoMaster) Verdict() (bool, string) {
	switch {
	case x.hit:
		return true, ""
	case !x.looked:
		return false, "the replay ended before the window"
	}
	why := "a master was in service all along"
	switch w := x.win; {
	case w.hasAfter && w.hasBy:
		why += fmt.Sprintf(" from %s to %s", narrate.Clock(x.start, w.after), narrate.Clock(x.start, w.by))
	case w.hasAfter:
		why += " from " + narrate.Clock(x.start, w.after)
	case w.hasBy:
		why += " until " + narrate.Clock(x.start, w.by)
	}
	return false, why
}

// expectFailed holds when the node is fenced (failed, or failed over) within the window, or,
// with never, when it is never fenced.
type expectFailed struct {
	expectBase
	node  int
	name  string
	never bool
	start time.Time
	win   window
	got   []time.Duration
	match bool
}

func (x *expectFailed) Event(ev fence.Event) {
	node := -1
	switch ev := ev.(type) {
	case *fence.NodeFailed:
		node = ev.Node
	case *fence.Failover:
		node = ev.Node
	case *fence.NoCandidate:
		node = ev.Node
	}
	if node != x.node {
		return
	}
	at := ev.When()
	x.got = append(x.got, at)
	if x.win.holds(at) {
		x.match = true
	}
}

func (x *expectFailed) Verdict() (bool, string) {
	var when []string
	for _, t := range x.got {
		when = append(when, narrate.Clock(x.start, t))
	}
	if x.never {
		if len(x.got) == 0 {
			return true, ""
		}
		return false, x.name + " was failed at " + strings.Join(when, ", ")
	}
	if x.match {
		return true, ""
	}
	if len(x.got) == 0 {
		return false, x.name + " was never failed"
	}
	return false, x.name + " was failed at " + strings.Join(when, ", ") + ", outside the window"
}

// expectAt holds when the node shows the state, or has the role, at a time.
type expectAt struct {
	expectBase
	node    int
	name    string
	at      time.Duration
	want    string
	state   statemap.State
	isState bool
	got     string
	looked  bool
}

func (x *expectAt) Checkpoints() []time.Duration { return []time.Duration{x.at} }

func (x *expectAt) Instant(at time.Duration, e *fence.Engine) {
	if at != x.at {
		return
	}
	v := e.Node(x.node)
	if x.isState {
		x.got = v.State.String()
	} else {
		x.got = v.RoleName()
	}
	x.looked = true
}

func (x *expectAt) Verdict() (bool, string) {
	if !x.looked {
		return false, "the replay ended before that time"
	}
	if x.got == x.want {
		return true, ""
	}
	return false, fmt.Sprintf("%s was %s", x.name, x.got)
}
