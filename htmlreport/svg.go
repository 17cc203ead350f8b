package htmlreport

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// The chart's geometry, in CSS pixels. The plot is a nested svg whose horizontal unit is the
// second of virtual time (its viewBox spans the axis), so that a time's x is the time itself
// and zooming is a change of viewBox; its vertical unit is the pixel.
const (
	chartW = 1500
	labelW = 170 // the lane and row names, left of the plot
	plotW  = chartW - labelW - 20
	titleH = 26 // the title line
	axisH  = 22 // the axis's labels, above the plot
	plotY  = titleH + axisH
	rowGap = 3

	clusterRowH = 14
	stateH      = 14
	probeH      = 8
	faultH      = 10
	serviceH    = 10
	managerH    = 5
	alarmH      = 34
	laneGap     = 14
	legendH     = 112 // without the writes' line
)

// The rows of a lane, as offsets from its top.
const (
	stateY   = 0
	probeY   = stateY + stateH + rowGap
	faultY   = probeY + probeH + rowGap
	serviceY = faultY + faultH + rowGap
	managerY = serviceY + serviceH + 1
	alarmY   = managerY + managerH + rowGap
	laneH    = alarmY + alarmH
)

// The cluster's rows above the lanes, as offsets from the plot's top: the labels of the
// failovers, then the master, the coordinator and the policy, and with a workload the writes.
const (
	decisionY = 0
	masterY   = decisionY + clusterRowH + rowGap
	coordY    = masterY + clusterRowH + rowGap
	policyY   = coordY + clusterRowH + rowGap
	writesY   = policyY + clusterRowH + rowGap + 2 // only with a workload
)

// lanesY is where the lanes start, under the cluster's rows.
// With the managers' lanes (Recorder.Managers), they come first, and the nodes' after them.
func (c *chart) lanesY() int { return c.clusterH() + c.managersH() }

// clusterH is where the rows above the lanes end.
func (c *chart) clusterH() int {
	if c.r.group.on {
		return c.groupY() + c.groupH() - rowGap - 2 + laneGap
	}
	if c.r.client.on {
		return writesY + clusterRowH + writesLabelH + laneGap
	}
	return policyY + clusterRowH + laneGap
}

// chart writes the picture of a run as SVG elements.
type chart struct {
	r     *Recorder
	b     *bufio.Writer // where the chart goes, as it is drawn
	span  time.Duration // the axis runs from 0 to span
	plotH int
	thin  *thinRow // the row being drawn, when it has more spans than its share; nil if not
}

// sec writes virtual time d in seconds, to the millisecond: a coordinate of the plot.
func sec(d time.Duration) string {
	ms := d.Round(time.Millisecond).Milliseconds()
	s := strconv.FormatInt(ms/1000, 10)
	if f := ms % 1000; f != 0 {
		if f < 0 {
			f = -f
		}
		s += trimZeros(fmt.Sprintf(".%03d", f))
	}
	return s
}

func trimZeros(s string) string {
	for len(s) > 0 && s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	return s
}

// clock writes virtual time d as the event log does.
func (c *chart) clock(d time.Duration) string { return timeline.Clock(c.r.tl.Start, d) }

// between writes "from A to B" of a span of a row.
func (c *chart) between(a, b time.Duration) string {
	return "from " + c.clock(a) + " to " + c.clock(b)
}

// x returns the outer x of virtual time d at the whole run's zoom.
func (c *chart) x(d time.Duration) float64 {
	return labelW + float64(d)/float64(c.span)*plotW
}

// minW is the narrowest a band is drawn: one pixel at the whole run's zoom.
func (c *chart) minW() time.Duration { return max(c.span/plotW, time.Millisecond) }

// band writes a rectangle of the plot from a to b, at y (from the plot's top), of class cls,
// with a hover title.
func (c *chart) band(a, b time.Duration, y, h int, cls, title string) {
	if t := c.thin; t != nil && t.y == y {
		c.thinBand(t, a, b, cls, title)
		return
	}
	c.drawBand(a, b, y, h, cls, title)
}

