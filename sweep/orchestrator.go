package sweep

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/orchcore"
	"github.com/failsim/failsim/orchestrator"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/timeline"
)

// OrchAxis is one of Orchestrator's settings varied by failsim sweep --manager orchestrator: an
// orchestrator.conf.json key of whole seconds (or minutes), From to To by Step.
type OrchAxis struct {
	Key            string // as orchestrator.conf.json spells it: "InstancePollSeconds"
	From, To, Step int64
}

// orchKeys are the keys a sweep under Orchestrator may vary, each with what it sets and its
// least value (Orchestrator's own refusal, or 0).
var orchKeys = []struct {
	key   string
	least int64
	set   func(c *orchestrator.Config, v int64)
}{
	{"InstancePollSeconds", 1, func(c *orchestrator.Config, v int64) { c.InstancePoll = time.Duration(v) * time.Second }},
	{"ReasonableInstanceCheckSeconds", 0, func(c *orchestrator.Config, v int64) { c.ReasonableInstanceCheck = time.Duration(v) * time.Second }},
	{"MySQLConnectTimeoutSeconds", 0, func(c *orchestrator.Config, v int64) { c.ConnectTimeout = time.Duration(v) * time.Second }},
	{"MySQLDiscoveryReadTimeoutSeconds", 0, func(c *orchestrator.Config, v int64) { c.DiscoveryReadTimeout = time.Duration(v) * time.Second }},
	{"ReasonableReplicationLagSeconds", 0, func(c *orchestrator.Config, v int64) { c.ReasonableReplicationLag = time.Duration(v) * time.Second }},
	{"RecoveryPeriodBlockSeconds", 1, func(c *orchestrator.Config, v int64) { c.RecoveryPeriodBlock = time.Duration(v) * time.Second }},
	{"FailMasterPromotionOnLagMinutes", 0, func(c *orchestrator.Config, v int64) { c.FailOnLag = time.Duration(v) * time.Minute }},
}

// OrchKeys returns the keys a sweep under Orchestrator may vary, in order.
func OrchKeys() []string {
	out := make([]string, len(orchKeys))
	for i, k := range orchKeys {
		out[i] = k.key
	}
	return out
}

// IsOrchKey reports whether the name of a --vary NAME=FROM..TO[:STEP] is one of OrchKeys.
func IsOrchKey(s string) bool {
	name, _, _ := strings.Cut(s, "=")
	return slices.Contains(OrchKeys(), name)
}

// ParseOrchVary parses KEY=FROM..TO[:STEP], whole numbers of the key's unit.
func ParseOrchVary(s string) (OrchAxis, error) {
	name, rng, ok := strings.Cut(s, "=")
	k := slices.IndexFunc(orchKeys, func(x struct {
		key   string
		least int64
		set   func(c *orchestrator.Config, v int64)
	}) bool {
		return x.key == name
	})
	if !ok || k < 0 {
		return OrchAxis{}, fmt.Errorf("%q: want KEY=FROM..TO[:STEP] with KEY one of %s", s, strings.Join(OrchKeys(), ", "))
	}
	rng, step, hasStep := strings.Cut(rng, ":")
	from, to, ok := strings.Cut(rng, "..")
	if !ok {
		return OrchAxis{}, fmt.Errorf("%s: %q: want FROM..TO[:STEP]", name, rng)
	}
	a := OrchAxis{Key: name, Step: 1}
	var err error
	if a.From, err = strconv.ParseInt(from, 10, 64); err != nil {
		return OrchAxis{}, fmt.Errorf("%s: FROM %q: want a whole number", name, from)
	}
	if a.To, err = strconv.ParseInt(to, 10, 64); err != nil {
		return OrchAxis{}, fmt.Errorf("%s: TO %q: want a whole number", name, to)
	}
	if hasStep {
		if a.Step, err = strconv.ParseInt(step, 10, 64); err != nil || a.Step < 1 || a.Step > 86400 {
			return OrchAxis{}, fmt.Errorf("%s: STEP %q: want a whole number from 1 to 86400", name, step)
		}
	}
	switch least := orchKeys[k].least; {
	case a.From < least:
		return OrchAxis{}, fmt.Errorf("%s: FROM %d: Orchestrator refuses a value under %d", name, a.From, least)
	case a.To < a.From:
		return OrchAxis{}, fmt.Errorf("%s: %d..%d runs backwards", name, a.From, a.To)
	case a.To > 86400:
		return OrchAxis{}, fmt.Errorf("%s: TO %d: want at most 86400", name, a.To)
	}
	return a, nil
}

