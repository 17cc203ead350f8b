package htmlreport

import (
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/narrate"
	"github.com/failsim/failsim/repl"
)

// clientTrack is what the writes row shows of a run with a workload: the client's view as the
// replication model summed it up at the end (every outage run), what each failover lost, when
// semisync fell back and returned, and the notes an outage's title names as its cause. All of
// it is read off the events the replay tells its observers.
type clientTrack struct {
	on       bool // the timeline has a workload: the chart has a writes row
	semisync bool
	deadline time.Duration
	writer   int // the node the application writes to, as the events made it; -1 for none
	final    *repl.Final
	losses   []mark // a failover's (or merge's) lost writes: Node is the node that lost them
	semi     []mark // semisync fell back (KindNodeFailed) or returned (KindNodeRecovered)
	notes    []note // in time order
}

// note is something that can stop the writes, in the event log's words.
type note struct {
	At    time.Duration
	Words string
}

func newClientTrack(r *Recorder) clientTrack {
	rp := r.tl.Repl
	if rp == nil || !rp.Workload {
		return clientTrack{writer: -1}
	}
	return clientTrack{on: true, semisync: rp.Config.Mode == repl.Semisync, deadline: rp.Config.Deadline, writer: rp.Config.Master}
}

// clientEvent keeps what the writes row needs of an event.
func (r *Recorder) clientEvent(ev fence.Event, desc func() string) {
	w := &r.client
	if !w.on {
		return
	}
	say := func() { w.notes = append(w.notes, note{At: ev.When(), Words: desc()}) }
	switch ev := ev.(type) {
	case *drive.FaultSet:
		if ev.Node == w.writer {
			if l := repl.LinkOf(ev.Fault); l.Dead || l.Delay >= w.deadline {
				say()
			}
		}
	case repl.Applied:
		if w.semisync {
			say() // a replica that stores late or nothing holds semisync's acknowledgements
		}
	case *fence.Failover:
		w.writer = ev.To
		say()
	case *fence.NoCandidate:
		w.writer = -1
		say()
	case *fence.NodeFailed:
		if ev.Node == w.writer {
			w.writer = -1
			say()
		}
	case *fence.NodeRecovered:
		if ev.Role == fence.Master {
			w.writer = ev.Node
		}
	case repl.Promoted:
		title := fmt.Sprintf("failover at %s: %s. %s", narrate.Clock(r.tl.Start, ev.At), narrate.LossWords(r.names, ev.Lost), desc())
		w.losses = append(w.losses, mark{At: ev.At, Node: ev.From, Kind: fence.KindFailover, Title: title})
		if ev.WritableAt > ev.At {
			w.notes = append(w.notes, note{At: ev.At, Words: fmt.Sprintf("%s; takes writes at %s", desc(), narrate.Clock(r.tl.Start, ev.WritableAt))})
		}
	case repl.AppTarget:
		// During a partition the application writes to the writable master of its side.
		w.writer = ev.Master
		say()
	case repl.Overwritten:
		w.losses = append(w.losses, mark{At: ev.At, Node: ev.Node, Title: fmt.Sprintf("merge at %s: %s. %s", narrate.Clock(r.tl.Start, ev.At), narrate.LossWords(r.names, ev.Lost), desc())})
	case repl.FellBack:
		w.semi = append(w.semi, mark{At: ev.At, Node: ev.Master, Kind: fence.KindNodeFailed, Title: desc()})
	case repl.Returned:
		w.semi = append(w.semi, mark{At: ev.At, Node: ev.Master, Kind: fence.KindNodeRecovered, Title: desc()})
	case repl.Final:
		f := ev
		w.final = &f
	}
}

// cause says what stopped the writes of outage o: the last note at or before its start, and
// the notes while it lasted.
func (w *clientTrack) cause(o repl.Outage) string {
	var before string
	var during []string
	for _, n := range w.notes {
		switch {
		case n.At <= o.From:
			before = n.Words
		case n.At < o.To:
			during = append(during, n.Words)
		}
	}
	if before == "" {
		before = "no event before it: the writes' acknowledgements came later than the deadline"
	}
	out := "cause: " + before
	if len(during) > 3 {
		during = append(during[:3], fmt.Sprintf("and %d more", len(during)-3))
	}
	if len(during) > 0 {
		out += "; then: " + strings.Join(during, "; ")
	}
	return out
}

// writesRow draws the client's view: the spans with writes acknowledged, each outage a band
// titled with its span, its failed writes and its cause (the longest outlined), a mark at each
// failover with what it lost, and semisync's fallbacks and returns.
func (c *chart) writesRow() {
	w := &c.r.client
	if !w.on || w.final == nil {
		return
	}
	y := writesY
	s := w.final.Summary
	ok := func(a, b time.Duration) {
		if b > a {
			c.band(a, b, y+2, clusterRowH-4, "wk", "writes acknowledged "+c.between(a, b))
		}
	}
	from := time.Duration(0)
	longest := -1
	for k, o := range s.Outages {
		if o == s.Outage && longest < 0 {
			longest = k
		}
	}
	for k, o := range s.Outages {
		ok(from, o.From)
		cls, what := "wf", "writes failed"
		if k == longest {
			cls, what = "wf wl", "LONGEST OUTAGE: writes failed"
		}
		c.band(o.From, o.To, y, clusterRowH, cls, fmt.Sprintf("%s %s (%s, %s): %s", what, c.between(o.From, o.To), o.Length(), plural(o.Writes, "write"), w.cause(o)))
		from = o.To
	}
	ok(from, c.span)
	for _, m := range w.semi {
		cls := "sf"
		if m.Kind == fence.KindNodeRecovered {
			cls = "sr"
		}
		fmt.Fprintf(&c.b, `<path d="M%s %dV%d" class="%s" data-t="%s"><title>%s</title></path>`+"\n", sec(m.At), y-1, y+clusterRowH+1, cls, sec(m.At), html.EscapeString(narrate.Clock(c.r.tl.Start, m.At)+" "+m.Title))
	}
	for _, m := range w.losses {
		fmt.Fprintf(&c.b, `<path d="M%s %dV%d" class="lw" data-t="%s"><title>%s</title></path>`+"\n", sec(m.At), y-3, y+clusterRowH+3, sec(m.At), html.EscapeString(m.Title))
	}
}

// lossLabels writes the count each failover lost beside its mark on the writes row, and the
// longest outage's length left of it; they move with the zoom (data-t).
func (c *chart) lossLabels() {
	w := &c.r.client
	if !w.on || w.final == nil {
		return
	}
	if o := w.final.Summary.Outage; o.Length() > 0 {
		fmt.Fprintf(&c.b, `<text x="%.1f" y="%d" class="ll" text-anchor="end" data-t="%s" data-dx="-3">longest outage %s</text>`+"\n", c.x(o.From)-3, plotY+writesY+clusterRowH-3, sec(o.From), o.Length())
	}
	for _, l := range w.final.Summary.Losses {
		if l.Count == 0 {
			continue
		}
		fmt.Fprintf(&c.b, `<text x="%.1f" y="%d" class="ll" data-t="%s">%s lost</text>`+"\n", c.x(l.At)+3, plotY+writesY+clusterRowH-3, sec(l.At), plural(l.Count, "write"))
	}
}

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