// drawBand writes one band as band does, never merged.
func (c *chart) drawBand(a, b time.Duration, y, h int, cls, title string) {
	if b < a+c.minW() {
		b = a + c.minW()
	}
	fmt.Fprintf(c.b, `<rect x="%s" y="%d" width="%s" height="%d" class="%s"><title>%s</title></rect>`+"\n", sec(a), y, sec(b-a), h, cls, esc(title))
}

func newChart(r *Recorder) *chart {
	c := &chart{r: r, span: r.end()}
	if c.span <= 0 {
		c.span = time.Second
	}
	c.plotH = c.lanesY() + len(r.nodes)*(c.laneH()+laneGap)
	return c
}

// height is the whole chart's height.
func (c *chart) height() int { return plotY + c.plotH + c.legendH() }

// write writes the chart: one svg element, self-contained. The page's CSS makes it as wide
// as the window (its viewBox scales); the chart alone keeps its size in pixels.
func (c *chart) write(w io.Writer, standalone bool) error {
	if bw, ok := w.(*bufio.Writer); ok {
		c.b = bw
	} else {
		c.b = bufio.NewWriterSize(w, 64<<10)
	}
	r := c.r
	ns := ""
	if standalone {
		ns = ` xmlns="http://www.w3.org/2000/svg"`
	}
	base := r.tl.Start.Unix()
	_, off := r.tl.Start.Zone()
	fmt.Fprintf(c.b, `<svg%s id="chart" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11" data-span="%s" data-base="%d" data-plotx="%d" data-plotw="%d">`+"\n",
		ns, chartW, c.height(), chartW, c.height(), sec(c.span), base+int64(off), labelW, plotW)
	css := chartCSS
	if r.group.on {
		css += groupCSS
	}
	if r.rp.on {
		css += replCSS
	}
	if len(r.managers) > 0 {
		css += managersCSS
	}
	c.b.WriteString("<style>" + css + "</style>\n")
	fmt.Fprintf(c.b, `<text x="8" y="17" font-size="14" font-weight="bold">%s</text>`+"\n", esc(c.heading()))
	c.axis()
	c.labels()
	fmt.Fprintf(c.b, `<svg id="plot" x="%d" y="%d" width="%d" height="%d" viewBox="0 0 %s %d" preserveAspectRatio="none">`+"\n", labelW, plotY, plotW, c.plotH, sec(c.span), c.plotH)
	c.clusterRows()
	c.writesRow()
	c.groupRows()
	c.managerRows()
	probes := r.probes()
	for i := range r.nodes {
		top := c.lanesY() + i*(c.laneH()+laneGap)
		c.lane(i, top, probes[i])
		// A writer that failed (a full disk, a signal) stops the drawing here.
		if err := c.b.Flush(); err != nil {
			return err
		}
	}
	c.marks()
	c.endRow()
	c.b.WriteString("</svg>\n")
	c.decisionLabels()
	c.clusterLabels()
	c.lossLabels()
	c.replLabels()
	c.legend()
	c.b.WriteString("</svg>\n")
	return c.b.Flush()
}

// heading is the chart's title: the timeline, its cluster and span.
func (c *chart) heading() string {
	r := c.r
	return fmt.Sprintf("%s: %d nodes, %s to %s", r.tl.File, len(r.nodes), c.clock(0), c.clock(c.span))
}

