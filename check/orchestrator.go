package check

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/orchcore"
	"github.com/failsim/failsim/orchestrator"
	"github.com/failsim/failsim/property"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/timeline"
)

// Under Orchestrator's rules (failsim check --manager orchestrator) the properties are judged
// as they mean for a manager that analyses what the replicas see and fences nothing:
//
//   - no-false-failover: on a benign trace (faults under which the master's replicas go on
//     replicating: a stall, an error reply, a silence shorter than a heartbeat period, any
//     fault on a replica) no recovery promotes a replica.
//   - detects-death-within D: a fault on the master that its replicas cannot replicate through
//     (refuse, reset, close, freeze, blackhole, unreachable, hostdown), held until the end, is
//     analysed DeadMaster (or DeadMasterAndSomeReplicas) within D; without D, within the
//     closed form's latest delay for that fault (orchestrator.BoundsOf).
//   - max-outage D and no-acked-write-lost: the replication model's summary, as under
//     Tungsten's rules (the client's view follows Orchestrator's recoveries, sim/orchrepl.go).
//   - the others speak of the Tungsten managers (their fencing, coordinator, maintenance
//     policy, self-healing alarms, group and quorum) and mean nothing under Orchestrator:
//     OrchMeaningless says why, and a run asked for one refuses it.
//
// The traces are generated for Orchestrator (check's generator draws faults from a statemap,
// and its benign traces are slow replies, which the Orchestrator model does not read). Each
// property's first violating trace is shrunk by check's own Shrink, whose candidates must stay
// traces of their family (orchFamily): a benign trace whose heal was dropped would be a death,
// and its failover no false one.

// OrchConfig is one run of failsim check --manager orchestrator.
type OrchConfig struct {
	Orchestrator orchestrator.Config
	Family       Family // Benign or Fatal
	Properties   []property.Spec
	Nodes        int           // >= 2: the master and its replicas
	Length       time.Duration // each trace's span
	Traces       int
	First        int
	Seed         uint64
	Workload     *Workload
}

// OrchResult is what a run under Orchestrator found, property by property.
type OrchResult struct {
	Properties []property.Spec
	Violated   []int                // per property: the traces that violated it
	First      []int                // per property: the first violating trace, -1 for none
	Why        []string             // per property: the first violation's verdict
	Trace      []*timeline.Timeline // per property: the first violating trace, nil for none
	Shrunk     []*timeline.Timeline // per property: that trace shrunk (Shrink), nil for none
	ShrunkWhy  []string             // per property: the shrunk trace's violation
	Replays    []int                // per property: the candidates Shrink replayed
	Traces     int
}

// OrchMeaningless returns why property name means nothing under Orchestrator's rules; "" for
// one that it is judged by.
func OrchMeaningless(name string) string {
	switch name {
	case property.NoFalseFailover, property.DetectsDeathWithin, property.MaxOutage, property.NoAckedWriteLost:
		return ""
	case property.SingleMaster:
		return "it judges the Tungsten managers' fencing of a master; Orchestrator fences none (failsim does not model its hooks)"
	case property.NoFenceInMaintenance:
		return "it judges the Tungsten maintenance policy; Orchestrator's analog, downtime, is judged by its own rules (orchestrator.Decide)"
	case property.OnlyCoordinatorFences:
		return "Orchestrator is one process: there is no coordinator among managers"
	case property.SelfHealResets:
		return "it judges the Tungsten alarms' self-healing; Orchestrator has no alarms"
	}
	return "it judges the Tungsten managers as a group (partitions, quorum, shunning); Orchestrator is one process and its raft mode is out of scope"
}

// OrchDefaults are the properties a family is judged by under Orchestrator by default.
func OrchDefaults(f Family, workload bool) []property.Spec {
	var out []property.Spec
	name := property.NoFalseFailover
	if f == Fatal {
		name = property.DetectsDeathWithin
	}
	s, _ := property.NewSpec(name, nil)
	out = append(out, s)
	if workload {
		s, _ := property.NewSpec(property.NoAckedWriteLost, nil)
		out = append(out, s)
	}
	return out
}

