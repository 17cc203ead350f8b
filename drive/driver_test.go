package drive_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/core"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
)

const s = time.Second

// log is an observer that writes what it is told, one line each, for exact comparison.
type log struct{ lines []string }

func (l *log) Event(ev act.Event) {
	kind, node, cond := "fault", -1, statemap.Undefined
	if d, ok := ev.(fence.Decision); ok {
		kind = d.Kind().String()
	}
	// Every decision and note names its node in a field Node, and its condition, if any, in
	// a field Condition: read them by name, as the log needs nothing else.
	v := reflect.ValueOf(ev).Elem()
	if f := v.FieldByName("Node"); f.IsValid() {
		node = int(f.Int())
	}
	if f := v.FieldByName("Condition"); f.IsValid() {
		cond = f.Interface().(statemap.Condition)
	}
	name := ""
	if node >= 0 {
		name = []string{"db1", "db2"}[node]
	}
	l.lines = append(l.lines, fmt.Sprintf("%v %s %s %s", ev.When(), kind, name, cond))
}

func (l *log) Instant(at time.Duration, _ fence.View) {
	l.lines = append(l.lines, fmt.Sprintf("%v instant", at))
}

func (l *log) take() string {
	out := strings.Join(l.lines, "\n")
	l.lines = nil
	return out
}

// cluster returns a fresh engine of db1 (master) and db2 under the shipped statemap.
func cluster() *fence.Engine {
	return fence.New(fence.Config{Nodes: []fence.NodeConfig{{Name: "db1", Role: fence.Master}, {Name: "db2"}}, Map: statemap.Default()})
}

func nodes(starts []drive.Start) []int {
	var out []int
	for _, st := range starts {
		out = append(out, st.Node)
	}
	return out
}

func want(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\ngot:\n%s\nwant:\n%s", what, got, want)
	}
}

// TestInstantOrder: at one instant the outcomes that ended at once count in node order,
// whatever order they were reported in, before the tick, and then the observers look.
func TestInstantOrder(t *testing.T) {
	l := &log{}
	var counted []string
	d := drive.New(core.New(cluster(), nil), drive.Config{Interval: 10 * s, End: 10 * s, EveryTick: true,
		Counted: func(at time.Duration, i int, c statemap.Condition) { counted = append(counted, fmt.Sprint(at, i, c)) }}, l)
	if next := d.Next(); next != 0 {
		t.Fatalf("first instant %v, want 0", next)
	}
	w := d.Begin(0)
	if got := nodes(w.Starts); !slices.Equal(got, []int{0, 1}) {
		t.Fatalf("starts at 0: %v, want both nodes", got)
	}
	d.Report(w.Starts[1], 0, statemap.SocketIOError)
	d.Report(w.Starts[0], 0, statemap.OK)
	d.Close()
	want(t, "instant 0", l.take(), `0s state db1 ok
0s state db2 socket_io_error
0s alarm-raised db2 socket_io_error
0s alarm-expired db2 socket_io_error
0s failed db2 socket_io_error
0s instant`)
	want(t, "counted", strings.Join(counted, ", "), "0s 0 ok, 0s 1 socket_io_error")
	// The next probes start at 10 s, which is a tick and the end: the probes that end at once
	// count before the tick, and the run is over.
	if next := d.Next(); next != 10*s {
		t.Fatalf("next instant %v, want 10s", next)
	}
	w = d.Begin(10 * s)
	d.Report(w.Starts[0], 10*s, statemap.LoginResponseTimeout)
	d.Close()
	want(t, "instant 10s", l.take(), `10s state db1 login_response_timeout
10s alarm-raised db1 login_response_timeout
10s instant`)
	if !d.Ended() || d.Next() != drive.Never {
		t.Errorf("after the end: Ended %v, Next %v", d.Ended(), d.Next())
	}
}

// TestManagerOutage: a probe under way when its node's manager stops is lost, its outcome
// dropped when it comes; none starts while the manager is down; one starts at once when it
// comes back.
func TestManagerOutage(t *testing.T) {
	l := &log{}
	script := []act.Action{
		{At: 2 * s, Kind: act.ManagerDown, Node: 1},
		{At: 4 * s, Kind: act.ManagerUp, Node: 1},
	}
	d := drive.New(core.New(cluster(), nil), drive.Config{Interval: 3 * s, Script: script, End: 6 * s}, l)
	w := d.Begin(d.Next())
	d.Report(w.Starts[0], 0, statemap.OK)
	stalled := w.Starts[1] // db2's probe hangs
	d.Close()
	if next := d.Next(); next != 2*s {
		t.Fatalf("next instant %v, want 2s (the manager stopping)", next)
	}
	d.Begin(2 * s)
	d.Close()
	if d.Report(stalled, 5*s, statemap.LoginResponseTimeout) {
		t.Error("the outcome of a probe lost with its manager was taken")
	}
	w = d.Begin(d.Next())
	if w.At != 3*s || !slices.Equal(nodes(w.Starts), []int{0}) {
		t.Errorf("at %v starts %v, want db1's alone at 3s", w.At, nodes(w.Starts))
	}
	d.Report(w.Starts[0], 3*s, statemap.OK)
	d.Close()
	w = d.Begin(d.Next())
	if w.At != 4*s || !slices.Equal(nodes(w.Starts), []int{1}) {
		t.Errorf("at %v starts %v, want db2's at once at 4s", w.At, nodes(w.Starts))
	}
	d.Report(w.Starts[0], 4*s, statemap.OK)
	d.Close()
	want(t, "events", l.take(), `0s state db1 ok
0s instant
2s manager-down db2 undefined
2s instant
3s instant
4s manager-up db2 undefined
4s state db2 ok
4s instant`)
}