// labels writes the names of the rows and lanes, left of the plot, and each lane's group.
func (c *chart) labels() {
	row := func(y, h int, name string) {
		fmt.Fprintf(c.b, `<text x="%d" y="%d" text-anchor="end" class="rl">%s</text>`+"\n", labelW-6, plotY+y+h/2+4, name)
	}
	row(decisionY, clusterRowH, "failovers")
	row(masterY, clusterRowH, "master")
	row(coordY, clusterRowH, "coordinator")
	row(policyY, clusterRowH, "policy")
	if c.r.client.on {
		row(writesY, clusterRowH, "writes")
	}
	c.groupLabels(row)
	c.managerLabels(row)
	for i, n := range c.r.tl.Nodes {
		top := c.lanesY() + i*(c.laneH()+laneGap)
		fmt.Fprintf(c.b, `<g class="lane" data-node="%s"><rect x="2" y="%d" width="%d" height="%d" class="lb"/>`, esc(n.Name), plotY+top-4, chartW-4, c.laneH()+8)
		fmt.Fprintf(c.b, `<text x="8" y="%d" font-size="13" font-weight="bold">%s</text><text x="8" y="%d" class="rl">%s</text>`+"\n", plotY+top+12, esc(shortName(n.Name)), plotY+top+26, n.Role)
		row(top+stateY, stateH, "state")
		row(top+probeY, probeH, "probes")
		row(top+faultY, faultH, "faults")
		row(top+serviceY, serviceH+managerH, "service")
		row(top+alarmY, alarmH, "alarms")
		if c.r.rp.on {
			row(top+replY, replH, "replication")
		}
		c.b.WriteString("</g>\n")
	}
}

// clusterRows writes the master, the coordinator and the policy over time.
func (c *chart) clusterRows() {
	r := c.r
	names := r.names
	who := func(i int, none string) string {
		if i < 0 {
			return none
		}
		return names[i]
	}
	c.nodeRow(r.master, masterY, "master", func(i int) string { return who(i, "none, the cluster has no master") })
	c.nodeRow(r.coord, coordY, "coordinator", func(i int) string { return who(i, "none, no manager is up") })
	c.row(policyY, clusterRowH, len(r.policy), "policy")
	for k, ch := range r.policy {
		b := until(c, r.policy, k)
		c.band(ch.At, b, policyY, clusterRowH, fmt.Sprintf("po%d", ch.V), fmt.Sprintf("policy %s %s", ch.V, c.between(ch.At, b)))
	}
}

// nodeRow draws a cluster row whose value is a node (or -1 for none): a band a span, in the
// node's colour, titled "what: name from .. to ..".
// A change's Why, when it has one, says it instead of name's words for none.
func (c *chart) nodeRow(cs []change[int], y int, what string, name func(int) string) {
	c.row(y, clusterRowH, len(cs), what)
	for k, ch := range cs {
		b := until(c, cs, k)
		cls := "nm"
		if ch.V >= 0 {
			cls = fmt.Sprintf("n%d", ch.V%len(nodePalette))
		}
		who := name(ch.V)
		if ch.V < 0 && ch.Why != "" {
			who = ch.Why
		}
		c.band(ch.At, b, y, clusterRowH, cls, fmt.Sprintf("%s: %s %s", what, who, c.between(ch.At, b)))
	}
}

// until returns the end of the k-th span of a row: the next change, or the axis's end.
func until[T comparable](c *chart, cs []change[T], k int) time.Duration {
	if k+1 < len(cs) {
		return cs[k+1].At
	}
	return c.span
}

