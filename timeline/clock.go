package timeline

import "time"

// Clock writes the clock time of virtual time d, a run that started at start: HH:MM:SS (with
// milliseconds when d is not a whole second) on the start's day, the full date and time on a
// later day. It is the clock syntax of timelines and of everything that tells a run: the event
// log, the reports, the properties' verdicts. Format writes it where it reads back exactly.
func Clock(start time.Time, d time.Duration) string { return string(AppendClock(nil, start, d)) }

// AppendClock appends Clock(start, d) to b: digit by digit when the start is in UTC (an event
// log's every line), else through time.Time.AppendFormat.
func AppendClock(b []byte, start time.Time, d time.Duration) []byte {
	t := start.Add(d)
	if start.Location() == time.UTC {
		day, _ := utcDay(start.Unix())
		if tday, tsod := utcDay(t.Unix()); tday == day {
			b = append2(b, int(tsod/3600))
			b = append(b, ':')
			b = append2(b, int(tsod/60%60))
			b = append(b, ':')
			b = append2(b, int(tsod%60))
			if ns := t.Nanosecond(); ns != 0 {
				ms := ns / 1e6
				b = append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
			}
			return b
		}
	}
	layout := "15:04:05"
	if t.Nanosecond() != 0 {
		layout = "15:04:05.000"
	}
	if t.YearDay() != start.YearDay() || t.Year() != start.Year() {
		layout = "2006-01-02T" + layout
	}
	return t.AppendFormat(b, layout)
}

// utcDay splits Unix seconds into days since 1970-01-01 UTC and seconds into that day.
func utcDay(sec int64) (day, sod int64) {
	day, sod = sec/86400, sec%86400
	if sod < 0 {
		day, sod = day-1, sod+86400
	}
	return day, sod
}

// append2 appends n (0-99) as two digits.
func append2(b []byte, n int) []byte { return append(b, byte('0'+n/10), byte('0'+n%10)) }