// values are the axis's values, in order.
func (a OrchAxis) values() []int64 {
	var out []int64
	for v := a.From; v <= a.To; v += a.Step {
		out = append(out, v)
	}
	return out
}

// OrchFaults are the faults on the master whose detection a sweep under Orchestrator measures:
// one of each way the replicas' view and Orchestrator's reads part (docs/engine.md,
// "Detection in closed form").
func OrchFaults() []fault.Fault {
	return []fault.Fault{{Kind: fault.Refuse}, {Kind: fault.Freeze}, {Kind: fault.Blackhole}, {Kind: fault.HostDown}, {Kind: fault.Stall}}
}

// OrchConfig is one run of failsim sweep --manager orchestrator.
type OrchConfig struct {
	Base      orchestrator.Config // the settings in force, which the axes vary
	Axes      []OrchAxis          // one or two
	Incidents []Incident          // replayed at every point
}

// OrchPoint is what a sweep under Orchestrator measured at one point of its grid.
type OrchPoint struct {
	Values    []int64               // per axis
	Faults    []orchestrator.Bounds // per OrchFaults: the delays from the fault to the first problem code and to DeadMaster
	Incidents []OrchIncident        // per OrchConfig.Incidents
}

// OrchIncident is one incident's replay at a point under Orchestrator.
type OrchIncident struct {
	Failovers int               // recoveries that promoted a replica
	Dead      time.Duration     // the first DeadMaster (any DeadMaster code), when DeadOK
	DeadOK    bool              //
	End       orchestrator.Code // the master's code at the end
	Client    *repl.Summary     // the client's view; nil without a workload (or under a partition)
}

// OrchResult is a sweep under Orchestrator: every point in grid order, the first axis slowest.
type OrchResult struct {
	Config OrchConfig
	Points []OrchPoint
}

// Orchestrator sweeps cfg's grid: at each point, the closed-form detection of each of
// OrchFaults (orchestrator.BoundsOf, which orchcore's replays are held to at every phase), and a
// replay of each incident under Orchestrator's rules (sim.ReplayOrchestrator). It stops with
// ctx's error, and a replay's error names the incident's line.
func Orchestrator(ctx context.Context, cfg OrchConfig) (*OrchResult, error) {
	if len(cfg.Axes) < 1 || len(cfg.Axes) > 2 {
		return nil, fmt.Errorf("a sweep under Orchestrator varies one or two settings, not %d", len(cfg.Axes))
	}
	n := 1
	for _, a := range cfg.Axes {
		n *= int((a.To-a.From)/max(a.Step, 1) + 1)
		if n > MaxPoints || a.Step < 1 || a.To < a.From {
			return nil, fmt.Errorf("the grid of %s: more than %d points, or no range", a.Key, MaxPoints)
		}
	}
	grid := [][]int64{nil}
	for _, a := range cfg.Axes {
		var next [][]int64
		for _, g := range grid {
			for _, v := range a.values() {
				next = append(next, append(slices.Clone(g), v))
			}
		}
		grid = next
	}
	if len(grid) > MaxPoints {
		return nil, fmt.Errorf("the grid has %d points, more than %d", len(grid), MaxPoints)
	}
	res := &OrchResult{Config: cfg}
	for _, vals := range grid {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c := cfg.Base
		for i, a := range cfg.Axes {
			for _, k := range orchKeys {
				if k.key == a.Key {
					k.set(&c, vals[i])
				}
			}
		}
		p := OrchPoint{Values: vals}
		for _, f := range OrchFaults() {
			b, _, err := orchestrator.BoundsOf(c, orchestrator.DefaultReplica(), f)
			if err != nil {
				return nil, err
			}
			p.Faults = append(p.Faults, b)
		}
		for _, in := range cfg.Incidents {
			w := &orchWatch{}
			m, err := sim.ReplayOrchestrator(in.Timeline, c, w)
			if err != nil {
				return nil, err
			}
			oi := OrchIncident{Failovers: w.failovers, Dead: w.dead, DeadOK: w.deadOK, End: m.Code()}
			if w.final != nil && w.final.Workload {
				s := w.final.Summary
				oi.Client = &s
			}
			p.Incidents = append(p.Incidents, oi)
		}
		res.Points = append(res.Points, p)
	}
	return res, nil
}

