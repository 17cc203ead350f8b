package timeline

import (
	"testing"
	"time"
)

// The hand-read HH:MM:SS agrees with time.Parse("15:04:05") wherever it reads a time, and reads
// every eight-byte DD:DD:DD that time.Parse reads.
func FuzzClock(f *testing.F) {
	for _, s := range []string{"21:11:00", "00:00:00", "23:59:59", "24:00:00", "9:00:00", "12:60:00", "12:00:60", "ab:cd:ef", "21:11:00.5", "+10m", "2024-05-01T21:00:00Z", "1:2:3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, m, sec, ok := readClock(s)
		c, err := time.Parse("15:04:05", s)
		if ok && (err != nil || c.Hour() != h || c.Minute() != m || c.Second() != sec || c.Nanosecond() != 0) {
			t.Fatalf("readClock(%q) = %02d:%02d:%02d; time.Parse: %v, %v", s, h, m, sec, c, err)
		}
		digits := len(s) == 8 && s[2] == ':' && s[5] == ':'
		for _, i := range []int{0, 1, 3, 4, 6, 7} {
			digits = digits && s[i] >= '0' && s[i] <= '9'
		}
		if !ok && err == nil && digits {
			t.Fatalf("readClock(%q) refused what time.Parse reads as %v", s, c)
		}
	})
}

// An event's HH:MM:SS, read without a Parse per line, is the offset that the start's day and
// time.Parse give, for any UTC start (seconds and nanoseconds into its day).
func FuzzParseTimeClock(f *testing.F) {
	f.Add(int64(0), "21:11:00")
	f.Add(int64(21*3600*1e9+5e8), "21:00:00")
	f.Add(int64(-86400*1e9*365*30), "00:00:01")
	f.Fuzz(func(t *testing.T, startNanos int64, s string) {
		st := time.Unix(0, startNanos).UTC()
		p := &parser{tl: &Timeline{File: "f", Start: st}}
		got, gerr := p.parseTime(s)
		c, err := time.Parse("15:04:05", s)
		if err != nil {
			return // the other forms take the unchanged path
		}
		want := time.Date(st.Year(), st.Month(), st.Day(), c.Hour(), c.Minute(), c.Second(), 0, time.UTC).Sub(st)
		if want < 0 {
			if gerr == nil {
				t.Fatalf("%s from %v: %v, want the before-the-start error", s, st, got)
			}
			return
		}
		if gerr != nil || got != want {
			t.Fatalf("%s from %v: %v, %v; want %v", s, st, got, gerr, want)
		}
	})
}

// clockFormat is Clock as it was written with time.Format, the reference AppendClock is held to.
func clockFormat(start time.Time, d time.Duration) string {
	t := start.Add(d)
	layout := "15:04:05"
	if t.Nanosecond() != 0 {
		layout = "15:04:05.000"
	}
	if t.YearDay() != start.YearDay() || t.Year() != start.Year() {
		layout = "2006-01-02T" + layout
	}
	return t.Format(layout)
}

// AppendClock writes what time.Format wrote, for any start (UTC or another zone) and offset.
func FuzzAppendClock(f *testing.F) {
	f.Add(int64(0), int64(0), false)
	f.Add(int64(21*3600e9), int64(1500e6), false)
	f.Add(int64(-5e17), int64(3*3600e9+1e6), true)
	f.Add(int64(1714597200e9), int64(86400e9*366), false)
	zone := time.FixedZone("X", -7*3600)
	f.Fuzz(func(t *testing.T, startNanos, d int64, other bool) {
		if d < 0 {
			d = -d
		}
		start := time.Unix(0, startNanos).UTC()
		if other {
			start = start.In(zone)
		}
		if got, want := string(AppendClock([]byte("x"), start, time.Duration(d))), "x"+clockFormat(start, time.Duration(d)); got != want {
			t.Fatalf("AppendClock(%v, %v) = %q, want %q", start, time.Duration(d), got, want)
		}
	})
}

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
		if got := Clock(start, c.d); got != c.want {
			t.Errorf("Clock(%v) = %s, want %s", c.d, got, c.want)
		}
	}
}
