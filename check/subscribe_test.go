package check

import (
	"slices"
	"testing"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/property"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
)

// toldAll judges properties as a property.Set did before subscriptions: every property is told
// every event of the run, whatever its topics.
type toldAll struct {
	props []property.Property
	look  []bool
	// ignored counts, per property, the events outside its topics that it was told and that
	// asked it to look: a subscription that misses what its property judges shows here.
	ignored []int
	subs    []property.Topics
}

func (a *toldAll) Event(ev act.Event) {
	t := property.Topics(1) << property.TopicOf(ev)
	for i, p := range a.props {
		if p.Event(ev) {
			a.look[i] = true
			if a.subs[i]&t == 0 {
				a.ignored[i]++
			}
		}
	}
}

func (a *toldAll) Instant(at time.Duration, e fence.View) {
	for i, p := range a.props {
		if a.look[i] {
			a.look[i] = p.Look(at, e)
		}
	}
}

// TestSubscriptionsChangeNothing: a property.Set tells each property only the events of its
// topics; every property's verdict and its first violation's text, on every family's traces
// under the default and the aggressive statemap, are those of telling it every event, and no
// property asks to look after an event outside its topics.
func TestSubscriptionsChangeNothing(t *testing.T) {
	maps := map[string]*statemap.Map{"default": statemap.Default(), "aggressive": loadMap(t, "../conf/examples/aggressive.properties")}
	var specs []property.Spec
	for _, n := range property.Names() {
		specs = append(specs, property.Spec{Name: n})
	}
	specs = slices.DeleteFunc(specs, func(s property.Spec) bool { return s.Name == property.MaxOutage })
	specs = append(specs, property.Spec{Name: property.MaxOutage, Arg: "20s"})
	violated := 0
	for mapName, m := range maps {
		for _, f := range []Family{Benign, Fatal, Mixed, Partition} {
			g, err := NewGenerator(f, DefaultShape(), m, 0)
			if err != nil {
				t.Fatal(err)
			}
			g.work = work
			for i := range 150 {
				set, err := property.NewSet(g.propertyTrace(), specs...)
				if err != nil {
					t.Fatal(err)
				}
				all := &toldAll{look: make([]bool, len(specs)), ignored: make([]int, len(specs))}
				for _, sp := range specs {
					p, err := property.New(sp, g.propertyTrace())
					if err != nil {
						t.Fatal(err)
					}
					all.props, all.look[len(all.props)] = append(all.props, p), true
					sub := property.AllTopics
					if s, ok := p.(property.Subscriber); ok {
						sub = s.Topics()
					}
					all.subs = append(all.subs, sub)
				}
				sim.Replay(g.Trace(TraceRand(5, i)), m, set, all)
				for k, sp := range specs {
					bad, why := set.Violated(k)
					held, whyAll := all.props[k].Verdict()
					if bad == held || (bad && why != whyAll) {
						t.Errorf("%s, %s, trace %d: %s: subscribed violated=%v %q, told all held=%v %q", mapName, f, i, sp.Name, bad, why, held, whyAll)
					}
					if bad {
						violated++
					}
					if all.ignored[k] > 0 {
						t.Errorf("%s, %s, trace %d: %s asked to look after %d events outside its topics", mapName, f, i, sp.Name, all.ignored[k])
					}
				}
			}
		}
	}
	if violated == 0 {
		t.Fatal("no property violated on any trace: nothing compared")
	}
}