// RunOrchestrator generates cfg's traces, replays each under Orchestrator's rules and judges
// the properties; the result depends on the configuration alone.
func RunOrchestrator(ctx context.Context, cfg OrchConfig) (*OrchResult, error) {
	if cfg.Traces < 1 {
		return nil, ErrNoTraces
	}
	if cfg.Family != Benign && cfg.Family != Fatal {
		return nil, fmt.Errorf("family %s: under orchestrator, want benign or fatal", cfg.Family)
	}
	if cfg.Nodes < 2 || cfg.Nodes > 9 {
		return nil, fmt.Errorf("%d nodes: under orchestrator, want 2 to 9 (a master and its replicas)", cfg.Nodes)
	}
	if cfg.Length < 5*time.Minute {
		return nil, fmt.Errorf("length %s: under orchestrator, want at least 5m (a death and its detection fit)", cfg.Length)
	}
	specs := cfg.Properties
	if len(specs) == 0 {
		specs = OrchDefaults(cfg.Family, cfg.Workload != nil)
	}
	for _, s := range specs {
		if why := OrchMeaningless(s.Name); why != "" {
			return nil, fmt.Errorf("property %s means nothing under orchestrator: %s", s.Name, why)
		}
		if property.NeedsWorkload(s.Name) && cfg.Workload == nil {
			return nil, fmt.Errorf("property %s judges a workload's writes: %w", s.Name, ErrNoWorkload)
		}
	}
	res := &OrchResult{Properties: specs, Violated: make([]int, len(specs)), First: make([]int, len(specs)),
		Why: make([]string, len(specs)), Trace: make([]*timeline.Timeline, len(specs)), Traces: cfg.Traces,
		Shrunk: make([]*timeline.Timeline, len(specs)), ShrunkWhy: make([]string, len(specs)), Replays: make([]int, len(specs))}
	for k := range res.First {
		res.First[k] = -1
	}
	for i := cfg.First; i < cfg.First+cfg.Traces; i++ {
		if i%64 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		tl, death, err := orchTrace(TraceRand(cfg.Seed, i), cfg)
		if err != nil {
			return nil, err
		}
		whys, err := judgeOrch(tl, death, cfg, specs)
		if err != nil {
			return nil, fmt.Errorf("trace %d: %w", i, err)
		}
		for k, why := range whys {
			if why == "" {
				continue
			}
			res.Violated[k]++
			if res.First[k] < 0 {
				res.First[k], res.Why[k], res.Trace[k] = i, why, tl
			}
		}
	}
	for k, tl := range res.Trace {
		if tl == nil {
			continue
		}
		shrunk, why, n, err := shrinkOrch(ctx, tl, cfg, specs[k])
		if err != nil {
			return nil, err
		}
		res.Shrunk[k], res.ShrunkWhy[k], res.Replays[k] = shrunk, why, n
	}
	return res, nil
}

// shrinkOrch shrinks tl, a trace of cfg's family that violates s, to a smaller one of the same
// family that still does: it returns it, its violation and how many candidates Shrink
// replayed; ctx's error once ctx is done.
func shrinkOrch(ctx context.Context, tl *timeline.Timeline, cfg OrchConfig, s property.Spec) (*timeline.Timeline, string, int, error) {
	violation := func(c *timeline.Timeline) string {
		death, ok := orchFamily(c, cfg.Family)
		if !ok {
			return ""
		}
		whys, err := judgeOrch(c, death, cfg, []property.Spec{s})
		if err != nil {
			return ""
		}
		return whys[0]
	}
	if violation(tl) == "" {
		panic(fmt.Sprintf("check: a trace that violated %s under orchestrator does not when judged again", s))
	}
	shrunk, n, err := Shrink(ctx, tl, func(c *timeline.Timeline) bool { return violation(c) != "" })
	if err != nil {
		return nil, "", n, err
	}
	return shrunk, violation(shrunk), n, nil
}

