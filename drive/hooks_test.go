package drive_test

import (
	"testing"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/core"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/faultmodel"
	"github.com/failsim/failsim/fence"
)

// TestWake: the instants Config.Wake names, asked anew as the run goes, are instants of the
// observers', a tick among them, though nothing is decided at them; without Wake they are not.
func TestWake(t *testing.T) {
	for _, c := range []struct {
		wakes []time.Duration
		want  []time.Duration
	}{
		{nil, []time.Duration{0, 3 * s, 60 * s}}, // the run's own instants
		{[]time.Duration{7 * s, 20 * s, 31 * s}, []time.Duration{0, 3 * s, 7 * s, 20 * s, 31 * s, 60 * s}},
	} {
		wakes := c.wakes
		var seen []time.Duration
		obs := &instants{at: &seen}
		d := drive.New(core.New(cluster(), nil), drive.Config{Interval: 3 * s, End: 60 * s,
			Foresee: func(f fault.Fault) act.Outcome { return faultmodel.Predict(f, 5*s) },
			Wake: func() (time.Duration, bool) {
				for len(wakes) > 0 && wakes[0] <= lastOf(seen) && len(seen) > 0 {
					wakes = wakes[1:] // told of it: the next
				}
				if len(wakes) == 0 {
					return 0, false
				}
				return wakes[0], true
			}}, obs)
		for !d.Ended() {
			d.Begin(d.Next())
			d.Close()
		}
		if len(seen) != len(c.want) {
			t.Fatalf("wakes %v: instants %v, want %v", c.wakes, seen, c.want)
		}
		for i := range seen {
			if seen[i] != c.want[i] {
				t.Errorf("wakes %v: instants %v, want %v", c.wakes, seen, c.want)
				break
			}
		}
	}
}

type instants struct{ at *[]time.Duration }

func (o *instants) Event(ev act.Event)                     {}
func (o *instants) Instant(at time.Duration, _ fence.View) { *o.at = append(*o.at, at) }

func lastOf(ts []time.Duration) time.Duration {
	if len(ts) == 0 {
		return -1
	}
	return ts[len(ts)-1]
}
