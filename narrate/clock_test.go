package narrate_test

import (
	"testing"
	"time"

	"github.com/failsim/failsim/narrate"
)

func TestClock(t *testing.T) {
	start := time.Date(2024, 5, 1, 21, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "21:00:00"},
		{11*time.Minute + 20*time.Second, "21:11:20"},
		{1500 * time.Millisecond, "21:00:01.500"},
		{3 * time.Hour, "2024-05-02T00:00:00"},
		{3*time.Hour + time.Millisecond, "2024-05-02T00:00:00.001"},
		{366 * 24 * time.Hour, "2025-05-02T21:00:00"},
	} {
		if got := narrate.Clock(start, c.d); got != c.want {
			t.Errorf("Clock(%v) = %s, want %s", c.d, got, c.want)
		}
	}
}
