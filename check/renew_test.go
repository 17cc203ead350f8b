package check

import (
	"testing"

	"github.com/failsim/failsim/property"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
)

// TestRenewedSetJudgesAsFresh: failsim check renews one property.Set for trace after trace; on
// every family, with its properties and with tight deadlines that many traces violate, each
// property of the renewed set finds what the same property of a set made afresh for the trace
// finds, verdict for verdict; replayed under the aggressive statemap too, which fences much of
// what the default one's traces hold as benign.
func TestRenewedSetJudgesAsFresh(t *testing.T) {
	m, aggressive := statemap.Default(), loadMap(t, "../conf/examples/aggressive.properties")
	const traces, seed = 150, 7
	for _, f := range []Family{Benign, Fatal, Mixed, Partition} {
		g, err := NewGenerator(f, DefaultShape(), m, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, specs := range [][]property.Spec{f.Defaults(), {{Name: property.DetectsDeathWithin, Arg: "30s"}, {Name: property.SelfHealResets}, {Name: property.NoFenceInMaintenance}}} {
			renewed, err := property.NewSet(g.propertyTrace(), specs...)
			if err != nil {
				t.Fatal(err)
			}
			var r sim.Replayer
			violated := 0
			for i := range 2 * traces {
				tl, under := g.Trace(TraceRand(seed, i/2)), []*statemap.Map{m, aggressive}[i%2]
				if i > 0 {
					renewed.Renew()
				}
				r.Replay(tl, under, renewed)
				fresh, _ := property.NewSet(g.propertyTrace(), specs...)
				r.Replay(tl, under, fresh)
				for k := range specs {
					bf, wf := fresh.Violated(k)
					br, wr := renewed.Violated(k)
					if bf != br || wf != wr {
						t.Fatalf("%s trace %d, %s: fresh %v %q, renewed %v %q", f, i, specs[k], bf, wf, br, wr)
					}
					if bf {
						violated++
					}
				}
			}
			t.Logf("%s %v: %d violations found alike", f, specs, violated)
		}
	}
}