// orchFamily reports whether tl is a trace of family f as orchTrace makes them, which a shrunk
// candidate must stay for its violation to mean what the property says, and returns a fatal
// trace's death: two nodes or more, db1 the master; on db1 only faults, each one of
// orchBenign healed by db1's next event, a freeze or blackhole healed within a heartbeat
// period; a fatal trace's last event on db1 one of orchFatal, held to the end (its death).
func orchFamily(tl *timeline.Timeline, f Family) (orchDeath, bool) {
	if len(tl.Nodes) < 2 || tl.Nodes[0].Role != fence.Master {
		return orchDeath{}, false
	}
	var on []timeline.Event // db1's
	for _, e := range tl.Events {
		if e.Node == 0 {
			if e.Kind != timeline.SetFault {
				return orchDeath{}, false
			}
			on = append(on, e)
		}
	}
	var death orchDeath
	if f == Fatal {
		if len(on) == 0 || !slices.Contains(orchFatal, on[len(on)-1].Fault) {
			return orchDeath{}, false
		}
		last := on[len(on)-1]
		death, on = orchDeath{At: last.At, F: last.Fault, ok: true}, on[:len(on)-1]
	}
	hb := orchestrator.DefaultReplica().HeartbeatPeriod
	for i, e := range on {
		if e.Fault.Kind == fault.Heal {
			continue
		}
		if !slices.Contains(orchBenign, e.Fault) || i+1 == len(on) || on[i+1].Fault.Kind != fault.Heal {
			return orchDeath{}, false
		}
		if silent := e.Fault.Kind == fault.Freeze || e.Fault.Kind == fault.Blackhole; silent && on[i+1].At-e.At >= hb {
			return orchDeath{}, false
		}
	}
	return death, true
}

// orchDeath is the fatal fault of a trace: on the master from At to the end.
type orchDeath struct {
	At time.Duration
	F  fault.Fault
	ok bool
}

// The faults of a generated trace under Orchestrator.
var (
	orchFatal  = []fault.Fault{{Kind: fault.Refuse}, {Kind: fault.Reset}, {Kind: fault.Close}, {Kind: fault.Freeze}, {Kind: fault.Blackhole}, {Kind: fault.Unreachable}, {Kind: fault.HostDown}}
	orchBenign = []fault.Fault{{Kind: fault.Stall}, {Kind: fault.Error, Code: 1040}, {Kind: fault.Freeze}, {Kind: fault.Blackhole}}
	orchAny    = append(append([]fault.Fault(nil), orchFatal...), orchBenign...)
)

// orchTrace generates one trace of cfg's family as timeline text, parsed: a benign trace has
// spells of stall or an error reply on the master (healed), silences on it shorter than the
// replicas' heartbeat period, and any fault on a replica, healed; a fatal trace has benign
// spells, then one fatal fault on the master held to the end.
func orchTrace(r *rand.Rand, cfg OrchConfig) (*timeline.Timeline, orchDeath, error) {
	var b strings.Builder
	b.WriteString("# a trace of failsim check --manager orchestrator\ncluster")
	for j := range cfg.Nodes {
		role := "replica"
		if j == 0 {
			role = "master"
		}
		fmt.Fprintf(&b, " db%d:%s", j+1, role)
	}
	b.WriteString("\n")
	if w := cfg.Workload; w != nil {
		fmt.Fprintf(&b, "workload writes=%d/%s deadline=%s\n", w.Rate.Writes, perWords(w.Rate.Per), w.Deadline)
	}
	b.WriteString("start 00:00:00\n\n")
	hb := orchestrator.DefaultReplica().HeartbeatPeriod
	end := cfg.Length
	var death orchDeath
	if cfg.Family == Fatal {
		death = orchDeath{At: time.Duration(r.Int64N(int64(end/2))).Truncate(time.Second) + time.Minute, F: orchFatal[r.IntN(len(orchFatal))], ok: true}
		end = death.At
	}
	at := time.Duration(0)
	for {
		at += time.Duration(r.Int64N(int64(2*time.Minute))).Truncate(time.Second) + time.Second
		if at >= end-time.Second {
			break
		}
		node := r.IntN(cfg.Nodes)
		var f fault.Fault
		d := time.Duration(r.Int64N(int64(3*time.Minute))).Truncate(time.Second) + time.Second
		if node == 0 {
			f = orchBenign[r.IntN(len(orchBenign))]
			if f.Kind == fault.Freeze || f.Kind == fault.Blackhole {
				d = min(d, hb-time.Second) // shorter than a heartbeat period: no replica's stream breaks
			}
		} else {
			f = orchAny[r.IntN(len(orchAny))]
		}
		heal := min(at+d, end-time.Second)
		if heal <= at {
			break
		}
		fmt.Fprintf(&b, "%s db%d %s\n%s db%d heal\n", timeline.Clock(time.Time{}, at), node+1, f, timeline.Clock(time.Time{}, heal), node+1)
		at = heal
	}
	if death.ok {
		fmt.Fprintf(&b, "%s db1 %s\n", timeline.Clock(time.Time{}, death.At), death.F)
	}
	fmt.Fprintf(&b, "%s cluster end\n", timeline.Clock(time.Time{}, cfg.Length))
	tl, err := timeline.Parse("trace.timeline", []byte(b.String()))
	return tl, death, err
}

