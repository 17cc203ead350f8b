package narrate

import "time"

// Clock writes the clock time of virtual time d, a run that started at start: HH:MM:SS (with
// milliseconds when d is not a whole second) on the start's day, the full date and time on a
// later day.
func Clock(start time.Time, d time.Duration) string {
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
