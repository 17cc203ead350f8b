package check

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/property"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
)

// TestSparseSameVerdicts: failsim check replays its traces under drive.Config.Sparse when its
// properties allow (property.Set.Sparse), leaving out instants at which nothing is decided.
// Replayed both ways, every trace of every family decides the same events in the same order,
// the sparse replay's instants are instants of the other with the engine the same at each, and
// every property's verdict is the same, for the family's properties and for tight deadlines
// that many traces violate, and under the aggressive statemap, which fences much of what the
// default one's traces hold as benign. (A partition trace changes no fault: sparse or not, its replay is
// the same.)
func TestSparseSameVerdicts(t *testing.T) {
	m, aggressive := statemap.Default(), loadMap(t, "../conf/examples/aggressive.properties")
	const traces, seed = 100, 5
	for _, f := range []Family{Benign, Fatal, Mixed} {
		g, err := NewGenerator(f, DefaultShape(), m, 0)
		if err != nil {
			t.Fatal(err)
		}
		specSets := [][]property.Spec{f.Defaults()}
		for _, within := range []string{"20s", "45s", "1m10s"} {
			specSets = append(specSets, []property.Spec{{Name: property.DetectsDeathWithin, Arg: within}, {Name: property.SelfHealResets}, {Name: property.SingleMaster}})
		}
		var strict, sparse sim.Replayer
		sparse.Sparse = true
		left, violated := 0, 0
		for _, specs := range specSets {
			for i := range traces {
				tl, under := g.Trace(TraceRand(seed, i)), []*statemap.Map{m, aggressive}[i%2]
				a, b := &tape{}, &tape{}
				sa, err := property.NewSet(g.propertyTrace(), specs...)
				if err != nil {
					t.Fatal(err)
				}
				sb, _ := property.NewSet(g.propertyTrace(), specs...)
				strict.Replay(tl, under, a, sa)
				sparse.Sparse = sb.Sparse()
				sparse.Replay(tl, under, b, sb)
				if !slices.Equal(a.events, b.events) {
					t.Fatalf("%s trace %d: the events differ:\nstrict:\n%s\nsparse:\n%s", f, i, strings.Join(a.events, "\n"), strings.Join(b.events, "\n"))
				}
				k := 0
				for j, at := range b.at {
					for k < len(a.at) && a.at[k] < at {
						k++
					}
					if k == len(a.at) || a.at[k] != at {
						t.Fatalf("%s trace %d: sparse instant %v is no instant of the strict replay", f, i, at)
					}
					if a.view[k] != b.view[j] {
						t.Fatalf("%s trace %d: at %v the engine differs:\nstrict: %s\nsparse: %s", f, i, at, a.view[k], b.view[j])
					}
				}
				left += len(a.at) - len(b.at)
				for p := range specs {
					ba, wa := sa.Violated(p)
					bb, wb := sb.Violated(p)
					if ba != bb || wa != wb {
						t.Fatalf("%s trace %d, %s: strict %v %q, sparse %v %q", f, i, specs[p], ba, wa, bb, wb)
					}
					if ba {
						violated++
					}
				}
			}
		}
		t.Logf("%s: %d instants left out, %d violations found alike", f, left, violated)
	}
}

// tape records a replay's events and, at each instant, the engine as it stands.
type tape struct {
	events []string
	at     []time.Duration
	view   []string
}

func (r *tape) Event(ev act.Event) { r.events = append(r.events, fmt.Sprintf("%T %+v", ev, ev)) }

func (r *tape) Instant(at time.Duration, e fence.View) {
	var b strings.Builder
	fmt.Fprintf(&b, "policy %v coordinator %d master %d;", e.Policy(), e.Coordinator(), e.Master())
	for i := range e.Len() {
		fmt.Fprintf(&b, " %+v %+v", e.Node(i), e.Alarms(nil, i))
	}
	r.at = append(r.at, at)
	r.view = append(r.view, b.String())
}
