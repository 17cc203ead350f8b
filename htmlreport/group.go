package htmlreport

import (
	"fmt"
	"strings"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/narrate"
	"github.com/failsim/failsim/statemap"
)

// groupTrack is what the group's rows show of a run whose timeline has a witness, a partition
// or a host event: the network's partitions, the primary views and the split-brain windows,
// and in each node's lane its host down and its FAILSAFE-SHUN. All of it is read off the
// events the replay tells its observers.
type groupTrack struct {
	on       bool                 // the chart has the group's rows
	network  []change[string]     // V: the sides, "a | b c"; "" for one network
	primary  []change[string]     // V: the primary views, "db2 db3"; "" for none
	quorum   string               // the words of the open instant's last quorum check
	windows  []window             // the split-brain windows, in time order
	hostDown [][]change[bool]     // per node: its host down
	shuns    []mark               // FAILSAFE-SHUNs: Node is the node shunned
	copies   [][]change[copyView] // while the copies are forked: per row, the k-th side's copy
}

// copyView is one side's copy of the cluster state at an instant: the zero value while the
// copies are one.
type copyView struct {
	On      bool
	Copy    int    // its number
	Members string // the database nodes whose managers hold it
	Master  int    // the master in service in it; -1 for none
}

// groupInstant keeps each side's copy of the cluster state as it stands after the instant.
func (r *Recorder) groupInstant(at time.Duration, e fence.View) {
	g := &r.group
	if !g.on {
		return // no partition, host event or witness yet: one copy, nothing to draw
	}
	var order []int
	members := map[int][]string{}
	master := map[int]int{}
	for i := range r.nodes {
		c := e.CopyOf(i)
		if _, ok := members[c]; !ok {
			order = append(order, c)
			master[c] = e.MasterOf(i)
		}
		members[c] = append(members[c], r.names[i])
	}
	views := make([]copyView, max(len(g.copies), len(order)))
	if len(order) > 1 {
		for k, c := range order {
			views[k] = copyView{On: true, Copy: c, Members: strings.Join(members[c], " "), Master: master[c]}
		}
	}
	for k, v := range views {
		if k == len(g.copies) {
			if len(order) < 2 {
				break
			}
			g.copies = append(g.copies, []change[copyView]{{}})
		}
		g.copies[k] = set(g.copies[k], at, v, "")
	}
}

// window is one split-brain window: from its opening to its close (statemap.Never while open).
type window struct {
	From, To time.Duration
	Writable string
}

func newGroupTrack(r *Recorder) groupTrack {
	g := groupTrack{on: len(r.tl.Witnesses) > 0, network: []change[string]{{}}, primary: []change[string]{{V: allMembers(r.names)}}}
	g.hostDown = make([][]change[bool], len(r.nodes))
	for i := range g.hostDown {
		g.hostDown[i] = []change[bool]{{}}
	}
	return g
}

// allMembers is the one view of a cluster whose managers all hear each other: every member.
func allMembers(names []string) string { return strings.Join(names, " ") }

