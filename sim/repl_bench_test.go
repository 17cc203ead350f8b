package sim_test

import (
	"strings"
	"testing"

	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// withWorkload adds a 200 writes/s workload and replication events to a benchmark timeline: a
// lag on two replicas, and a replica's link frozen and healed, its replicator stopped and
// started, every few hours.
func withWorkload(text string, mode string) string {
	lines := strings.SplitN(text, "\n", 2)
	var b strings.Builder
	b.WriteString(lines[0] + "\nworkload writes=200/s deadline=2s\nreplication " + mode + "\n")
	b.WriteString("00:00:00 db2 lag 2s\n00:00:00 db3 lag 30s\n")
	for h := 1; h < 24; h += 3 {
		hh := string(rune('0'+h/10)) + string(rune('0'+h%10))
		b.WriteString(hh + ":00:00 db4 link freeze\n" + hh + ":05:00 db4 link heal\n")
		b.WriteString(hh + ":10:00 db5 replicator stop\n" + hh + ":20:00 db5 replicator start\n")
	}
	// The replication events are at whole hours; the fault events are merged by time below.
	return mergeByTime(b.String(), lines[1])
}

// mergeByTime merges two timelines' event lines (HH:MM:SS or RFC 3339 first words) by time,
// the settings of the first ahead.
func mergeByTime(head, events string) string {
	var settings, evs []string
	for _, l := range strings.Split(head, "\n") {
		if l == "" {
			continue
		}
		if strings.Contains(strings.Fields(l)[0], ":") {
			evs = append(evs, l)
		} else {
			settings = append(settings, l)
		}
	}
	other := strings.Split(strings.TrimSpace(events), "\n")
	var out []string
	i, j := 0, 0
	key := func(l string) string {
		w := strings.Fields(l)[0]
		if len(w) == 8 {
			return "1970-01-01T" + w + "Z"
		}
		return w
	}
	for i < len(evs) || j < len(other) {
		if j == len(other) || (i < len(evs) && key(evs[i]) <= key(other[j])) {
			out = append(out, evs[i])
			i++
		} else {
			out = append(out, other[j])
			j++
		}
	}
	return strings.Join(settings, "\n") + "\n" + strings.Join(out, "\n") + "\n"
}

// BenchmarkReplayDayWorkload replays BenchmarkReplayDay's day of 5 nodes and 2,000 fault
// events with a 200 writes/s workload beside it (17,280,000 writes) and replication events,
// under async and semisync, and the same day without: the writes are counted, not stored one
// by one, so the workload costs what changes, not what is written.
//
//	GOMAXPROCS=1 go test ./sim -run XXX -bench ReplayDay
func BenchmarkReplayDayWorkload(b *testing.B) {
	m := statemap.Default()
	base := benchTimeline(2000, 1)
	for _, c := range []struct{ name, text string }{
		{"none", base},
		{"async", withWorkload(base, "async")},
		{"semisync", withWorkload(base, "semisync")},
	} {
		tl, err := timeline.Parse("bench.timeline", []byte(c.text))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var writes int64
			for b.Loop() {
				r := report.New(tl, m)
				sim.Replay(tl, m, r)
				if f := r.Replication(); f != nil {
					writes = f.Summary.Offered
				}
			}
			if c.name != "none" && writes != 17_280_001 {
				b.Fatalf("%d writes offered, want 17,280,001 (a day at 200/s, and the end's)", writes)
			}
		})
	}
}
