package timing_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/faultmodel"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
	"github.com/failsim/failsim/timing"
)

// edges is a statemap with the rows the shipped ones lack: a condition mapped to online that
// still fences, a timeout that fences at once, an alert, a single tick, a none that expires, an
// undefined that fences.
const edges = `mysql_error.state=online
mysql_error.threshold=1
mysql_error.action=fail
login_response_timeout.state=timeout
login_response_timeout.threshold=0
login_response_timeout.action=fail
no_route_to_host.state=suspect
no_route_to_host.threshold=2
no_route_to_host.action=alert
socket_connect_timeout.state=timeout
socket_connect_timeout.threshold=1
socket_connect_timeout.action=fail
query_exec_timeout.state=suspect
query_exec_timeout.threshold=2
query_exec_timeout.action=fail
host_is_down.state=stopped
host_is_down.threshold=3
host_is_down.action=none
undefined.state=suspect
undefined.threshold=1
undefined.action=fail
`

// statemaps are the default, the shipped examples and edges, by name.
func statemaps(t testing.TB) map[string]*statemap.Map {
	t.Helper()
	out := map[string]*statemap.Map{"default": statemap.Default()}
	for _, name := range []string{"aggressive", "tolerant"} {
		m, err := statemap.Load("../conf/examples/" + name + ".properties")
		if err != nil {
			t.Fatal(err)
		}
		out[name] = m
	}
	m, err := statemap.FromBytes("edges.properties", []byte(edges))
	if err != nil {
		t.Fatal(err)
	}
	out["edges"] = m
	return out
}

// settings are the checker settings the replays run under: the default first, then an interval
// equal to the budget, a budget longer than the interval, intervals that do not divide the tick,
// and one as long as it.
var settings = []struct{ interval, timeout time.Duration }{
	{3 * time.Second, 5 * time.Second},
	{5 * time.Second, 5 * time.Second},
	{2 * time.Second, 10 * time.Second},
	{7 * time.Second, 3 * time.Second},
	{4 * time.Second, 4 * time.Second},
	{10 * time.Second, 1 * time.Second},
}

// firsts records, for one node, the first state change, alarm and fence at or after the fault's
// start.
type firsts struct {
	node, from         int
	start              time.Duration
	state, alarm, fenc time.Duration // -1: not seen
}

func (f *firsts) Event(ev act.Event) {
	at := ev.When()
	if at < f.start {
		return
	}
	first := func(p *time.Duration) {
		if *p < 0 {
			*p = at - f.start
		}
	}
	switch ev := ev.(type) {
	case *fence.StateChanged:
		if ev.Node == f.node {
			first(&f.state)
		}
	case *fence.AlarmRaised:
		if ev.Node == f.node {
			first(&f.alarm)
		}
	case *fence.NodeFailed:
		if ev.Node == f.node {
			first(&f.fenc)
		}
	case *fence.Failover:
		if ev.Node == f.node {
			first(&f.fenc)
		}
	case *fence.NoCandidate:
		if ev.Node == f.node {
			first(&f.fenc)
		}
	}
}

var _ drive.Observer = (*firsts)(nil)

// forced are the forced conditions replayed beside the fault table's rows: undefined, which a
// driver once took for "no outcome" and timing for a healthy probe, and a forced ok.
var forced = []string{"undefined", "ok"}

// rows is the fault table under m with its timing, and a row for each forced condition, built
// as faultmodel.Table builds its own.
func rows(m *statemap.Map, interval, timeout time.Duration) []timing.Row {
	out := timing.Table(m, interval, timeout)
	for _, c := range forced {
		f := fault.Fault{Kind: fault.Probe, Condition: c}
		r := faultmodel.Row{Fault: f, Outcome: faultmodel.Predict(f, timeout)}
		r.Rule = m.Rule(r.Outcome.Condition)
		r.State = r.Rule.State
		if r.Outcome.Condition == statemap.OK {
			r.State = statemap.Online
		}
		out = append(out, timing.Of(r, interval))
	}
	return out
}

// replays counts the replays TestTimingMatchesReplays ran.
var replays atomic.Int64

