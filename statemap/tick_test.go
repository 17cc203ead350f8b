package statemap

import (
	"testing"
	"time"
)

func TestNextTick(t *testing.T) {
	s := time.Second
	for _, c := range []struct{ at, want time.Duration }{
		{0, 10 * s}, {1, 10 * s}, {9*s + 999*time.Millisecond, 10 * s}, {10 * s, 20 * s},
		{10*s + 1, 20 * s}, {-5 * s, 10 * s}, {24 * time.Hour, 24*time.Hour + 10*s},
	} {
		if got := NextTick(c.at); got != c.want {
			t.Errorf("NextTick(%v) = %v, want %v", c.at, got, c.want)
		}
	}
}

func TestNthTick(t *testing.T) {
	s := time.Second
	last := Never / (10 * s) * (10 * s) // the last tick a Duration holds
	for _, c := range []struct {
		at   time.Duration
		n    int64
		want time.Duration
	}{
		{0, 1, 10 * s}, {0, 8, 80 * s}, {5 * s, 1, 10 * s}, {10 * s, 1, 20 * s}, {10 * s, 3, 40 * s},
		{15 * s, 2, 30 * s}, {last - 10*s, 1, last}, {last - 10*s, 2, Never}, {last, 1, Never},
		{0, 1 << 62, Never}, {Never, 1, Never},
	} {
		if got := NthTick(c.at, c.n); got != c.want {
			t.Errorf("NthTick(%v, %d) = %v, want %v", c.at, c.n, got, c.want)
		}
	}
	if got := NextTick(Never - 1); got != Never {
		t.Errorf("NextTick near the end = %v, want Never", got)
	}
}
