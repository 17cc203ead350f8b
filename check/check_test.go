package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/property"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

func loadMap(t testing.TB, path string) *statemap.Map {
	t.Helper()
	m, err := statemap.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// render writes everything a run found, as the CLI would show it: deterministic text.
func render(res *Result) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "properties %v traces %d violated %v\n", res.Properties, res.Traces, res.Violated)
	for _, v := range res.Violations {
		fmt.Fprintf(&b, "%s trace %d: %s\nshrunk in %d: %s\n", v.Property, v.Trace, v.Why, v.Replays, v.ShrunkWhy)
		b.Write(Timeline(v.Shrunk, nil, "", v.Property))
	}
	return b.Bytes()
}

func runAll(t *testing.T, m *statemap.Map, seed uint64, workers, traces int) []byte {
	t.Helper()
	var out []byte
	for _, f := range []Family{Benign, Fatal, Mixed} {
		res, err := Run(context.Background(), Config{Map: m, Family: f, Shape: DefaultShape(), Traces: traces, Seed: seed, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, render(res)...)
	}
	return out
}

// TestDeterministicAcrossCores: the same seed gives byte-identical results, counts of violating
// traces included, whatever GOMAXPROCS and however many workers; a run where every property is
// violated included.
func TestDeterministicAcrossCores(t *testing.T) {
	m := loadMap(t, "../conf/examples/aggressive.properties")
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(1)
	want := runAll(t, m, 7, 0, 600)
	runtime.GOMAXPROCS(2)
	for _, workers := range []int{0, 1, 3, 8} {
		if got := runAll(t, m, 7, workers, 600); !bytes.Equal(got, want) {
			t.Fatalf("GOMAXPROCS 2, %d workers: results differ from GOMAXPROCS 1:\n%s\n---\n%s", workers, got, want)
		}
	}
	if !bytes.Contains(want, []byte("no-false-failover trace")) {
		t.Fatalf("the aggressive statemap should violate no-false-failover:\n%s", want)
	}
	// A single property violated in many traces: the first violating trace wins, and every
	// violating trace is counted.
	one := []property.Spec{{Name: property.NoFalseFailover}}
	var first []byte
	for _, workers := range []int{1, 2, 5} {
		res, err := Run(context.Background(), Config{Map: m, Family: Benign, Properties: one, Shape: DefaultShape(), Traces: 5000, Seed: 3, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if got := render(res); first == nil {
			first = got
		} else if !bytes.Equal(got, first) {
			t.Fatalf("%d workers: %s\nwant %s", workers, got, first)
		}
	}
}

// TestSeedMatters: another seed gives other traces; the same seed and index the same trace.
func TestSeedMatters(t *testing.T) {
	m := statemap.Default()
	for _, f := range []Family{Benign, Fatal, Mixed} {
		g, err := NewGenerator(f, DefaultShape(), m, 0)
		if err != nil {
			t.Fatal(err)
		}
		a := Timeline(g.Trace(TraceRand(1, 0)), nil, "")
		if b := Timeline(g.Trace(TraceRand(1, 0)), nil, ""); !bytes.Equal(a, b) {
			t.Errorf("%s: the same seed and index gave two traces", f)
		}
		if b := Timeline(g.Trace(TraceRand(2, 0)), nil, ""); bytes.Equal(a, b) {
			t.Errorf("%s: seeds 1 and 2 gave the same trace 0", f)
		}
		if b := Timeline(g.Trace(TraceRand(1, 1)), nil, ""); bytes.Equal(a, b) {
			t.Errorf("%s: traces 0 and 1 of seed 1 are the same", f)
		}
	}
	aggressive := loadMap(t, "../conf/examples/aggressive.properties")
	if a, b := runAll(t, aggressive, 1, 0, 300), runAll(t, aggressive, 2, 0, 300); bytes.Equal(a, b) {
		t.Errorf("seeds 1 and 2 found the same counterexamples:\n%s", a)
	}
}

// eventLog replays tl and returns its event log as text.
func eventLog(tl *timeline.Timeline, m *statemap.Map) string {
	var b bytes.Buffer
	p := report.NewPrinter(&b, report.Text, tl.Start, tl.Names())
	sim.Replay(tl, m, p)
	p.Summary(tl.File, report.New(tl, m), nil)
	return b.String()
}

// TestTimelineRoundTrip: a generated trace written as timeline text and parsed back replays
// to the same event log, so a counterexample file is the trace that was checked.
func TestTimelineRoundTrip(t *testing.T) {
	m := statemap.Default()
	for _, f := range []Family{Benign, Fatal, Mixed, Partition} {
		g, err := NewGenerator(f, DefaultShape(), m, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 30 {
			tl := g.Trace(TraceRand(5, i))
			text := Timeline(tl, []string{"round trip"}, "", property.Spec{Name: property.SingleMaster})
			back, err := timeline.Parse("generated", text)
			if err != nil {
				t.Fatalf("%s trace %d does not parse: %v\n%s", f, i, err, text)
			}
			if len(back.Expects) != 1 {
				t.Fatalf("%s trace %d: %d expectations, want 1", f, i, len(back.Expects))
			}
			if back.Family != f.String() {
				t.Fatalf("%s trace %d: family %q once written", f, i, back.Family)
			}
			if got, want := eventLog(back, m), eventLog(tl, m); got != want {
				t.Fatalf("%s trace %d replays differently once written:\n%s", f, i, text)
			}
		}
	}
}

// TestGeneratedTimesAreOrdered: every trace's events are in time order, on whole seconds,
// inside the trace, and name nodes of the cluster.
func TestGeneratedTracesAreWellFormed(t *testing.T) {
	for _, path := range []string{"", "../conf/examples/aggressive.properties", "../conf/examples/tolerant.properties"} {
		m := loadMap(t, path)
		for _, f := range []Family{Benign, Fatal, Mixed, Partition} {
			g, err := NewGenerator(f, DefaultShape(), m, 0)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 300 {
				tl := g.Trace(TraceRand(9, i))
				members := len(tl.Nodes) + len(tl.Witnesses)
				for k, ev := range tl.Events {
					if ev.At < 0 || ev.At >= tl.End || ev.At%1e9 != 0 || (k > 0 && ev.At < tl.Events[k-1].At) {
						t.Fatalf("%s %s trace %d: event %d at %v", path, f, i, k, ev.At)
					}
					switch {
					case ev.Kind == timeline.Partition:
						if ev.Segments != nil && len(ev.Segments) != members {
							t.Fatalf("%s %s trace %d: event %d partitions %d of %d members", path, f, i, k, len(ev.Segments), members)
						}
					case ev.Kind == timeline.SetFault || ev.Kind == timeline.Recover:
						if ev.Node < 0 || ev.Node >= len(tl.Nodes) {
							t.Fatalf("%s %s trace %d: event %d names node %d", path, f, i, k, ev.Node)
						}
					case ev.Kind != timeline.SetPolicy && (ev.Node < 0 || ev.Node >= members):
						t.Fatalf("%s %s trace %d: event %d names member %d", path, f, i, k, ev.Node)
					}
				}
			}
		}
	}
}

// TestCounterexamplesReproduce: every violation's shrunk trace, written and parsed back,
// fails its expect property line under replay, with the same verdict; and shrinking made it
// no bigger than the original.
func TestCounterexamplesReproduce(t *testing.T) {
	aggressive := loadMap(t, "../conf/examples/aggressive.properties")
	// Tolerant, and too many connections fails after 2 ticks: false fences of another kind.
	crowded := statemap.New(statemap.Rules{statemap.TooManyConnections: {State: statemap.Suspect, Threshold: 2, Action: statemap.Fail}}, mustRules(loadMap(t, "../conf/examples/tolerant.properties")))
	for _, c := range []struct {
		m     *statemap.Map
		f     Family
		props []property.Spec
	}{
		{aggressive, Benign, nil},
		{crowded, Benign, []property.Spec{{Name: property.NoFalseFailover}}},
		{aggressive, Fatal, []property.Spec{{Name: property.DetectsDeathWithin, Arg: "45s"}}},
		{crowded, Fatal, []property.Spec{{Name: property.DetectsDeathWithin, Arg: "30s"}}},
		{aggressive, Mixed, []property.Spec{{Name: property.DetectsDeathWithin, Arg: "45s"}, {Name: property.SingleMaster}}},
		// The quorum rule makes two primaries where a witness makes up the minority's
		// majority: two writers, whatever the liveness thresholds.
		{statemap.Default(), Partition, []property.Spec{{Name: property.NoSplitBrain, Arg: "1m"}}},
	} {
		m, f, props := c.m, c.f, c.props
		res, err := Run(context.Background(), Config{Map: m, Family: f, Properties: props, Shape: DefaultShape(), Traces: 500, Seed: 11})
		if err != nil {
			t.Fatal(err)
		}
		if res.Held() {
			t.Fatalf("%s %v: want a violation", f, props)
		}
		for _, v := range res.Violations {
			if len(v.Shrunk.Events) > len(v.Original.Events) || v.Shrunk.End > v.Original.End || len(v.Shrunk.Nodes) > len(v.Original.Nodes) {
				t.Errorf("%s: shrinking grew the trace", v.Property)
			}
			text := Timeline(v.Shrunk, nil, "", v.Property)
			tl, err := timeline.Parse("ce.timeline", text)
			if err != nil {
				t.Fatalf("%s: %v\n%s", v.Property, err, text)
			}
			xs := expect.NewSet(tl, m)
			sim.Replay(tl, m, xs)
			r := xs.Results()
			if len(r) != 1 || r[0].Held || r[0].Why != v.ShrunkWhy {
				t.Errorf("%s: replay of the counterexample judged %+v, want failed with %q\n%s", v.Property, r, v.ShrunkWhy, text)
			}
		}
	}
}

func TestNoTraceIsNoPass(t *testing.T) {
	_, err := Run(context.Background(), Config{Map: statemap.Default(), Shape: DefaultShape()})
	if !errors.Is(err, ErrNoTraces) {
		t.Fatalf("Run with no traces: %v, want ErrNoTraces", err)
	}
}

// TestDefaultsHold: the shipped defaults and the engine keep every property on every family.
func TestDefaultsHold(t *testing.T) {
	traces := 3000
	if testing.Short() {
		traces = 300
	}
	for _, path := range []string{"", "../conf/examples/tolerant.properties"} {
		m := loadMap(t, path)
		for _, f := range []Family{Benign, Fatal, Mixed} {
			res, err := Run(context.Background(), Config{Map: m, Family: f, Shape: DefaultShape(), Traces: traces, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range res.Violations {
				t.Errorf("%s %s: %s in trace %d: %s\n%s", path, f, v.Property, v.Trace, v.Why, Timeline(v.Shrunk, nil, path, v.Property))
			}
		}
	}
}

// TestFamilyRecordReproduces: a counterexample records the family it was generated in, so its
// replay judges no-false-failover exactly as failsim check did. On a benign trace every fence
// is false, even of a dead database (here a refuse left sustained, as shrinking can leave a
// blip whose heal it removed); the same trace without its record is judged by the master's
// fault, and a refused database is dead.
func TestFamilyRecordReproduces(t *testing.T) {
	m := statemap.Default()
	g, err := NewGenerator(Benign, DefaultShape(), m, 0)
	if err != nil {
		t.Fatal(err)
	}
	tl := clone(g.Trace(TraceRand(1, 0)))
	tl.Events = []timeline.Event{{At: 0, Kind: timeline.SetFault, Node: 0, Fault: fault.Fault{Kind: fault.Refuse}}}
	tl.End = time.Minute
	s := property.Spec{Name: property.NoFalseFailover}
	bad, why, err := Violates(tl, m, s)
	if err != nil || !bad {
		t.Fatalf("check's judgement: violated %v (%v)", bad, err)
	}
	text := Timeline(tl, nil, "", s)
	if !bytes.Contains(text, []byte("\nfamily benign\n")) {
		t.Fatalf("no family record:\n%s", text)
	}
	for _, c := range []struct {
		text    []byte
		held    bool
		verdict string
	}{
		{text, false, why},
		{bytes.Replace(text, []byte("family benign\n"), nil, 1), true, ""},
	} {
		back, err := timeline.Parse("ce.timeline", c.text)
		if err != nil {
			t.Fatal(err)
		}
		xs := expect.NewSet(back, m)
		sim.Replay(back, m, xs)
		if r := xs.Results(); len(r) != 1 || r[0].Held != c.held || r[0].Why != c.verdict {
			t.Errorf("replay judged %+v, want held %v %q\n%s", r, c.held, c.verdict, c.text)
		}
	}
}

// TestShortTracesFence: a fatal trace can be made when a fault's deadline fits after the first
// twelfth of the trace: under the defaults refuse fences in 5 s, so two minutes are plenty;
// every fatal trace's fault is judged before the end.
func TestShortTracesFence(t *testing.T) {
	m := statemap.Default()
	shape := DefaultShape()
	shape.Length = 2 * time.Minute
	g, err := NewGenerator(Fatal, shape, m, 0)
	if err != nil {
		t.Fatalf("2m: %v", err)
	}
	var kinds []string
	for _, ff := range g.fatal {
		kinds = append(kinds, fmt.Sprintf("%s %s", ff.f, ff.need))
	}
	if got, want := strings.Join(kinds, ", "), "refuse 5s, reset 5s, close 5s, freeze 1m30s, blackhole 1m30s, unreachable 1m5s"; got != want {
		t.Errorf("fatal faults of a 2m trace: %s, want %s", got, want)
	}
	for i := range 200 {
		tl := g.Trace(TraceRand(1, i))
		var fatal timeline.Event // the master's last fault: the fatal one, sustained to the end
		for _, ev := range tl.Events {
			if ev.Node == 0 {
				fatal = ev
			}
		}
		k := slices.IndexFunc(g.fatal, func(ff fatalFault) bool { return ff.f == fatal.Fault })
		if k < 0 || fatal.At+g.fatal[k].need > tl.End {
			t.Fatalf("trace %d: the master's last fault %s at %s is no fatal fault judged by the end %s", i, fatal.Fault, fatal.At, tl.End)
		}
	}
	shape.Length = time.Minute
	_, err = NewGenerator(Fatal, shape, m, 2*time.Minute)
	if want := "no fatal trace can be made: detects-death-within 2m0s is longer than 55s, the part of a 1m0s trace after its first twelfth, where fatal faults start (the statemap fences no fault in time to judge)"; err == nil || err.Error() != want || !errors.Is(err, ErrNothingFatal) {
		t.Errorf("a 2m objective in a 1m trace: %v\nwant %s", err, want)
	}
}

// TestFatalOnly: narrowed to one condition, fatal traces put only its faults on the master,
// and the benign noise stays what it was.
func TestFatalOnly(t *testing.T) {
	m := statemap.Default()
	only := func(c statemap.Condition) bool { return c == statemap.LoginResponseTimeout }
	g, err := NewGeneratorOptions(Fatal, DefaultShape(), m, Options{FatalOnly: only})
	if err != nil {
		t.Fatal(err)
	}
	if got := g.FatalFaults(); len(got) != 1 || got[0].Kind != fault.Freeze {
		t.Fatalf("fatal faults narrowed to login_response_timeout: %v, want [freeze]", got)
	}
	all, err := NewGenerator(Fatal, DefaultShape(), m, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(all.FatalFaults()); n < 3 {
		t.Fatalf("unnarrowed: %d fatal faults, want every one the defaults fence", n)
	}
	for i := range 50 {
		tl := g.Trace(TraceRand(1, i))
		var last fault.Fault
		for _, ev := range tl.Events {
			if ev.Kind == timeline.SetFault && ev.Node == 0 {
				last = ev.Fault
			}
		}
		if last.Kind != fault.Freeze {
			t.Fatalf("trace %d: the master's last fault is %v, want freeze", i, last)
		}
	}
	if _, err := NewGeneratorOptions(Fatal, DefaultShape(), m, Options{FatalOnly: func(statemap.Condition) bool { return false }}); !errors.Is(err, ErrNothingFatal) {
		t.Fatalf("narrowed to nothing: %v, want ErrNothingFatal", err)
	}
}

// TestShardsAddUp: a run split into contiguous blocks of trace indices finds what the whole run
// finds: the counts add up, and the block holding the lowest violating trace has the same
// shrunk counterexample.
func TestShardsAddUp(t *testing.T) {
	m := loadMap(t, "../conf/examples/aggressive.properties")
	for _, c := range []struct {
		f     Family
		props []property.Spec
	}{{Benign, nil}, {Fatal, []property.Spec{{Name: property.DetectsDeathWithin, Arg: "45s"}, {Name: property.SingleMaster}}}} {
		f := c.f
		whole, err := Run(context.Background(), Config{Map: m, Family: f, Properties: c.props, Shape: DefaultShape(), Traces: 300, Seed: 4})
		if err != nil {
			t.Fatal(err)
		}
		if whole.Held() || whole.Violated[0] < 2 {
			t.Fatalf("%s: the aggressive statemap should violate %s in several traces: %v", f, whole.Properties[0], whole.Violated)
		}
		sum := make([]int, len(whole.Properties))
		firsts := map[string]Violation{}
		for _, block := range [][2]int{{0, 7}, {7, 150}, {150, 299}, {299, 300}} {
			part, err := Run(context.Background(), Config{Map: m, Family: f, Properties: c.props, Shape: DefaultShape(), First: block[0], Traces: block[1] - block[0], Seed: 4, Workers: 3})
			if err != nil {
				t.Fatal(err)
			}
			if part.First != block[0] || part.Traces != block[1]-block[0] {
				t.Fatalf("block %v: result says first %d, %d traces", block, part.First, part.Traces)
			}
			for k, n := range part.Violated {
				sum[k] += n
			}
			for _, v := range part.Violations {
				if v.Trace < block[0] || v.Trace >= block[1] {
					t.Fatalf("block %v: violation in trace %d", block, v.Trace)
				}
				if _, ok := firsts[v.Property.String()]; !ok {
					firsts[v.Property.String()] = v
				}
			}
		}
		if !slices.Equal(sum, whole.Violated) {
			t.Errorf("%s: blocks counted %v violations, the whole run %v", f, sum, whole.Violated)
		}
		for _, v := range whole.Violations {
			b, ok := firsts[v.Property.String()]
			if !ok || b.Trace != v.Trace || !bytes.Equal(Timeline(b.Shrunk, nil, "", b.Property), Timeline(v.Shrunk, nil, "", v.Property)) {
				t.Errorf("%s %s: the blocks' first counterexample differs from the whole run's (trace %d)", f, v.Property, v.Trace)
			}
		}
	}
	if _, err := Run(context.Background(), Config{Map: m, Shape: DefaultShape(), First: -1, Traces: 1}); err == nil {
		t.Error("a negative first trace was accepted")
	}
}