// lane writes node i's rows, top pixels below the plot's top.
func (c *chart) lane(i, top int, probes []probeRun) {
	r := c.r
	n := &r.nodes[i]
	name := r.names[i]
	c.row(top+stateY, stateH, len(n.state), name+" state")
	for k, ch := range n.state {
		b := until(c, n.state, k)
		if b <= ch.At && k+1 < len(n.state) {
			continue
		}
		why := ""
		if ch.Why != "" {
			why = " (" + ch.Why + ")"
		}
		c.band(ch.At, b, top+stateY, stateH, fmt.Sprintf("s%d", ch.V), fmt.Sprintf("%s %s %s%s", name, ch.V, c.between(ch.At, b), why))
	}
	c.probeRow(i, top, probes)
	c.row(top+faultY, faultH, len(n.faults), name+" faults")
	for k, ch := range n.faults {
		if ch.V.Kind == fault.Heal || (ch.V.Kind == fault.Probe && ch.V.Condition == "ok") {
			continue // no fault; a recording's "probe ok" (watch --record) is the healthy outcome, not a fault
		}
		b := until(c, n.faults, k)
		c.band(ch.At, b, top+faultY, faultH, fmt.Sprintf("f%d", faultClass(ch.V)), fmt.Sprintf("%s fault %s %s", name, ch.V, c.between(ch.At, b)))
	}
	c.row(top+serviceY, serviceH, len(n.service), name+" service")
	for k, ch := range n.service {
		b := until(c, n.service, k)
		if b <= ch.At && k+1 < len(n.service) {
			continue
		}
		why := ""
		if ch.Why != "" {
			why = ": " + ch.Why
		}
		c.band(ch.At, b, top+serviceY, serviceH, fmt.Sprintf("v%d", ch.V), fmt.Sprintf("%s %s %s%s", name, serviceWords[ch.V], c.between(ch.At, b), why))
	}
	c.row(top+managerY, managerH, len(n.manager), name+" manager")
	for k, ch := range n.manager {
		if ch.V {
			continue
		}
		b := until(c, n.manager, k)
		c.band(ch.At, b, top+managerY, managerH, "md", fmt.Sprintf("%s manager down %s: no probes", name, c.between(ch.At, b)))
	}
	c.groupLane(i, top)
	if len(n.alarms) > c.rowShare() {
		// Too many to draw each as a staircase: each a band over its span, merged when narrow.
		c.row(top+alarmY+alarmH-8, 8, len(n.alarms), name+" alarms")
		for k := range n.alarms {
			a := &n.alarms[k]
			end := a.ended
			if end == statemap.Never {
				end = c.span
			}
			c.band(a.raised, end, top+alarmY+alarmH-8, 8, fmt.Sprintf("nv s%d", c.probeState(a.cond)), fmt.Sprintf("%s alarm %s (threshold %d, action %s) %s", name, a.cond, a.threshold, a.action, c.between(a.raised, end)))
		}
		c.endRow()
	} else {
		for k := range n.alarms {
			c.alarm(name, &n.alarms[k], top+alarmY)
		}
	}
	c.replLane(i, top)
	c.endRow()
}

var serviceWords = [...]string{
	replicaInService: "replica in service",
	masterInService:  "master in service (takes the writes)",
	failed:           "FAILED: out of service",
	shunned:          "SHUNNED: a failed master, never back by itself",
}

// probeRow writes a node's probes: each run of identical outcomes one band, from its first
// probe's start to when the probe after its last would have started.
func (c *chart) probeRow(i, top int, runs []probeRun) {
	name := c.r.names[i]
	c.row(top+probeY, probeH, len(runs), name+" probes")
	for k := 0; k < len(runs); {
		first, n := runs[k], runs[k].n
		last := runs[k]
		j := k + 1
		for ; j < len(runs) && runs[j].cond == first.cond && runs[j].first == last.next(); j++ {
			last = runs[j]
			n += runs[j].n
		}
		k = j
		b := min(last.next(), c.span)
		each := ", each at once"
		if first.took > 0 {
			each = ", each after " + first.took.String()
		}
		if c.r.counted != nil {
			each = " (live: the outcomes as they counted)"
		}
		title := fmt.Sprintf("%s probes %s to %s: %d × %s%s", name, c.clock(first.first), c.clock(last.last()+last.took), n, first.cond, each)
		if n == 1 {
			title = fmt.Sprintf("%s probe at %s: %s%s", name, c.clock(first.first), first.cond, each)
		}
		c.band(first.first, b, top+probeY, probeH, fmt.Sprintf("s%d", c.probeState(first.cond)), title)
	}
}

// probeState is the state a probe outcome shows: its colour.
func (c *chart) probeState(cond statemap.Condition) statemap.State {
	if cond == statemap.OK {
		return statemap.Online
	}
	if cond == statemap.Undefined {
		return statemap.Unknown
	}
	return c.r.m.Rule(cond).State
}

