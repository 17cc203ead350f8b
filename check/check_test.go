package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
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
	fmt.Fprintf(&b, "properties %v traces %d\n", res.Properties, res.Traces)
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

// TestDeterministicAcrossCores: the same seed gives byte-identical results whatever GOMAXPROCS
// and however many workers; a run that stops early (every property violated) included.
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
	// Early stop: a single property violated in many traces; the first violating trace wins.
	one := []Spec{{Name: sim.NoFalseFailover}}
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
func eventLog(tl *sim.Timeline, m *statemap.Map) string {
	var b bytes.Buffer
	p := sim.NewPrinter(&b, sim.Text, tl.Start)
	sim.Replay(tl, m, p)
	p.Summary(tl.File, sim.NewReport(tl, m), nil)
	return b.String()
}

// TestTimelineRoundTrip: a generated trace written as timeline text and parsed back replays
// to the same event log, so a counterexample file is the trace that was checked.
func TestTimelineRoundTrip(t *testing.T) {
	m := statemap.Default()
	for _, f := range []Family{Benign, Fatal, Mixed} {
		g, err := NewGenerator(f, DefaultShape(), m, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 30 {
			tl := g.Trace(TraceRand(5, i))
			text := Timeline(tl, []string{"round trip"}, "", Spec{Name: sim.SingleMaster})
			back, err := sim.Parse("generated", text)
			if err != nil {
				t.Fatalf("%s trace %d does not parse: %v\n%s", f, i, err, text)
			}
			if len(back.Expects) != 1 {
				t.Fatalf("%s trace %d: %d expectations, want 1", f, i, len(back.Expects))
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
		for _, f := range []Family{Benign, Fatal, Mixed} {
			g, err := NewGenerator(f, DefaultShape(), m, 0)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 300 {
				tl := g.Trace(TraceRand(9, i))
				for k, ev := range tl.Events {
					if ev.At < 0 || ev.At >= tl.End || ev.At%1e9 != 0 || (k > 0 && ev.At < tl.Events[k-1].At) {
						t.Fatalf("%s %s trace %d: event %d at %v", path, f, i, k, ev.At)
					}
					if ev.Kind != sim.SetPolicy && (ev.Node < 0 || ev.Node >= len(tl.Nodes)) {
						t.Fatalf("%s %s trace %d: event %d names node %d", path, f, i, k, ev.Node)
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
	m := loadMap(t, "../conf/examples/aggressive.properties")
	for _, c := range []struct {
		f     Family
		props []Spec
	}{
		{Benign, nil},
		{Fatal, []Spec{{Name: sim.DetectsDeathWithin, Arg: "45s"}}},
		{Mixed, []Spec{{Name: sim.DetectsDeathWithin, Arg: "45s"}, {Name: sim.SingleMaster}}},
	} {
		f, props := c.f, c.props
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
			tl, err := sim.Parse("ce.timeline", text)
			if err != nil {
				t.Fatalf("%s: %v\n%s", v.Property, err, text)
			}
			obs := []sim.Observer{}
			for _, x := range tl.Expects {
				obs = append(obs, x)
			}
			sim.Replay(tl, m, obs...)
			r := sim.Judge(tl.Expects)
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

func TestSpec(t *testing.T) {
	for in, want := range map[string]string{
		"single-master":            "",
		"detects-death-within=90s": "",
		"detects-death-within=x":   `detects-death-within: "x" is not a positive duration such as 90s or 2m`,
		"nope":                     `unknown property "nope"`,
		"self-heal-resets=1":       `self-heal-resets takes no argument, got "1"`,
	} {
		_, err := ParseSpec(in)
		if (err == nil) != (want == "") || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("ParseSpec(%q) = %v, want %q", in, err, want)
		}
	}
}
