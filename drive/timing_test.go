package drive

import (
	"testing"
	"time"
)

func TestIsTick(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		at   time.Duration
		want bool
	}{{0, false}, {1, false}, {10 * s, true}, {10*s + 1, false}, {20*s - 1, false}, {24 * time.Hour, true}, {-10 * s, false}} {
		if got := isTick(c.at); got != c.want {
			t.Errorf("isTick(%v) = %v, want %v", c.at, got, c.want)
		}
	}
}

func TestTickBefore(t *testing.T) {
	s := time.Second
	for _, c := range []struct{ at, want time.Duration }{
		{0, 0}, {1, 0}, {10 * s, 0}, {10*s + 1, 10 * s}, {20 * s, 10 * s}, {25 * s, 20 * s},
		{24 * time.Hour, 24*time.Hour - 10*s},
	} {
		if got := tickBefore(c.at); got != c.want {
			t.Errorf("tickBefore(%v) = %v, want %v", c.at, got, c.want)
		}
	}
}

func TestResumeAt(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		t, took, interval, limit time.Duration
		want                     time.Duration
		ok                       bool
	}{
		{0, 0, 3 * s, 0, 3 * s, true},               // the probe at 0 ends at 0, within the limit: resume at 3 s
		{0, 0, 3 * s, 8 * s, 9 * s, true},           // 0, 3, 6 skipped; 9 ends after 8 s
		{0, 0, 3 * s, 9*s - 1, 9 * s, true},         // a limit just before the next start
		{0, 0, 3 * s, 9 * s, 12 * s, true},          // the probe at 9 s ends at the limit: skipped too
		{0, 5 * s, 3 * s, 4 * s, 0, false},          // the probe at 0 ends after the limit: none skipped
		{0, 5 * s, 3 * s, 5 * s, 5 * s, true},       // timed-out probes start every 5 s
		{0, 5 * s, 3 * s, 14 * s, 10 * s, true},     // 0 and 5 skipped; 10 ends at 15 s
		{7 * s, 2 * s, 3 * s, 14 * s, 13 * s, true}, // slow 2 s: 7 and 10 skipped; 13 ends at 15 s
		{3 * s, 0, 3 * s, 2 * s, 0, false},          // a limit before the start
	} {
		got, ok := resumeAt(c.t, c.took, c.interval, c.limit)
		if got != c.want || ok != c.ok {
			t.Errorf("resumeAt(%v, %v, %v, %v) = %v, %v; want %v, %v", c.t, c.took, c.interval, c.limit, got, ok, c.want, c.ok)
		}
	}
}