// alarm writes one alarm as a staircase climbing a tick at a time towards its threshold, the
// dashed line at the row's top; an alarm that never expires as a flat band.
func (c *chart) alarm(name string, a *alarmTrack, y int) {
	end := a.ended
	how := a.end
	if end == statemap.Never {
		end = c.span
		how = "still active at " + c.clock(end)
	}
	title := fmt.Sprintf("%s alarm %s (threshold %d, action %s): raised %s; %s", name, a.cond, a.threshold, a.action, c.clock(a.raised), how)
	if a.waiting != statemap.Never {
		title += fmt.Sprintf("; expired at %s with no manager up to fence it", c.clock(a.waiting))
	}
	cls := fmt.Sprintf("a%d", c.probeState(a.cond))
	switch {
	case a.threshold < 0:
		c.band(a.raised, end, y+alarmH-8, 8, fmt.Sprintf("nv s%d", c.probeState(a.cond)), title+"; never expires")
		return
	case a.threshold == 0:
		fmt.Fprintf(c.b, `<path d="M%s %dV%d" class="al %s"><title>%s</title></path>`+"\n", sec(a.raised), y+alarmH, y+2, cls, esc(title))
		return
	}
	first, lastTick, steps := alarmTicks(a.raised, end, a.endsOnTick())
	top := y + 2
	h := alarmH - 2
	level := func(n int64) string {
		return strconv.FormatFloat(float64(y+alarmH)-float64(h)*float64(min(n, int64(a.threshold)))/float64(a.threshold), 'f', 1, 64)
	}
	var d bytes.Buffer
	fmt.Fprintf(&d, "M%s %d", sec(a.raised), y+alarmH)
	if steps > 0 && steps <= 64 {
		for k := int64(0); k < steps; k++ {
			t := first + time.Duration(k)*statemap.TickInterval
			fmt.Fprintf(&d, "H%sV%s", sec(t), level(k+1))
		}
	} else if steps > 0 {
		fmt.Fprintf(&d, "L%s %s", sec(lastTick), level(steps))
	}
	fmt.Fprintf(&d, "H%s", sec(end))
	fmt.Fprintf(c.b, `<path d="%s" class="al %s"><title>%s</title></path>`+"\n", d.String(), cls, esc(title))
	fmt.Fprintf(c.b, `<path d="M%s %dH%s" class="th"/>`+"\n", sec(a.raised), top, sec(max(end, a.raised+c.minW())))
}

// endsOnTick reports whether the alarm's end is a tick that counts: it expired at a tick, or
// is still active at the end of the run. An alarm that waited for a coordinator expires when a
// manager comes up, before that instant's tick; a probe heals or clears one before it too.
func (a *alarmTrack) endsOnTick() bool {
	return a.ended == statemap.Never || (a.expired && a.waiting == statemap.Never)
}

// alarmTicks returns the timekeeper's ticks that count for an alarm raised at raised and ended
// at end: the first and the last, and how many. They are the multiples of the tick interval
// from the raise (a probe counts before the tick of its instant; t=0 is no tick) up to the
// end, the end's own tick included when atEnd (alarmTrack.endsOnTick).
func alarmTicks(raised, end time.Duration, atEnd bool) (first, last time.Duration, n int64) {
	first = (raised + statemap.TickInterval - 1) / statemap.TickInterval * statemap.TickInterval
	if first == 0 {
		first = statemap.TickInterval
	}
	last = end / statemap.TickInterval * statemap.TickInterval
	if last == end && !atEnd {
		last -= statemap.TickInterval
	}
	if last < first {
		return first, last, 0
	}
	return first, last, int64((last-first)/statemap.TickInterval) + 1
}

