package htmlreport

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/orchcore"
	"github.com/failsim/failsim/orchestrator"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/timeline"
)

// ManagerLane is a drive.Observer that keeps one manager's run of a timeline for the managers'
// stacked lanes (failsim report --managers): the master over time as that manager's decisions
// made it, its decisions (a failover, a master failed with nobody promoted, an Orchestrator
// recovery, run or refused), Orchestrator's analysis code of the master, and, with a workload,
// the client's writes (every outage of the replication model's summary). Give one to each
// manager's replay, then to Recorder.Managers; every lane is drawn on the chart's one time
// axis, above the nodes' lanes. Its zero value is not usable: call NewManagerLane.
type ManagerLane struct {
	name     string
	names    []string
	start    time.Time
	master   []change[int]
	code     []change[orchestrator.Code] // Orchestrator's only
	orch     bool                        // told Orchestrator's events: the lane has an analysis row
	marks    []laneMark
	final    *repl.Final
	workload bool
}

// laneMark is one decision of a manager lane: drawn across it, titled in the log's words.
type laneMark struct {
	At    time.Duration
	Done  bool // a master replaced; false: a decision that replaced none
	Title string
}

// NewManagerLane returns the lane of manager name's run of tl.
func NewManagerLane(name string, tl *timeline.Timeline) *ManagerLane {
	master := -1
	for i, n := range tl.Nodes {
		if n.Role == fence.Master && master < 0 {
			master = i
		}
	}
	names := tl.Names()
	for i, n := range names {
		names[i] = shortName(n)
	}
	return &ManagerLane{
		name: name, names: names, start: tl.Start, master: []change[int]{{V: master}},
		code:     []change[orchestrator.Code]{{V: orchestrator.NoProblem}},
		workload: tl.Repl != nil && tl.Repl.Workload,
	}
}

// Event implements drive.Observer.
func (l *ManagerLane) Event(ev act.Event) {
	switch ev := ev.(type) {
	case *fence.Failover:
		l.setMaster(ev.At, ev.To, "failover")
		l.marks = append(l.marks, laneMark{At: ev.At, Done: true, Title: fmt.Sprintf("%s: failover at %s: %s failed over to %s", l.name, timeline.Clock(l.start, ev.At), l.names[ev.Node], l.names[ev.To])})
	case *fence.NoCandidate:
		l.setMaster(ev.At, -1, "failed, none promoted")
		l.marks = append(l.marks, laneMark{At: ev.At, Title: fmt.Sprintf("%s: %s failed at %s with no replica eligible", l.name, l.names[ev.Node], timeline.Clock(l.start, ev.At))})
	case *orchcore.Analysed:
		l.orch = true
		if last := l.code[len(l.code)-1]; last.V != ev.Code {
			l.code = append(l.code, change[orchestrator.Code]{At: ev.At, V: ev.Code, Why: l.names[ev.Master]})
		}
	case *orchcore.Recovered:
		l.orch = true
		if s, ok := orchcore.Describe(l.names, ev); ok {
			done := ev.Verdict == orchestrator.Runs && ev.Node >= 0
			if done {
				l.setMaster(ev.At, ev.Node, "recovery")
			}
			l.marks = append(l.marks, laneMark{At: ev.At, Done: done, Title: timeline.Clock(l.start, ev.At) + " " + s}) // s names the manager
		}
	case *repl.Final:
		f := *ev
		l.final = &f
	}
}

func (l *ManagerLane) setMaster(at time.Duration, node int, why string) {
	if last := l.master[len(l.master)-1]; last.V == node {
		return
	}
	l.master = append(l.master, change[int]{At: at, V: node, Why: why})
}

// Managers gives the recorder the managers' lanes to draw, in order, above the nodes' lanes.
func (r *Recorder) Managers(lanes ...*ManagerLane) { r.managers = lanes }

// The rows of a manager lane, as offsets from its top: the master, Orchestrator's analysis
// code (an Orchestrator lane only), the writes (with a workload).
const (
	mlMasterY = 16
	mlRowH    = 12
)

// managerRows is the number of rows of lane l.
func (l *ManagerLane) rows() int {
	n := 1
	if l.orch {
		n++
	}
	if l.workload {
		n++
	}
	return n
}

// managerLaneH is the height of lane l.
func managerLaneH(l *ManagerLane) int { return mlMasterY + l.rows()*(mlRowH+rowGap) }

// managersH is the height of the managers' block: every lane and the gap after each.
func (c *chart) managersH() int {
	h := 0
	for _, l := range c.r.managers {
		h += managerLaneH(l) + laneGap
	}
	return h
}

// managersY is where the managers' block starts, under the cluster's rows.
func (c *chart) managersY() int { return c.clusterH() }