// orchWatch keeps what a sweep measures of an Orchestrator replay.
type orchWatch struct {
	failovers int
	dead      time.Duration
	deadOK    bool
	final     *repl.Final
}

// Event implements drive.Observer.
func (w *orchWatch) Event(ev act.Event) {
	switch ev := ev.(type) {
	case *orchcore.Analysed:
		if !w.deadOK && strings.HasPrefix(ev.Code.String(), "DeadMaster") {
			w.dead, w.deadOK = ev.At, true
		}
	case *orchcore.Recovered:
		if ev.Verdict == orchestrator.Runs && ev.Node >= 0 {
			w.failovers++
		}
	case *repl.Final:
		f := *ev
		w.final = &f
	}
}

// CSV is the sweep as CSV: a row per point and measure, each fault's detection span and each
// incident's verdict.
func (r *OrchResult) CSV() []byte {
	var b bytes.Buffer
	for _, a := range r.Config.Axes {
		b.WriteString(a.Key + ",")
	}
	b.WriteString("subject,first_problem_min_s,first_problem_max_s,dead_master_min_s,dead_master_max_s,failovers,dead_master_at,code_at_end,unavailable_s,lost\n")
	for _, p := range r.Points {
		head := ""
		for _, v := range p.Values {
			head += strconv.FormatInt(v, 10) + ","
		}
		for k, f := range OrchFaults() {
			bd := p.Faults[k]
			dmin, dmax := "never", "never"
			if bd.DeadEver {
				dmin, dmax = osecs(bd.DeadMin), osecs(bd.DeadMax)
			}
			fmt.Fprintf(&b, "%sfault %s,%s,%s,%s,%s,,,,,\n", head, f, osecs(bd.UnreachableMin), osecs(bd.UnreachableMax), dmin, dmax)
		}
		for k, in := range r.Config.Incidents {
			oi := p.Incidents[k]
			dead, un, lost := "never", "", ""
			if oi.DeadOK {
				dead = timeline.Clock(in.Timeline.Start, oi.Dead)
			}
			if oi.Client != nil {
				un, lost = osecs(oi.Client.Unavailable), strconv.FormatInt(oi.Client.Lost, 10)
			}
			fmt.Fprintf(&b, "%sincident %s,,,,,%d,%s,%s,%s,%s\n", head, filepath.Base(in.Timeline.File), oi.Failovers, dead, oi.End, un, lost)
		}
	}
	return b.Bytes()
}

// Text is the sweep as failsim sweep prints it: the settings in force, then per point each
// fault's spans and each incident's verdict.
func (r *OrchResult) Text() string {
	var b strings.Builder
	var keys []string
	for _, a := range r.Config.Axes {
		keys = append(keys, fmt.Sprintf("%s over %d..%d", a.Key, a.From, a.To))
	}
	fmt.Fprintf(&b, "manager orchestrator, varying %s, from: %s\n", strings.Join(keys, " and "), r.Config.Base)
	for _, p := range r.Points {
		var at []string
		for i, a := range r.Config.Axes {
			at = append(at, fmt.Sprintf("%s=%d", a.Key, p.Values[i]))
		}
		fmt.Fprintf(&b, "%s\n", strings.Join(at, " "))
		for k, f := range OrchFaults() {
			bd := p.Faults[k]
			dead := "DeadMaster never"
			if bd.DeadEver {
				dead = fmt.Sprintf("DeadMaster %s-%s", bd.DeadMin, bd.DeadMax)
			}
			fmt.Fprintf(&b, "  fault %-10s first problem %s-%s, %s\n", f, bd.UnreachableMin, bd.UnreachableMax, dead)
		}
		for k, in := range r.Config.Incidents {
			oi := p.Incidents[k]
			dead := "no DeadMaster"
			if oi.DeadOK {
				dead = "DeadMaster at " + timeline.Clock(in.Timeline.Start, oi.Dead)
			}
			client := ""
			if oi.Client != nil {
				client = fmt.Sprintf("; unavailable %s, %d acknowledged writes lost", oi.Client.Unavailable, oi.Client.Lost)
			}
			fmt.Fprintf(&b, "  incident %s: %d failover(s), %s, %s at the end%s\n", filepath.Base(in.Timeline.File), oi.Failovers, dead, oi.End, client)
		}
	}
	return b.String()
}

// osecs writes d in seconds, to the millisecond.
func osecs(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) }
