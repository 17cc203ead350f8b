package narrate

import (
	"testing"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
)

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

// AppendDescribe's own lines are Describe's.
func TestAppendDescribe(t *testing.T) {
	slow, err := fault.Parse([]string{"slow", "8s"})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"db1", "db2"}
	for _, ev := range []act.Event{
		&fence.StateChanged{Node: 1, Condition: statemap.QueryResultsTimeout, From: statemap.Online, To: statemap.Timeout},
		&fence.AlarmRaised{Node: 0, Condition: statemap.SocketIOError, Threshold: -1, Action: statemap.Fail},
		&fence.AlarmRaised{Node: 1, Condition: statemap.LoginResponseTimeout, Threshold: 12, Action: statemap.None},
		&act.FaultSet{Node: 1, Fault: slow},
		&fence.ManagerDown{Node: 0},
	} {
		if got, want := string(AppendDescribe([]byte("x "), names, ev)), "x "+Describe(names, ev); got != want {
			t.Errorf("AppendDescribe %T: %q, want %q", ev, got, want)
		}
	}
}
