package sim_test

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/shadow"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// shadowTimelines are the timelines the shadow tests replay: the shipped incidents and the
// rules' scenarios.
func shadowTimelines(t *testing.T) []string {
	t.Helper()
	var paths []string
	for _, glob := range []string{"../testdata/incidents/*.timeline", "testdata/rules/*.timeline"} {
		ps, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, ps...)
	}
	if len(paths) < 20 {
		t.Fatalf("found %d timelines: want the incidents and the rules' scenarios", len(paths))
	}
	return paths
}

// aggressive is conf/examples/aggressive.properties as a shadow.
func aggressive(t *testing.T) shadow.Spec {
	t.Helper()
	m, err := statemap.Load("../conf/examples/aggressive.properties")
	if err != nil {
		t.Fatal(err)
	}
	return shadow.Spec{Name: "aggressive", File: "conf/examples/aggressive.properties", Map: m}
}

// decisions is an observer that keeps the decisions compared (shadow.Of), in order.
type decisions []shadow.Decision

func (d *decisions) Event(ev act.Event) {
	if x, ok := shadow.Of(ev); ok {
		*d = append(*d, x)
	}
}

// shadowDecisions is a Sink that keeps the decisions of each shadow.
type shadowDecisions struct {
	of    [][]shadow.Decision
	tally *shadow.Tally
}

func (s *shadowDecisions) Decided(i int, d shadow.Decision) {
	s.of[i] = append(s.of[i], d)
	s.tally.Decided(i, d)
}
func (s *shadowDecisions) Diverged(d shadow.Divergence) { s.tally.Diverged(d) }

// TestShadowsChangeNothing: on every timeline, the event log and the verdict of a replay with
// shadows beside it (the aggressive map, and the live map itself) are byte for byte those of
// the replay without; and, but where a timeline's workload ranks the candidates (a shadow
// promotes the first eligible replica), a shadow under the live map diverges nowhere and the
// aggressive shadow decides exactly what a replay under the aggressive map decides: it was fed
// every probe and tick the live engine was.
func TestShadowsChangeNothing(t *testing.T) {
	for _, path := range shadowTimelines(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			tl, sm, err := timeline.LoadFile(path, "")
			if err != nil {
				t.Fatal(err)
			}
			var plain, shadowed bytes.Buffer
			if _, err := sim.Run(context.Background(), &plain, report.Text, tl, sm); err != nil {
				t.Fatal(err)
			}
			specs := []shadow.Spec{aggressive(t), {Name: "same", Map: sm}}
			if _, err := sim.RunShadows(context.Background(), &shadowed, report.Text, tl, sm, specs); err != nil {
				t.Fatal(err)
			}
			got := shadowed.Bytes()[:min(plain.Len(), shadowed.Len())]
			if !bytes.Equal(got, plain.Bytes()) {
				t.Fatalf("the replay with shadows told another run:\n%s", firstDiff(plain.String(), string(got)))
			}

			sink := &shadowDecisions{of: make([][]shadow.Decision, 2), tally: shadow.NewTally(2)}
			if _, err := sim.ReplayShadows(context.Background(), tl, sm, specs, sink); err != nil {
				t.Fatal(err)
			}
			if tl.Repl != nil {
				return // its engine ranks the candidates by the workload's positions, a shadow does not
			}
			if ds := sink.tally.Of("same"); len(ds) != 0 {
				t.Errorf("a shadow under the live map diverged: %v", ds)
			}
			var want decisions
			sim.Replay(tl, specs[0].Map, &want)
			for i := range want {
				want[i].Ticks, want[i].Threshold = 0, 0 // the observer sees no expiry
			}
			got2 := slices.Clone(sink.of[0])
			for i := range got2 {
				got2[i].Ticks, got2[i].Threshold = 0, 0
			}
			if !slices.Equal(got2, []shadow.Decision(want)) {
				t.Errorf("the aggressive shadow decided\n  %v\na replay under its map\n  %v", got2, want)
			}
		})
	}
}

// TestShadowGolden pins replay --shadow's output on the EBS stall, in text and JSON: the
// aggressive statemap's failover of db1 at 21:12:20 is a divergence, after a verdict of no
// failover, and a shadow under the live map shows none.
func TestShadowGolden(t *testing.T) {
	tl, sm, err := timeline.LoadFile("../testdata/incidents/ebs-stall.timeline", "")
	if err != nil {
		t.Fatal(err)
	}
	specs := []shadow.Spec{aggressive(t), {Name: "same", File: "conf/statemap.properties.defaults", Map: sm}}
	for _, c := range []struct {
		f    report.Format
		file string
	}{{report.Text, "ebs-stall.txt"}, {report.JSON, "ebs-stall.json"}} {
		var out bytes.Buffer
		results, err := sim.RunShadows(context.Background(), &out, c.f, tl, sm, specs)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range results {
			if !r.Held {
				t.Errorf("%s: the shadows made an expectation fail: %s", c.file, r.Text)
			}
		}
		golden(t, filepath.Join("testdata/shadow", c.file), out.Bytes())
	}
}
