package livereplay

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/monitor"
	"github.com/failsim/failsim/proxy"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// DefaultSpeed is how many times faster than the timeline a live replay runs.
const DefaultSpeed = 10

// MinBudget is the least real time a live probe's budget may be: five times the 20 ms under
// which a probe counts as ending at its start, and the 100 ms by which the checker may
// outlast its budget. Under it a timed-out probe cannot be told from a refused one, and a
// healthy login on a busy machine runs out of time.
const MinBudget = 100 * time.Millisecond

// MaxSpeed is the highest speed at which the probe budget timeout (virtual time) stays at
// least MinBudget of real time.
func MaxSpeed(timeout time.Duration) float64 { return float64(timeout) / float64(MinBudget) }

// CheckSpeed refuses, with a *SpeedError, a speed at which tl's probe budget cannot be
// honoured (MaxSpeed).
func CheckSpeed(tl *timeline.Timeline, speed float64) error {
	if limit := MaxSpeed(tl.Timeout); speed > limit {
		return &SpeedError{Speed: speed, Max: limit, File: tl.File, Timeout: tl.Timeout}
	}
	return nil
}

// LiveConfig sets up a live replay.
type LiveConfig struct {
	Timeline *timeline.Timeline
	Map      *statemap.Map // the effective statemap
	// DSN is the real server every node's proxy forwards to; the probes log in with its
	// user and password. It must be a tcp DSN (ProxyDSN).
	DSN string
	// Speed divides the interval, the budget, the tick and every event time; zero means
	// DefaultSpeed.
	Speed float64
	// Query is the probe's query; "" means DefaultQuery.
	Query     string
	Log       zerolog.Logger
	Observers []drive.Observer // told the live events, in the timeline's virtual time
	// OnProbe, when not nil, is told each live probe's outcome at the instant it counts, in the
	// timeline's virtual time (a live report draws them).
	OnProbe func(at time.Duration, node int, c statemap.Condition)
	// Shadows, when not nil, are candidate statemaps judged beside the live engine on the same
	// live probes (monitor.Shadows).
	Shadows *monitor.Shadows
}

// WireOnly checks that every fault of tl can be made real by a proxy and that tl needs the
// managers' group for nothing but managers that stop and start (no witness, liveness setting,
// partition or host event: the live runtime cannot make them real); the error names the first that cannot, with its line. A workload and replication
// statements pass: LiveReplication plays them (ReplicationActions checks them), LiveReplay does
// not.
func WireOnly(tl *timeline.Timeline) error {
	if tl.Group > 0 {
		return &fileline.Error{File: tl.File, Line: tl.Group,
			Err: errors.New("witnesses, liveness settings, partitions and host events exist only in the simulator: the live replay runs the managers' group only for managers that stop and start")}
	}
	for _, ev := range tl.Events {
		if ev.Kind == act.SetFault && !ev.Fault.Kind.Wire() {
			return &fileline.Error{File: tl.File, Line: ev.Line,
				Err: fmt.Errorf("fault %q exists only in the simulator: a proxy cannot make it on a socket", ev.Fault)}
		}
	}
	return nil
}

// ReplLine is the line of tl's first workload or replication statement that a live run must
// play: the workload's, or the first replication event's when there is no workload; 0 when tl
// says nothing of replication.
func ReplLine(tl *timeline.Timeline) int {
	r := tl.Repl
	if r == nil {
		return 0
	}
	if !r.Workload && len(r.Events) > 0 {
		return r.Events[0].Line
	}
	return r.WorkloadLine
}

// LiveRun is what a live run decided and saw.
type LiveRun struct {
	Decisions []Decision
	States    []StateChange
	// Gaps are the stretches in which the runtime did not run (its process stopped, the
	// machine overloaded): a run with any was not exercised throughout, and cannot agree.
	Gaps []monitor.ClockGap
}

