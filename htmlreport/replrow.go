package htmlreport

import (
	"fmt"
	"strings"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/repl"
)

// replTrack is what each lane's replication row shows of a timeline that says something of
// replication: its stream over time (late by its lag, applying late, frozen, cut by a
// partition, its replicator stopped), from the timeline's replication events as the replay
// applied them, and at each failover the ranking the manager promoted by (each node's stored
// position, its lag, or why it was no candidate). All of it is read off the events the replay
// tells its observers.
type replTrack struct {
	on       bool               // the timeline says something of replication: the lanes have the row
	streams  [][]change[stream] // per node
	rankings []ranking
}

// stream is a node's replication stream as its timeline's events left it.
type stream struct {
	Lag, ApplyLag time.Duration
	Frozen        bool // NODE link freeze
	Cut           bool // a partition cuts it from its source
	CutFrom       int  // that source, while Cut
	Stopped       bool // NODE replicator stop
}

// ranking is the ranking of one failover (a promotion) or of a master failed with no
// candidate by the ranking: every node's standing, ranked (repl.Rank).
type ranking struct {
	At        time.Duration
	Promoted  int // -1: no candidate
	Standings []repl.Standing
	Title     string
}

func newReplTrack(r *Recorder) replTrack {
	if r.tl.Repl == nil {
		return replTrack{}
	}
	t := replTrack{on: true, streams: make([][]change[stream], len(r.nodes))}
	for i := range t.streams {
		t.streams[i] = []change[stream]{{}}
	}
	return t
}

// replEvent keeps what the replication rows need of an event.
func (r *Recorder) replEvent(ev act.Event, desc func() string) {
	t := &r.rp
	if !t.on {
		return
	}
	switch ev := ev.(type) {
	case *act.Replicated:
		n := repl.EventNode(ev.Input)
		s := t.streams[n][len(t.streams[n])-1].V
		switch in := ev.Input.(type) {
		case repl.SetLag:
			s.Lag = in.Lag
		case repl.SetApplyLag:
			s.ApplyLag = in.Lag
		case repl.SetStream:
			s.Frozen = in.Frozen
		case repl.SetReplicator:
			s.Stopped = !in.Running
		}
		t.streams[n] = set(t.streams[n], ev.At, s, desc())
	case *repl.StreamCut:
		if ev.Node < len(t.streams) {
			s := t.streams[ev.Node][len(t.streams[ev.Node])-1].V
			s.Cut, s.CutFrom = ev.Cut, 0
			if ev.Cut {
				s.CutFrom = ev.Source
			}
			t.streams[ev.Node] = set(t.streams[ev.Node], ev.At, s, desc())
		}
	case *repl.Promoted:
		// The promoted node has no source now, and a replica cut from the master it replaces
		// is repointed to it, which it reaches: neither is cut any more (the replay tells no
		// StreamCut for that: the promotion says it).
		for n := range t.streams {
			s := t.streams[n][len(t.streams[n])-1].V
			if s.Cut && (n == ev.Node || s.CutFrom == ev.From) {
				s.Cut, s.CutFrom = false, 0
				t.streams[n] = set(t.streams[n], ev.At, s, desc())
			}
		}
		if len(ev.Ranking) > 0 {
			t.rankings = append(t.rankings, ranking{At: ev.At, Promoted: ev.Node, Standings: repl.Rank(ev.Ranking), Title: desc()})
		}
	case *repl.Unranked:
		t.rankings = append(t.rankings, ranking{At: ev.At, Promoted: -1, Standings: repl.Rank(ev.Standings), Title: desc()})
	}
}

// words says what a stream does, or "" for a stream that stores and applies each commit at
// once.
func (s stream) words() string {
	var w []string
	if s.Stopped {
		w = append(w, "replicator stopped: stores and applies nothing, no candidate")
	}
	if s.Frozen {
		w = append(w, "link frozen: stores nothing new, its replicator runs (still a candidate)")
	}
	if s.Cut {
		w = append(w, "stream cut by the partition: stores nothing new from its source")
	}
	if s.Lag > 0 {
		w = append(w, fmt.Sprintf("stream %s late: stores each commit %s after the master made it", s.Lag, s.Lag))
	}
	if s.ApplyLag > 0 {
		w = append(w, fmt.Sprintf("applies each position %s after storing it", s.ApplyLag))
	}
	return strings.Join(w, "; ")
}

// class is the colour of a stream's band: the worst of what it does.
func (s stream) class() string {
	switch {
	case s.Stopped:
		return "rs"
	case s.Frozen || s.Cut:
		return "rf"
	}
	return "rg"
}

// Its row in a lane, under the alarms.
const (
	replH = 10
	replY = alarmY + alarmH + rowGap
)

// laneH is the height of a lane: with the replication row when the timeline has one.
func (c *chart) laneH() int {
	if c.r.rp.on {
		return replY + replH
	}
	return laneH
}

// replLane writes node i's stream over time.
func (c *chart) replLane(i, top int) {
	t := &c.r.rp
	if !t.on {
		return
	}
	name := c.r.names[i]
	cs := t.streams[i]
	c.row(top+replY, replH, len(cs), name+" replication")
	for k, ch := range cs {
		w := ch.V.words()
		if w == "" {
			continue
		}
		b := until(c, cs, k)
		c.band(ch.At, b, top+replY, replH, ch.V.class(), fmt.Sprintf("%s %s: %s (%s)", name, c.between(ch.At, b), w, ch.Why))
	}
	c.endRow()
}

// replLabels writes the ranking at each failover on each node's replication row: the
// promoted node's "1st", each candidate's stored position and lag, each excluded node's
// reason; titled with the promotion in the event log's words. They move with the zoom.
func (c *chart) replLabels() {
	t := &c.r.rp
	if !t.on {
		return
	}
	rows := make([]*labelRow, len(c.r.nodes))
	for i := range rows {
		rows[i] = c.labelRow()
	}
	at := func(k int) time.Duration { return t.rankings[k].At }
	for _, g := range c.groups(len(t.rankings), at) {
		rk := t.rankings[g[0]]
		place := 0
		for _, s := range rk.Standings {
			if s.Node >= len(rows) {
				continue // a witness has no lane
			}
			top := c.lanesY() + s.Node*(c.laneH()+laneGap)
			rows[s.Node].text(rk.At, plotY+top+replY+replH-1, "rk", standingLabel(s, &place), rk.Title+c.more(g, at), 5.6)
		}
	}
}

// standingLabel is a node's standing in a ranking, as its label says it: "1st: stored 84401,
// lag 4.99s"; "not-eligible" for a node that was no candidate. place counts the candidates.
func standingLabel(s repl.Standing, place *int) string {
	switch s.Excluded {
	case repl.Candidate:
	case repl.NotEligible:
		return "not-eligible"
	default:
		return fmt.Sprintf("%s (stored %d)", s.Excluded, s.Stored)
	}
	*place++
	w := fmt.Sprintf("%s: stored %d", ordinal(*place), s.Stored)
	if s.Lag > 0 {
		w += ", lag " + s.Lag.String()
	}
	return w
}

func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return fmt.Sprintf("%dth", n)
	case n%10 == 1:
		return fmt.Sprintf("%dst", n)
	case n%10 == 2:
		return fmt.Sprintf("%dnd", n)
	case n%10 == 3:
		return fmt.Sprintf("%drd", n)
	}
	return fmt.Sprintf("%dth", n)
}

// replCSS styles the replication rows.
const replCSS = `.rg{fill:#fdd49e}.rf{fill:#4292c6}.rs{fill:#252525}.rk{fill:#08306b;font-size:10px}`