// marks writes the fencing decisions: a failover as a line across the whole plot, a node
// failed or recovered as a line across its lane. A kind of mark with more than a row's share
// has the marks close together merged into one.
func (c *chart) marks() {
	c.endRow()
	for _, ms := range c.markRows() {
		at := func(k int) time.Duration { return ms[k].At }
		for _, g := range c.groups(len(ms), at) {
			m := ms[g[0]]
			title := esc(m.Title + c.more(g, at))
			top := c.lanesY() + m.Node*(c.laneH()+laneGap)
			switch m.Kind {
			case fence.KindFailover, fence.KindNoCandidate:
				cls := "fo"
				if m.Kind == fence.KindNoCandidate {
					cls = "nc"
				}
				fmt.Fprintf(c.b, `<path d="M%s %dV%d" class="%s" data-t="%s"><title>%s</title></path>`+"\n", sec(m.At), masterY, c.plotH, cls, sec(m.At), title)
			case fence.KindNodeFailed:
				fmt.Fprintf(c.b, `<path d="M%s %dV%d" class="nf"><title>%s</title></path>`+"\n", sec(m.At), top, top+laneH, title)
			case fence.KindNodeRecovered:
				fmt.Fprintf(c.b, `<path d="M%s %dV%d" class="rc"><title>%s</title></path>`+"\n", sec(m.At), top+serviceY-2, top+managerY+managerH+2, title)
			}
		}
	}
}

// markRows splits the marks into what is drawn as one row: the failovers and masters failed
// with none eligible across the plot, and each node's failed and recovered marks, each in time
// order.
func (c *chart) markRows() [][]mark {
	rows := make([][]mark, 1+2*len(c.r.nodes))
	for _, m := range c.r.marks {
		k := 0
		switch m.Kind {
		case fence.KindNodeFailed:
			k = 1 + 2*m.Node
		case fence.KindNodeRecovered:
			k = 2 + 2*m.Node
		}
		rows[k] = append(rows[k], m)
	}
	return rows
}

// decisionLabels writes a word above each failover: the labels move with the zoom (data-t). A
// label that would overlap the one before it is hidden until a zoom makes room for it; one
// that would run past the plot's right edge sits left of its mark.
func (c *chart) decisionLabels() {
	fo := c.markRows()[0]
	at := func(k int) time.Duration { return fo[k].At }
	l := c.labelRow()
	for _, g := range c.groups(len(fo), at) {
		m := fo[g[0]]
		word := "failover " + c.clock(m.At)
		if m.Kind == fence.KindNoCandidate {
			word = "no master " + c.clock(m.At)
		}
		l.text(m.At, plotY+decisionY+11, "dl", word, m.Title+c.more(g, at), 6.5)
	}
}

// clusterLabels writes the name of the master and of the coordinator on their rows' bands wide
// enough for it; the labels move with the zoom (data-t).
func (c *chart) clusterLabels() {
	r := c.r
	row := func(cs []change[int], y int, none string) {
		for k, ch := range cs {
			word := none
			if ch.V >= 0 {
				word = r.names[ch.V]
			}
			if c.x(until(c, cs, k))-c.x(ch.At) < float64(len(word))*6+8 {
				continue
			}
			fmt.Fprintf(c.b, `<text x="%.1f" y="%d" class="cl" data-t="%s">%s</text>`+"\n", c.x(ch.At)+3, plotY+y+clusterRowH-3, sec(ch.At), esc(word))
		}
	}
	row(r.master, masterY, "no master")
	row(r.coord, coordY, "none")
}

// faultClass groups the faults by how they look to the checker: the colour of their band.
func faultClass(f fault.Fault) int {
	switch f.Kind {
	case fault.Refuse, fault.Reset, fault.Close:
		return 1
	case fault.Freeze, fault.Blackhole:
		return 2
	case fault.Stall, fault.Slow:
		return 3
	case fault.Error:
		return 4
	case fault.Unreachable, fault.HostDown:
		return 5
	}
	return 6
}

// nodePalette colours the master and the coordinator rows by node.
var nodePalette = [...]string{"#1f77b4", "#9467bd", "#17becf", "#8c564b", "#e377c2", "#bcbd22", "#7f7f7f", "#393b79", "#637939", "#843c39"}