// LiveReplay plays tl live: one proxy per node on 127.0.0.1 in front of the real server,
// the timeline's faults set on the proxies at their (compressed) times, real checkers probing
// through the proxies, the runtime deciding, the managers as a group as in the simulator. It
// returns the live decisions and state changes, and the runtime's clock gaps.
func LiveReplay(ctx context.Context, cfg LiveConfig) (LiveRun, error) {
	tl := cfg.Timeline
	if err := WireOnly(tl); err != nil {
		return LiveRun{}, err
	}
	if line := ReplLine(tl); line > 0 {
		return LiveRun{}, &fileline.Error{File: tl.File, Line: line,
			Err: errors.New("a workload and replication statements need a real server for each node: LiveReplication plays them, LiveReplay does not")}
	}
	speed := cfg.Speed
	if speed <= 0 {
		speed = DefaultSpeed
	}
	if err := CheckSpeed(tl, speed); err != nil {
		return LiveRun{}, err
	}
	base, err := monitor.ProxyDSN(cfg.DSN)
	if err != nil {
		return LiveRun{}, err
	}
	pcfg := proxy.Config{Log: cfg.Log}
	for _, n := range tl.Nodes {
		pcfg.Nodes = append(pcfg.Nodes, proxy.NodeConfig{Name: n.Name, Listen: "127.0.0.1:0", Upstream: base.Addr})
	}
	px, err := proxy.New(pcfg)
	if err != nil {
		return LiveRun{}, fmt.Errorf("start the proxies: %w", err)
	}
	defer px.Close()
	budget := time.Duration(float64(tl.Timeout) / speed)
	nodes := make([]monitor.Node, len(tl.Nodes))
	for i, n := range tl.Nodes {
		pn, _ := px.Node(n.Name)
		c := base.Clone()
		c.Addr = pn.Addr()
		chk, err := monitor.NewChecker(monitor.CheckerConfig{DSN: c.FormatDSN(), Budget: budget, Query: cfg.Query})
		if err != nil {
			return LiveRun{}, err
		}
		nodes[i] = monitor.Node{Name: n.Name, Role: n.Role, Prober: chk}
		cfg.Log.Debug().Str("node", n.Name).Str("proxy", pn.Addr()).Str("upstream", base.Addr).Msg("proxy up")
	}
	var injectErr error
	inject := func(i int, f fault.Fault) {
		if err := px.SetMode(tl.Nodes[i].Name, proxy.Mode{Fault: f}); err != nil && injectErr == nil {
			injectErr = fmt.Errorf("set %s to %s: %w", tl.Nodes[i].Name, f, err)
		}
	}
	rec := &Recorder{Names: tl.Names()}
	obs := append([]drive.Observer{rec}, cfg.Observers...)
	var onProbe func(time.Duration, int, monitor.Result)
	if cfg.OnProbe != nil {
		onProbe = func(at time.Duration, i int, r monitor.Result) { cfg.OnProbe(at, i, r.Condition) }
	}
	rt, err := monitor.New(monitor.Config{Nodes: nodes, Map: cfg.Map, Policy: tl.Policy, Interval: tl.Interval, Speed: speed,
		Log: cfg.Log, Observers: obs, OnProbe: onProbe, Group: TimelineGroup(tl), Shadows: cfg.Shadows}, TimelineScript(tl, inject))
	if err != nil {
		return LiveRun{}, err
	}
	if err := rt.Run(ctx); err != nil {
		return LiveRun{}, err
	}
	if err := ctx.Err(); err != nil {
		return LiveRun{}, fmt.Errorf("live replay interrupted: %w", err)
	}
	return LiveRun{Decisions: rec.Decisions, States: rec.States, Gaps: rt.Gaps()}, injectErr
}

// Decision is a fencing decision: a failover (Other promoted, "" if none was eligible) or a
// failed node.
type Decision struct {
	At    time.Duration
	Kind  fence.Kind // fence.KindFailover, fence.KindNoCandidate or fence.KindNodeFailed
	Node  string
	Other string
}

func (d Decision) describe(start time.Time) string {
	switch d.Kind {
	case fence.KindFailover:
		return fmt.Sprintf("%s failover %s -> %s", timeline.Clock(start, d.At), d.Node, d.Other)
	case fence.KindNoCandidate:
		return fmt.Sprintf("%s failover of %s, no replica eligible", timeline.Clock(start, d.At), d.Node)
	}
	return fmt.Sprintf("%s %s failed", timeline.Clock(start, d.At), d.Node)
}

// Failovers counts the failovers among ds (promotions and failovers with no candidate).
func Failovers(ds []Decision) int {
	n := 0
	for _, d := range ds {
		if d.Kind != fence.KindNodeFailed {
			n++
		}
	}
	return n
}

// Recorder is an observer that keeps the decisions and the state changes of a run. Names, the
// nodes' names in cluster order (timeline.Timeline.Names), must be set: both are recorded with
// them.
type Recorder struct {
	Names     []string
	Decisions []Decision
	States    []StateChange
}

// Event implements drive.Observer.
func (r *Recorder) Event(ev act.Event) {
	switch ev := ev.(type) {
	case *fence.StateChanged:
		r.States = append(r.States, StateChange{At: ev.At, Node: r.Names[ev.Node], From: ev.From, To: ev.To, Condition: ev.Condition})
	case *fence.Failover:
		r.Decisions = append(r.Decisions, Decision{At: ev.At, Kind: ev.Kind(), Node: r.Names[ev.Node], Other: r.Names[ev.To]})
	case *fence.NoCandidate:
		r.Decisions = append(r.Decisions, Decision{At: ev.At, Kind: ev.Kind(), Node: r.Names[ev.Node]})
	case *fence.NodeFailed:
		r.Decisions = append(r.Decisions, Decision{At: ev.At, Kind: ev.Kind(), Node: r.Names[ev.Node]})
	}
}

// Compare judges live decisions against simulated ones: the same decisions in the same order
// (failover or not, which nodes), each within one tick of the simulated time. It returns one
// line per decision ("agree ..." or "DIFFER ...") and whether all agree.
func Compare(start time.Time, simulated, live []Decision) ([]string, bool) {
	var out []string
	ok := true
	for i := 0; i < len(simulated) || i < len(live); i++ {
		switch {
		case i >= len(live):
			ok = false
			out = append(out, "DIFFER  simulated "+simulated[i].describe(start)+"; live: nothing")
		case i >= len(simulated):
			ok = false
			out = append(out, "DIFFER  live "+live[i].describe(start)+"; simulated: nothing")
		default:
			s, l := simulated[i], live[i]
			d := l.At - s.At
			if s.Kind != l.Kind || s.Node != l.Node || s.Other != l.Other || d > statemap.TickInterval || d < -statemap.TickInterval {
				ok = false
				out = append(out, fmt.Sprintf("DIFFER  simulated %s; live %s", s.describe(start), l.describe(start)))
				continue
			}
			out = append(out, fmt.Sprintf("agree   %s (live %+.1fs)", s.describe(start), d.Seconds()))
		}
	}
	if len(out) == 0 {
		out = append(out, "agree   no failover and no failed node")
	}
	return out, ok
}