// TestLateOutcome: an outcome reported after its finish instant was run counts at a further
// instant at the time of the last one, and the node's next probe starts there if it is due.
func TestLateOutcome(t *testing.T) {
	l := &log{}
	d := drive.New(core.New(cluster(), nil), drive.Config{Interval: 3 * s, Checkpoints: []time.Duration{7 * s}, End: 20 * s}, l)
	w := d.Begin(d.Next())
	d.Report(w.Starts[0], 0, statemap.OK)
	late := w.Starts[1]
	d.Close()
	for d.Next() < 7*s {
		w = d.Begin(d.Next())
		for _, st := range w.Starts {
			d.Report(st, st.At, statemap.OK)
		}
		d.Close()
	}
	d.Begin(7 * s) // the checkpoint
	d.Close()
	l.take()
	if !d.Report(late, 5*s, statemap.LoginResponseTimeout) {
		t.Fatal("the late outcome was refused")
	}
	if next := d.Next(); next != 7*s {
		t.Fatalf("next instant %v, want 7s again (the last)", next)
	}
	w = d.Begin(7 * s)
	if !slices.Equal(nodes(w.Starts), []int{1}) {
		t.Errorf("starts %v, want db2's: its next was due at 5s", nodes(w.Starts))
	}
	d.Close()
	want(t, "the late instant", l.take(), `7s state db2 login_response_timeout
7s alarm-raised db2 login_response_timeout
7s instant`)
	if d.Report(late, 5*s, statemap.OK) {
		t.Error("an outcome reported twice was taken twice")
	}
}

// TestUndefinedOutcome: a probe that ended without an outcome is told to Counted, not to the
// engine, and its schedule goes on.
func TestUndefinedOutcome(t *testing.T) {
	l := &log{}
	var counted int
	d := drive.New(core.New(cluster(), nil), drive.Config{Interval: 3 * s, End: 3 * s, Counted: func(time.Duration, int, statemap.Condition) { counted++ }}, l)
	w := d.Begin(0)
	d.Report(w.Starts[0], 0, drive.NoOutcome)
	d.Report(w.Starts[1], 0, drive.NoOutcome)
	d.Close()
	if w = d.Begin(d.Next()); w.At != 3*s || len(w.Starts) != 2 {
		t.Errorf("at %v starts %v, want both at 3s", w.At, nodes(w.Starts))
	}
	d.Close()
	want(t, "events", l.take(), "0s instant\n3s instant")
	if counted != 2 {
		t.Errorf("Counted told %d times, want 2", counted)
	}
}

// TestQuietTicks: a tick that decides nothing, alone at its instant, is made and told only with
// EveryTick; without, the engine is told of it with the next tick it makes, or at the next
// instant.
func TestQuietTicks(t *testing.T) {
	for _, every := range []bool{false, true} {
		l := &log{}
		e := cluster()
		// db2's manager stays down, and db1 is probed once a minute: the ticks are alone.
		script := []act.Action{{At: 0, Kind: act.ManagerDown, Node: 1}, {At: 0, Kind: act.SetFault, Node: 0, Fault: fault.Fault{Kind: fault.Stall}}}
		d := drive.New(core.New(e, nil), drive.Config{Interval: time.Minute, Script: script, End: 2 * time.Minute, EveryTick: every}, l)
		var instants []time.Duration
		for !d.Ended() {
			w := d.Begin(d.Next())
			instants = append(instants, w.At)
			for _, st := range w.Starts {
				d.Report(st, st.At, statemap.QueryResultsTimeout)
			}
			d.Close()
		}
		made := []time.Duration{0, time.Minute, 2 * time.Minute}
		if every {
			made = nil
			for t := time.Duration(0); t <= 2*time.Minute; t += 10 * s {
				made = append(made, t)
			}
		}
		if !slices.Equal(instants, made) {
			t.Errorf("EveryTick %v: instants %v, want %v", every, instants, made)
		}
		if a := e.Alarms(nil, 0); len(a) != 1 || a[0].Count != 12 {
			t.Errorf("EveryTick %v: alarms at the end %+v, want one of 12 ticks", every, a)
		}
	}
}

// TestBeginOutOfTurn: Begin at any time but Next's is a bug in the adapter: it panics.
func TestBeginOutOfTurn(t *testing.T) {
	d := drive.New(core.New(cluster(), nil), drive.Config{Interval: 3 * s, End: time.Minute})
	defer func() {
		if recover() == nil {
			t.Error("Begin(1s) before the instant at 0 did not panic")
		}
	}()
	d.Begin(s)
}
