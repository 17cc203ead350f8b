package property_test

import (
	"testing"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/group"
	"github.com/failsim/failsim/property"
)

// A split-brain window that gains a writer while it is open (cluster.SplitBrainWidened) is
// named whole by no-split-brain's message, as the event log and the summary name it: every
// node writable in the window so far, not only the ones it opened with.
func TestNoSplitBrainNamesEveryWriter(t *testing.T) {
	const s = time.Second
	tr := property.Trace{Names: []string{"db1", "db2", "db3"}, Start: time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), Interval: 3 * s, Timeout: 5 * s}
	opened := group.SetOf(0).With(1)
	all := opened.With(2)
	for _, c := range []struct {
		name string
		evs  []act.Event
		look time.Duration // a Look at the end of the instant, 0 for none
		want string
	}{
		{"widened, still open", []act.Event{
			&cluster.SplitBrain{At: 10 * s, Open: true, Writable: opened},
			&cluster.SplitBrainWidened{At: 20 * s, Writable: all, From: 10 * s},
		}, 31 * s, "00:00:31: split brain: db1 db2 db3 writable at once since 00:00:10, 21s in all (at most 20s)"},
		{"widened, then closed", []act.Event{
			&cluster.SplitBrain{At: 10 * s, Open: true, Writable: opened},
			&cluster.SplitBrainWidened{At: 20 * s, Writable: all, From: 10 * s},
			&cluster.SplitBrain{At: 40 * s, Writable: all, From: 10 * s},
		}, 0, "00:00:40: split brain: db1 db2 db3 writable at once since 00:00:10, 30s in all (at most 20s)"},
		{"not widened", []act.Event{
			&cluster.SplitBrain{At: 10 * s, Open: true, Writable: opened},
		}, 31 * s, "00:00:31: split brain: db1 db2 writable at once since 00:00:10, 21s in all (at most 20s)"},
	} {
		p, err := property.New(property.Spec{Name: property.NoSplitBrain, Arg: "20s"}, tr)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range c.evs {
			if p.Event(ev) {
				p.Look(ev.When(), fence.View{})
			}
		}
		if c.look > 0 {
			p.Look(c.look, fence.View{})
		}
		if held, why := p.Verdict(); held || why != c.want {
			t.Errorf("%s: held %v, %q; want %q", c.name, held, why, c.want)
		}
	}
}