func gcd(a, b time.Duration) time.Duration {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func lcm(a, b time.Duration) time.Duration {
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	return a / x * b
}

// replayOnce replays a two-node cluster whose node `node` has its probes at phase (mod
// interval), and fault row's fault from start on; it returns the first times after start.
func replayOnce(m *statemap.Map, interval, timeout time.Duration, row timing.Row, node int, phase, start, end time.Duration) *firsts {
	tl := &timeline.Timeline{
		File:     "timing",
		Nodes:    []fence.NodeConfig{{Name: "db1", Role: fence.Master}, {Name: "db2", Role: fence.Replica}},
		Interval: interval,
		Timeout:  timeout,
		End:      end,
	}
	if phase > 0 {
		// A quiet prefix: the node's manager is down at the start and comes up at phase, when
		// its first probe starts.
		tl.Events = append(tl.Events,
			timeline.Event{At: 0, Kind: timeline.ManagerDown, Node: node},
			timeline.Event{At: phase, Kind: timeline.ManagerUp, Node: node})
	}
	tl.Events = append(tl.Events, timeline.Event{At: start, Kind: timeline.SetFault, Node: node, Fault: row.Fault})
	f := &firsts{node: node, start: start, state: -1, alarm: -1, fenc: -1}
	sim.Replay(tl, m, f)
	return f
}

// TestTimingMatchesReplays replays every fault row under several statemaps and checker settings,
// with the fault starting at every whole second over lcm(interval, 10 s) and the node's probes
// at every whole-second phase (every step, finer than a second for a row whose probe takes a
// fraction of one: gcd(1 s, took)), through the real simulator. The least replayed time is the
// computed earliest; every replayed time is within [earliest, latest); and the largest is the
// latest less one step for each phase it depends on (the sampling falls short of the bound by
// a step per phase: the probe's, and for an alarm that waits for ticks, the tick's).
func TestTimingMatchesReplays(t *testing.T) {
	maps := statemaps(t)
	replays.Store(0)
	defer func() { t.Logf("%d replays", replays.Load()) }()
	cases := settings // 314,400 replays in about four seconds: no shorter run for -short
	for _, name := range []string{"default", "aggressive", "tolerant", "edges"} {
		m := maps[name]
		for si, set := range cases {
			nodes := []int{0}
			if si == 0 {
				nodes = []int{0, 1} // the master failed over, and a replica failed
			}
			for _, row := range rows(m, set.interval, set.timeout) {
				for _, node := range nodes {
					t.Run(fmt.Sprintf("%s/%s/%s/%s/db%d", name, set.interval, set.timeout, row.Fault, node+1), func(t *testing.T) {
						checkRow(t, m, set.interval, set.timeout, row, node)
					})
				}
			}
		}
	}
}

// measure is one of the three times, its span, and how many phases its latest depends on.
type measure struct {
	name   string
	span   timing.Span
	phases time.Duration
	min    time.Duration
	max    time.Duration
	seen   int
}

func checkRow(t *testing.T, m *statemap.Map, interval, timeout time.Duration, row timing.Row, node int) {
	period := lcm(interval, statemap.TickInterval)
	base := ((interval+20*time.Second)/period + 1) * period
	ticksPhase := time.Duration(1)
	if row.Rule.Threshold >= 1 {
		ticksPhase = 2
	}
	ms := []*measure{
		{name: "state change", span: row.StateChange, phases: 1},
		{name: "alarm", span: row.Alarm, phases: 1},
		{name: "fence", span: row.Fence, phases: ticksPhase},
	}
	horizon := timeout + interval + time.Duration(max(row.Rule.Threshold, 0)+2)*statemap.TickInterval + time.Minute
	runs := 0
	defer func() { replays.Add(int64(runs)) }()
	// The step of the sampling: a second, or finer when the probe's outcome takes a fraction of
	// one (timeout 600ms), so that its alarm too can be raised at a tick's very instant. A row
	// that raises no alarm needs no finer step: nothing happens to sample.
	step := time.Second
	if !row.Alarm.Never() {
		step = gcd(step, row.Outcome.Took)
	}
	for phase := time.Duration(0); phase < interval; phase += step {
		for s := time.Duration(0); s < period; s += step {
			start := base + s
			f := replayOnce(m, interval, timeout, row, node, phase, start, start+horizon)
			runs++
			for i, got := range []time.Duration{f.state, f.alarm, f.fenc} {
				x := ms[i]
				switch {
				case x.span.Never() && got >= 0:
					t.Fatalf("probes at phase %s, fault at %s: %s after %s, want never", phase, start, x.name, got)
				case x.span.Never():
				case got < 0:
					t.Fatalf("probes at phase %s, fault at %s: no %s, want %s-%s", phase, start, x.name, x.span.Earliest, x.span.Latest)
				case !x.span.Contains(got):
					t.Fatalf("probes at phase %s, fault at %s: %s after %s, want in [%s, %s)", phase, start, x.name, got, x.span.Earliest, x.span.Latest)
				default:
					if x.seen == 0 || got < x.min {
						x.min = got
					}
					x.max = max(x.max, got)
					x.seen++
				}
			}
		}
	}
	for _, x := range ms {
		if x.span.Never() {
			continue
		}
		if x.min != x.span.Earliest {
			t.Errorf("%s: least replayed %s, computed earliest %s (%d replays)", x.name, x.min, x.span.Earliest, runs)
		}
		if want := x.span.Latest - x.phases*step; x.max != want {
			t.Errorf("%s: largest replayed %s, want %s: the computed latest %s less a step (%s) per phase (%d replays)", x.name, x.max, want, x.span.Latest, step, runs)
		}
	}
}

// FuzzTimingMatchesReplay replays one fault row at any phase, to the millisecond, under any
// checker settings up to 30 s: the replayed times are within the computed spans, and what the
// spans say never happens does not.
func FuzzTimingMatchesReplay(f *testing.F) {
	maps := statemaps(f)
	names := []string{"default", "aggressive", "tolerant", "edges"}
	f.Add(uint16(3000), uint16(5000), uint32(0), uint32(30000), uint8(4), uint8(0), false)
	f.Add(uint16(2500), uint16(10000), uint32(1234), uint32(7), uint8(6), uint8(1), true)
	f.Add(uint16(1), uint16(29999), uint32(999), uint32(599999), uint8(1), uint8(2), false)
	f.Add(uint16(9999), uint16(1), uint32(5), uint32(10000), uint8(9), uint8(3), true)
	f.Fuzz(func(t *testing.T, intervalMs, timeoutMs uint16, phaseMs, offsetMs uint32, rowIdx, mapIdx uint8, replica bool) {
		ms := time.Millisecond
		interval := time.Duration(intervalMs%30000+1) * ms
		timeout := time.Duration(timeoutMs%30000+1) * ms
		m := maps[names[int(mapIdx)%len(names)]]
		rs := rows(m, interval, timeout)
		row := rs[int(rowIdx)%len(rs)]
		phase := time.Duration(phaseMs) * ms % interval
		start := phase + ms + time.Duration(offsetMs%600000)*ms // after the node's first ok probe
		node := 0
		if replica {
			node = 1
		}
		horizon := timeout + interval + time.Duration(max(row.Rule.Threshold, 0)+2)*statemap.TickInterval + time.Minute
		got := replayOnce(m, interval, timeout, row, node, phase, start, start+horizon)
		for _, c := range []struct {
			name string
			span timing.Span
			at   time.Duration
		}{{"state change", row.StateChange, got.state}, {"alarm", row.Alarm, got.alarm}, {"fence", row.Fence, got.fenc}} {
			switch {
			case c.span.Never() && c.at >= 0:
				t.Errorf("%s every %s within %s, probes at %s, fault at %s: %s after %s, want never", row.Fault, interval, timeout, phase, start, c.name, c.at)
			case !c.span.Never() && !c.span.Contains(c.at):
				t.Errorf("%s every %s within %s, probes at %s, fault at %s: %s after %s, want in [%s, %s)", row.Fault, interval, timeout, phase, start, c.name, c.at, c.span.Earliest, c.span.Latest)
			}
		}
	})
}