// groupEvent keeps what the group's rows need of an event.
func (r *Recorder) groupEvent(ev act.Event, desc func() string) {
	g := &r.group
	switch ev := ev.(type) {
	case *cluster.Partitioned:
		g.on = true
		v := ""
		if ev.Segments != nil {
			v = narrate.Segments(r.names, ev.Segments)
		}
		if ev.ManagersOnly {
			v = "managers: " + v
		}
		g.network = set(g.network, ev.At, v, desc())
	case *cluster.HostChanged:
		g.on = true
		if ev.Member < len(g.hostDown) { // a witness has no lane
			g.hostDown[ev.Member] = set(g.hostDown[ev.Member], ev.At, ev.Down, desc())
		}
	case *cluster.QuorumChanged:
		if g.quorum != "" {
			g.quorum += "; "
		}
		g.quorum += narrate.Quorum(r.names, ev.Digest)
	case *cluster.GroupState:
		views := make([]string, len(ev.Primary))
		for k, v := range ev.Primary {
			views[k] = v.Names(r.names, " ")
		}
		g.primary = set(g.primary, ev.At, strings.Join(views, " / "), g.quorum)
		g.quorum = ""
	case *cluster.SplitBrain:
		w := ev.Writable.Names(r.names, " ")
		if ev.Open {
			g.windows = append(g.windows, window{From: ev.At, To: statemap.Never, Writable: w})
			return
		}
		for k := len(g.windows) - 1; k >= 0; k-- {
			if g.windows[k].To == statemap.Never && g.windows[k].From == ev.From {
				g.windows[k].To, g.windows[k].Writable = ev.At, w
				return
			}
		}
		g.windows = append(g.windows, window{From: ev.From, To: ev.At, Writable: w})
	case *cluster.SplitBrainWidened:
		// A window still open at the end names every node writable in it, as its close would.
		for k := len(g.windows) - 1; k >= 0; k-- {
			if g.windows[k].To == statemap.Never && g.windows[k].From == ev.From {
				g.windows[k].Writable = ev.Writable.Names(r.names, " ")
				return
			}
		}
	case *fence.FailsafeShunned:
		g.shuns = append(g.shuns, mark{At: ev.At, Node: ev.Node, Title: desc()})
	}
}

// The group's rows, as offsets from their top (groupY).
const (
	networkOff = 0
	primaryOff = networkOff + clusterRowH + rowGap
	splitOff   = primaryOff + clusterRowH + rowGap
	copiesOff  = splitOff + clusterRowH + rowGap
)

// groupH is the height of the group's rows: three, and one per side's copy when they fork.
func (c *chart) groupH() int { return copiesOff + len(c.r.group.copies)*(clusterRowH+rowGap) + 2 }

// groupY is where the group's rows start, under the cluster's other rows.
func (c *chart) groupY() int {
	if c.r.client.on {
		return writesY + clusterRowH + writesLabelH + rowGap + 2
	}
	return policyY + clusterRowH + rowGap + 2
}

// groupLabels writes the names of the group's rows.
func (c *chart) groupLabels(row func(y, h int, name string)) {
	if !c.r.group.on {
		return
	}
	y := c.groupY()
	row(y+networkOff, clusterRowH, "network")
	row(y+primaryOff, clusterRowH, "primary")
	row(y+splitOff, clusterRowH, "split brain")
	for k := range c.r.group.copies {
		row(y+copiesOff+k*(clusterRowH+rowGap), clusterRowH, fmt.Sprintf("side %d's copy", k+1))
	}
}

