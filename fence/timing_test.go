package fence

import (
	"testing"
	"time"
)

func TestNextProbeStart(t *testing.T) {
	s := time.Second
	for _, c := range []struct{ started, finished, interval, want time.Duration }{
		{0, 0, 3 * s, 3 * s},             // instant probe: every interval
		{0, 2 * s, 3 * s, 3 * s},         // slow but within the interval
		{0, 5 * s, 3 * s, 5 * s},         // timed out: starts again when it finished
		{30 * s, 33 * s, 3 * s, 33 * s},  // finished exactly at the interval
		{10 * s, 14 * s, 10 * s, 20 * s}, // long interval
	} {
		if got := NextProbeStart(c.started, c.finished, c.interval); got != c.want {
			t.Errorf("NextProbeStart(%v, %v, %v) = %v, want %v", c.started, c.finished, c.interval, got, c.want)
		}
	}
}