// codeClass is the colour of an analysis code: none for no problem, amber for an unreachable
// master, red for a dead one, grey for the rest (a replica's problem).
func codeClass(k orchestrator.Code) string {
	switch k {
	case orchestrator.NoProblem:
		return "oc0"
	case orchestrator.UnreachableMaster, orchestrator.UnreachableMasterWithLaggingReplicas:
		return "oc1"
	case orchestrator.DeadMaster, orchestrator.DeadMasterAndSomeReplicas, orchestrator.DeadMasterAndReplicas, orchestrator.DeadMasterWithoutReplicas:
		return "oc2"
	}
	return "oc3"
}

// managersCSS styles the managers' lanes; a chart without them leaves it out.
const managersCSS = `.oc0{fill:#e8f5e9}.oc1{fill:#ff7f0e}.oc2{fill:#d62728}.oc3{fill:#9e9e9e}.mlb{fill:#eef2fb}` +
	`.mr{stroke:#000;stroke-width:2}.mn{stroke:#d62728;stroke-width:2;stroke-dasharray:4 2}`

// managerLabels writes each manager lane's box, name and row names.
func (c *chart) managerLabels(row func(y, h int, name string)) {
	y := c.managersY()
	for _, l := range c.r.managers {
		h := managerLaneH(l)
		fmt.Fprintf(c.b, `<g class="mlane" data-manager="%s"><rect x="2" y="%d" width="%d" height="%d" class="mlb"/>`, esc(l.name), plotY+y-4, chartW-4, h+4)
		fmt.Fprintf(c.b, `<text x="8" y="%d" font-size="13" font-weight="bold">%s</text>`+"\n", plotY+y+10, esc(l.name))
		ry := y + mlMasterY
		row(ry, mlRowH, "master")
		if l.orch {
			ry += mlRowH + rowGap
			row(ry, mlRowH, "analysis")
		}
		if l.workload {
			ry += mlRowH + rowGap
			row(ry, mlRowH, "writes")
		}
		c.b.WriteString("</g>\n")
		y += h + laneGap
	}
}

// managerRows draws each manager lane's rows and decisions.
func (c *chart) managerRows() {
	y := c.managersY()
	for _, l := range c.r.managers {
		ry := y + mlMasterY
		c.managerMaster(l, ry)
		if l.orch {
			ry += mlRowH + rowGap
			c.row(ry, mlRowH, len(l.code), l.name+" analysis")
			for k, ch := range l.code {
				b := until(c, l.code, k)
				c.band(ch.At, b, ry, mlRowH, codeClass(ch.V), fmt.Sprintf("%s: %s %s %s", l.name, ch.Why, ch.V, c.between(ch.At, b)))
			}
		}
		if l.workload {
			ry += mlRowH + rowGap
			c.managerWrites(l, ry)
		}
		c.endRow()
		for _, m := range l.marks {
			cls := "mn"
			if m.Done {
				cls = "mr"
			}
			fmt.Fprintf(c.b, `<path d="M%s %dV%d" class="%s" data-t="%s"><title>%s</title></path>`+"\n", sec(m.At), y+mlMasterY-3, ry+mlRowH+2, cls, sec(m.At), esc(m.Title))
		}
		y += managerLaneH(l) + laneGap
	}
}

// managerMaster draws a lane's master row.
func (c *chart) managerMaster(l *ManagerLane, y int) {
	c.row(y, mlRowH, len(l.master), l.name+" master")
	for k, ch := range l.master {
		b := until(c, l.master, k)
		cls, who := "nm", "none"
		if ch.V >= 0 {
			cls, who = fmt.Sprintf("n%d", ch.V%len(nodePalette)), l.names[ch.V]
		}
		c.band(ch.At, b, y, mlRowH, cls, fmt.Sprintf("%s: master %s %s", l.name, who, c.between(ch.At, b)))
	}
}

// managerWrites draws a lane's writes: acknowledged over the run, each outage over it.
func (c *chart) managerWrites(l *ManagerLane, y int) {
	n := 1
	if l.final != nil {
		n += len(l.final.Summary.Outages)
	}
	c.row(y, mlRowH, n, l.name+" writes")
	if l.final == nil {
		c.band(0, c.span, y, mlRowH, "mx", l.name+": the run stopped before its end: no summary of the writes")
		return
	}
	s := l.final.Summary
	c.band(0, c.span, y, mlRowH, "wk", fmt.Sprintf("%s: %d writes offered, %d acknowledged, %d failed; %d acknowledged lost", l.name, s.Offered, s.Acknowledged, s.Failed, s.Lost))
	for _, o := range s.Outages {
		c.band(o.From, o.To, y, mlRowH, "wf", fmt.Sprintf("%s: no write acknowledged %s (%d writes failed)", l.name, c.between(o.From, o.To), o.Writes))
	}
}
