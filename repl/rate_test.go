package repl

import (
	"testing"
	"time"
)

// TestRateAt pins the instant of a write: floor(k·Per/Writes), exact to the nanosecond, and
// beyond what an int64 product would hold.
func TestRateAt(t *testing.T) {
	day := 24 * time.Hour
	year := 365 * day
	for _, c := range []struct {
		r    Rate
		k    int64
		want time.Duration
	}{
		{PerSecond(200), 0, 0},
		{PerSecond(200), 1, 5 * time.Millisecond},
		{PerSecond(200), 17_280_000, day}, // a day at 200/s
		{PerSecond(3), 1, 333_333_333},    // 1/3 s, rounded down to the nanosecond
		{PerSecond(3), 2, 666_666_666},
		{PerSecond(3), 3, time.Second},
		{Rate{Writes: 1, Per: 10 * time.Second}, 7, 70 * time.Second},
		{Rate{Writes: 7, Per: 3 * time.Millisecond}, 10, 4_285_714}, // 30 ms / 7
		// 289 years at 200/s: k·Per is about 1.8e21, past an int64; the quotient still fits.
		{PerSecond(200), 200 * int64(289*year/time.Second), 289 * year},
	} {
		if got := c.r.At(c.k); got != c.want {
			t.Errorf("%+v.At(%d) = %d, want %d", c.r, c.k, got, c.want)
		}
	}
}

// TestRateFirst pins the first write at or after an instant: ceil(x·Writes/Per).
func TestRateFirst(t *testing.T) {
	for _, c := range []struct {
		r    Rate
		x    time.Duration
		want int64
	}{
		{PerSecond(200), -time.Second, 0},
		{PerSecond(200), 0, 0},
		{PerSecond(200), 1, 1},                      // write 0 is at 0, before 1 ns
		{PerSecond(200), 5 * time.Millisecond, 1},   // write 1 is at 5 ms exactly
		{PerSecond(200), 5*time.Millisecond + 1, 2}, // just after it
		{PerSecond(200), time.Second, 200},
		{PerSecond(3), 333_333_333, 1}, // write 1 is at 333,333,333 ns
		{PerSecond(3), 333_333_334, 2},
		{Rate{}, time.Hour, 0},
	} {
		if got := c.r.First(c.x); got != c.want {
			t.Errorf("%+v.First(%d) = %d, want %d", c.r, c.x, got, c.want)
		}
	}
}

// TestRateFirstInvertsAt: k >= First(x) exactly when At(k) >= x, for every write near a
// boundary, at rates that do and do not divide a second.
func TestRateFirstInvertsAt(t *testing.T) {
	for _, r := range []Rate{PerSecond(200), PerSecond(3), PerSecond(7), Rate{Writes: 13, Per: 17 * time.Millisecond}} {
		for k := int64(0); k < 50; k++ {
			at := r.At(k)
			for _, x := range []time.Duration{at - 1, at, at + 1} {
				if got := r.First(x) <= k; got != (at >= x) {
					t.Errorf("%+v: write %d at %d, First(%d) = %d", r, k, at, x, r.First(x))
				}
			}
		}
	}
}

// TestRateCount: the writes in [a, b), by hand.
func TestRateCount(t *testing.T) {
	r := PerSecond(200)
	for _, c := range []struct {
		a, b time.Duration
		want int64
	}{
		{0, time.Second, 200},
		{0, 1, 1}, // write 0 at t=0
		{5 * time.Millisecond, 10 * time.Millisecond, 1}, // write 1 at 5 ms; write 2 at 10 ms is out
		{11 * time.Minute, 21 * time.Minute, 120_000},    // ten minutes
		{time.Second, time.Second, 0},
		{2 * time.Second, time.Second, 0},
	} {
		if got := r.Count(c.a, c.b); got != c.want {
			t.Errorf("Count(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	if got := PerSecond(3).Span(1); got != 333_333_333 {
		t.Errorf("Span(1) at 3/s = %d", got)
	}
	if got := PerSecond(200).Span(294_000); got != 1470*time.Second {
		t.Errorf("Span(294000) at 200/s = %v", got)
	}
}

func TestRatePanics(t *testing.T) {
	for name, f := range map[string]func(){
		"zero rate":     func() { Rate{}.At(1) },
		"negative":      func() { PerSecond(1).At(-1) },
		"beyond a time": func() { PerSecond(1).At(1 << 40) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
