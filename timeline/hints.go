package timeline

import (
	"time"
)

// midnightHint is what follows an error about a time s that falls before ref (0 for the start,
// or the previous event's time): when s is HH:MM:SS, which is on the start's day, how to write
// the first time after ref with that clock, the next day's, as a full RFC 3339 time, and for an
// event after the previous one (ref > 0) as +DURATION; "" when s is not HH:MM:SS.
func (p *parser) midnightHint(s string, ref time.Duration) string {
	c, err := time.Parse("15:04:05", s)
	if err != nil {
		return ""
	}
	r := p.tl.Start.Add(ref)
	t := time.Date(r.Year(), r.Month(), r.Day(), c.Hour(), c.Minute(), c.Second(), 0, r.Location())
	if t.Before(r) {
		t = t.AddDate(0, 0, 1)
	}
	hint := "; HH:MM:SS is on the start's day: after midnight write a full RFC 3339 time, " + t.Format(time.RFC3339)
	if ref > 0 {
		hint += ", or +" + t.Sub(r).String() + " after the previous event"
	}
	return hint
}