// groupRows writes the network's partitions, the primary views and the split-brain windows.
func (c *chart) groupRows() {
	g := &c.r.group
	if !g.on {
		return
	}
	y := c.groupY()
	c.row(y+networkOff, clusterRowH, len(g.network), "network")
	for k, ch := range g.network {
		if ch.V == "" {
			continue
		}
		b := until(c, g.network, k)
		c.band(ch.At, b, y+networkOff, clusterRowH, "gp", fmt.Sprintf("partition %s %s", ch.V, c.between(ch.At, b)))
	}
	c.row(y+primaryOff, clusterRowH, len(g.primary), "primary")
	for k, ch := range g.primary {
		b := until(c, g.primary, k)
		if b <= ch.At && k+1 < len(g.primary) {
			continue
		}
		why := ""
		if ch.Why != "" {
			why = ": " + ch.Why
		}
		if ch.V == "" {
			c.band(ch.At, b, y+primaryOff, clusterRowH, "np", fmt.Sprintf("no primary view %s%s", c.between(ch.At, b), why))
			continue
		}
		cls := "pv"
		if strings.Contains(ch.V, " / ") {
			cls = "pv2"
		}
		c.band(ch.At, b, y+primaryOff, clusterRowH, cls, fmt.Sprintf("primary view %s %s%s", ch.V, c.between(ch.At, b), why))
	}
	for k, row := range g.copies {
		c.row(y+copiesOff+k*(clusterRowH+rowGap), clusterRowH, len(row), fmt.Sprintf("side %d's copy", k+1))
		for j, ch := range row {
			if !ch.V.On {
				continue
			}
			b := until(c, row, j)
			cls, who := "nm", "no master in service"
			if ch.V.Master >= 0 {
				cls, who = fmt.Sprintf("n%d", ch.V.Master%len(nodePalette)), "master "+c.r.names[ch.V.Master]
			}
			c.band(ch.At, b, y+copiesOff+k*(clusterRowH+rowGap), clusterRowH, cls, fmt.Sprintf("copy %d of the cluster state, held by %s: %s %s", ch.V.Copy, ch.V.Members, who, c.between(ch.At, b)))
		}
	}
	c.endRow()
	winAt := func(k int) time.Duration { return g.windows[k].From }
	for _, gr := range c.groups(len(g.windows), winAt) {
		w := g.windows[gr[0]]
		more := c.more(gr, winAt)
		to := w.To
		if to == statemap.Never {
			to = c.span
		}
		if to == w.From {
			fmt.Fprintf(c.b, `<path d="M%s %dV%d" class="sz" data-t="%s"><title>%s</title></path>`+"\n", sec(w.From), y+splitOff, y+splitOff+clusterRowH, sec(w.From),
				esc(fmt.Sprintf("split brain at %s: %s writable at once, a zero-length window%s", c.clock(w.From), w.Writable, more)))
			continue
		}
		still := ""
		if w.To == statemap.Never {
			still = ", still open"
		}
		title := fmt.Sprintf("SPLIT BRAIN: %s writable at once %s, %s%s%s", w.Writable, c.between(w.From, to), to-w.From, still, more)
		fmt.Fprintf(c.b, `<rect x="%s" y="%d" width="%s" height="%d" class="sb" data-t="%s"><title>%s</title></rect>`+"\n", sec(w.From), y+splitOff, sec(max(to-w.From, c.minW())), clusterRowH, sec(w.From), esc(title))
	}
}

// groupLane writes node i's host down as a band over its service row and its FAILSAFE-SHUN
// as a mark.
func (c *chart) groupLane(i, top int) {
	g := &c.r.group
	if !g.on {
		return
	}
	c.row(top+serviceY, serviceH, len(g.hostDown[i]), c.r.names[i]+" host")
	for k, ch := range g.hostDown[i] {
		if !ch.V {
			continue
		}
		b := until(c, g.hostDown[i], k)
		c.band(ch.At, b, top+serviceY, serviceH, "hd", fmt.Sprintf("%s host down %s: no manager, no database", c.r.names[i], c.between(ch.At, b)))
	}
	c.endRow()
	var shuns []mark
	for _, m := range g.shuns {
		if m.Node == i {
			shuns = append(shuns, m)
		}
	}
	at := func(k int) time.Duration { return shuns[k].At }
	for _, gr := range c.groups(len(shuns), at) {
		m := shuns[gr[0]]
		fmt.Fprintf(c.b, `<path d="M%s %dV%d" class="fs" data-t="%s"><title>%s</title></path>`+"\n", sec(m.At), top+serviceY-3, top+managerY+managerH+3, sec(m.At), esc(m.Title+c.more(gr, at)))
	}
}

// groupCSS styles the group's rows.
const groupCSS = `.gp{fill:#6a3d9a}.pv{fill:#9ecae1}.pv2{fill:#fdae6b}.np{fill:#d62728;fill-opacity:.35}.sb{fill:#d62728}.sz{stroke:#d62728;stroke-width:3}.hd{fill:#006d6d;fill-opacity:.8}.fs{stroke:#5b0f0f;stroke-width:3;stroke-dasharray:2 2}`
