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
		h, m, sec, ok := clock(s)
		c, err := time.Parse("15:04:05", s)
		if ok && (err != nil || c.Hour() != h || c.Minute() != m || c.Second() != sec || c.Nanosecond() != 0) {
			t.Fatalf("clock(%q) = %02d:%02d:%02d; time.Parse: %v, %v", s, h, m, sec, c, err)
		}
		digits := len(s) == 8 && s[2] == ':' && s[5] == ':'
		for _, i := range []int{0, 1, 3, 4, 6, 7} {
			digits = digits && s[i] >= '0' && s[i] <= '9'
		}
		if !ok && err == nil && digits {
			t.Fatalf("clock(%q) refused what time.Parse reads as %v", s, c)
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