// perWords writes a workload's period as its statement does: "s", "100ms".
func perWords(d time.Duration) string {
	if d == time.Second {
		return "s"
	}
	return d.String()
}

// judgeOrch replays tl under Orchestrator and returns, per property, its violation ("" held).
func judgeOrch(tl *timeline.Timeline, death orchDeath, cfg OrchConfig, specs []property.Spec) ([]string, error) {
	w := &orchJudge{names: tl.Names()}
	var client []property.Spec
	for _, s := range specs {
		if property.NeedsWorkload(s.Name) {
			client = append(client, s)
		}
	}
	set, err := property.NewSet(property.Trace{Names: tl.Names(), Start: tl.Start, Interval: tl.Interval, Timeout: tl.Timeout, Policy: fence.Automatic}, client...)
	if err != nil {
		return nil, err
	}
	if _, err := sim.ReplayOrchestrator(tl, cfg.Orchestrator, w, set); err != nil {
		return nil, err
	}
	out := make([]string, len(specs))
	c := 0
	for k, s := range specs {
		switch s.Name {
		case property.NoFalseFailover:
			if cfg.Family == Benign && w.promoted {
				out[k] = fmt.Sprintf("%s: a benign trace failed over: %s", timeline.Clock(tl.Start, w.promotedAt), w.promotion)
			}
		case property.DetectsDeathWithin:
			if !death.ok {
				continue
			}
			within := s.Within()
			if within == 0 {
				b, _, err := orchestrator.BoundsOf(cfg.Orchestrator, orchestrator.DefaultReplica(), death.F)
				if err != nil {
					return nil, err
				}
				within = b.DeadMax
			}
			switch {
			case death.At+within > tl.End:
			case !w.deadAfter(death.At):
				out[k] = fmt.Sprintf("%s: db1 %s never analysed DeadMaster (within %s)", timeline.Clock(tl.Start, death.At), death.F, within)
			case w.firstDead(death.At) > death.At+within:
				out[k] = fmt.Sprintf("%s: db1 %s analysed DeadMaster only at %s, later than %s", timeline.Clock(tl.Start, death.At), death.F, timeline.Clock(tl.Start, w.firstDead(death.At)), within)
			}
		default:
			if bad, why := set.Violated(c); bad {
				out[k] = why
			}
			c++
		}
	}
	return out, nil
}

// orchJudge keeps what the properties under Orchestrator judge of a replay.
type orchJudge struct {
	names      []string
	promoted   bool
	promotedAt time.Duration
	promotion  string
	dead       []time.Duration // each time the master's analysis turned to a DeadMaster code
}

// Event implements drive.Observer.
func (j *orchJudge) Event(ev act.Event) {
	switch ev := ev.(type) {
	case *orchcore.Analysed:
		if ev.Code == orchestrator.DeadMaster || ev.Code == orchestrator.DeadMasterAndSomeReplicas {
			j.dead = append(j.dead, ev.At)
		}
	case *orchcore.Recovered:
		if ev.Verdict == orchestrator.Runs && ev.Node >= 0 && !j.promoted {
			j.promoted, j.promotedAt = true, ev.At
			j.promotion, _ = orchcore.Describe(j.names, ev)
		}
	}
}

func (j *orchJudge) deadAfter(t time.Duration) bool {
	return len(j.dead) > 0 && j.dead[len(j.dead)-1] >= t
}

func (j *orchJudge) firstDead(t time.Duration) time.Duration {
	for _, d := range j.dead {
		if d >= t {
			return d
		}
	}
	return -1
}
