package record

import (
	"testing"
	"time"

	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
)

// quietDay records a simulated day through the book at the default checker (3 s, 5 s), three
// nodes, hourly files: every probe's outcome is told, ok but for blips per node per hour, each
// a refused probe followed by an ok one. It returns the bytes of the day's files.
func quietDay(blips int) (total int, files int) {
	h := Header{
		Nodes:    []fence.NodeConfig{{Name: "db1", Role: fence.Master}, {Name: "db2", Role: fence.Replica}, {Name: "db3", Role: fence.Replica}},
		Interval: 3 * time.Second, Timeout: 5 * time.Second,
		Start: time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC),
	}
	b := NewBook(h, "statemap-0123456789ab.properties")
	nodes := []fence.NodeView{{Role: fence.Master, State: statemap.Online}, {Role: fence.Replica, State: statemap.Online}, {Role: fence.Replica, State: statemap.Online}}
	from := time.Duration(0)
	for hour := range 24 {
		end := time.Duration(hour+1) * time.Hour
		for t := from; t < end; t += h.Interval {
			for i := range h.Nodes {
				c := statemap.OK
				if period := 1200 / max(blips, 1); blips > 0 && int((t-from)/h.Interval)%period == (7*(i+1))%period {
					c = statemap.SocketIOError
				}
				b.Outcome(t, t, i, c)
			}
		}
		seg := b.Cut(end, nodes, "statemap-0123456789ab.properties")
		total += len(h.Text("000000-20261206T000000.000Z.timeline", seg, end))
		files++
		from = end
	}
	return total, files
}

// TestQuietDaySize measures a quiet day's recording: under 1 MB at the default checker, as
// docs/live.md says.
func TestQuietDaySize(t *testing.T) {
	for _, c := range []struct {
		blips int
		want  int // bytes, exactly: the output is deterministic
	}{{0, 8424}, {1, 12527}, {60, 254660}} {
		total, files := quietDay(c.blips)
		t.Logf("a day, %d blip(s) per node per hour: %d files, %d bytes", c.blips, files, total)
		if total >= 1_000_000 {
			t.Errorf("%d blips an hour: %d bytes a day, want under 1 MB", c.blips, total)
		}
		if c.want != 0 && total != c.want {
			t.Errorf("%d blips an hour: %d bytes, want %d", c.blips, total, c.want)
		}
	}
}
