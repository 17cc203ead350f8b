package htmlreport

import (
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/narrate"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/timeline"
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
func (r *Recorder) clientEvent(ev act.Event, desc func() string) {
	w := &r.client
	if !w.on {
		return
	}
	say := func() { w.notes = append(w.notes, note{At: ev.When(), Words: desc()}) }
	switch ev := ev.(type) {
	case *act.FaultSet:
		if ev.Node == w.writer {
			if l := repl.LinkOf(ev.Fault); l.Dead || l.Delay >= w.deadline {
				say()
			}
		}
	case *act.Replicated:
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
	case *repl.Promoted:
		title := fmt.Sprintf("failover at %s: %s. %s", timeline.Clock(r.tl.Start, ev.At), narrate.LossWords(r.names, ev.Lost), desc())
		w.losses = append(w.losses, mark{At: ev.At, Node: ev.From, Kind: fence.KindFailover, Title: title})
		if ev.WritableAt > ev.At {
			w.notes = append(w.notes, note{At: ev.At, Words: fmt.Sprintf("%s; takes writes at %s", desc(), timeline.Clock(r.tl.Start, ev.WritableAt))})
		}
	case *repl.AppTarget:
		// During a partition the application writes to the writable master of its side.
		w.writer = ev.Master
		say()
	case *repl.Overwritten:
		w.losses = append(w.losses, mark{At: ev.At, Node: ev.Node, Title: fmt.Sprintf("merge at %s: %s. %s", timeline.Clock(r.tl.Start, ev.At), narrate.LossWords(r.names, ev.Lost), desc())})
	case *repl.FellBack:
		w.semi = append(w.semi, mark{At: ev.At, Node: ev.Master, Kind: fence.KindNodeFailed, Title: desc()})
	case *repl.Returned:
		w.semi = append(w.semi, mark{At: ev.At, Node: ev.Master, Kind: fence.KindNodeRecovered, Title: desc()})
	case *repl.Final:
		f := *ev
		w.final = &f
	}
}

// cause says what stopped the writes of outage o: the last note at or before its start, and
// the notes while it lasted (the first three).
func (w *clientTrack) cause(o repl.Outage) string {
	k := sort.Search(len(w.notes), func(k int) bool { return w.notes[k].At > o.From })
	before := "no event before it: the writes' acknowledgements came later than the deadline"
	if k > 0 {
		before = w.notes[k-1].Words
	}
	var during []string
	j := k
	for ; j < len(w.notes) && w.notes[j].At < o.To; j++ {
		if len(during) < 3 {
			during = append(during, w.notes[j].Words)
		}
	}
	if n := j - k; n > 3 {
		during = append(during, fmt.Sprintf("and %d more", n-3))
	}
	out := "cause: " + before
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
	c.row(y+2, clusterRowH-4, 2*len(s.Outages)+1, "writes")
	for _, o := range s.Outages {
		ok(from, o.From)
		from = o.To
	}
	ok(from, c.span)
	c.endRow()
	c.row(y, clusterRowH, len(s.Outages), "writes failed")
	for k, o := range s.Outages {
		cls, what := "wf", "writes failed"
		if k == longest {
			cls, what = "wf wl", "LONGEST OUTAGE: writes failed"
		}
		c.band(o.From, o.To, y, clusterRowH, cls, fmt.Sprintf("%s %s (%s, %s): %s", what, c.between(o.From, o.To), o.Length(), plural(o.Writes, "write"), w.cause(o)))
	}
	c.endRow()
	semiAt := func(k int) time.Duration { return w.semi[k].At }
	for _, g := range c.groups(len(w.semi), semiAt) {
		m := w.semi[g[0]]
		cls := "sf"
		if m.Kind == fence.KindNodeRecovered {
			cls = "sr"
		}
		fmt.Fprintf(c.b, `<path d="M%s %dV%d" class="%s" data-t="%s"><title>%s</title></path>`+"\n", sec(m.At), y-1, y+clusterRowH+1, cls, sec(m.At), esc(timeline.Clock(c.r.tl.Start, m.At)+" "+m.Title+c.more(g, semiAt)))
	}
	lossAt := func(k int) time.Duration { return w.losses[k].At }
	for _, g := range c.groups(len(w.losses), lossAt) {
		m := w.losses[g[0]]
		fmt.Fprintf(c.b, `<path d="M%s %dV%d" class="lw" data-t="%s"><title>%s</title></path>`+"\n", sec(m.At), y-3, y+clusterRowH+3, sec(m.At), esc(m.Title+c.more(g, lossAt)))
	}
}

// writesLabelH is the line under the writes row that its labels sit on.
const writesLabelH = 12

// lossLabels writes, on the line under the writes row, the longest outage's length at its
// start and the count each failover or merge lost at its time: in time order, each right of
// its time (left of it at the plot's right edge), labels that would overlap joined into one.
// They move with the zoom (data-t).
func (c *chart) lossLabels() {
	w := &c.r.client
	if !w.on || w.final == nil {
		return
	}
	type item struct {
		at   time.Duration
		word string
	}
	var items []item
	o := w.final.Summary.Outage
	for _, l := range w.final.Summary.Losses {
		if o.Length() > 0 && o.From <= l.At {
			items = append(items, item{o.From, "longest outage " + o.Length().String()})
			o = repl.Outage{}
		}
		if l.Count > 0 {
			items = append(items, item{l.At, plural(l.Count, "write") + " lost"})
		}
	}
	if o.Length() > 0 {
		items = append(items, item{o.From, "longest outage " + o.Length().String()})
	}
	const charW = 6.2
	l := c.labelRow()
	y := plotY + writesY + clusterRowH + writesLabelH - 2
	for k := 0; k < len(items); {
		word := items[k].word
		j := k + 1
		for ; j < len(items); j++ {
			_, left, _ := labelPlace(c.x(items[j].at), 0)
			_, first, _ := labelPlace(c.x(items[k].at), float64(utf8.RuneCountInString(word))*charW)
			if left >= first+float64(utf8.RuneCountInString(word))*charW+6 {
				break
			}
			word += " · " + items[j].word
		}
		l.text(items[k].at, y, "ll", word, "", charW)
		k = j
	}
}

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
