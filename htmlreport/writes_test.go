package htmlreport_test

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/htmlreport"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/timeline"
)

// TestWritesRow: on every shipped incident the chart has a writes row exactly when the
// timeline has a workload; there, one band for each outage the replay summed up, titled with
// its span, its writes and its cause, the longest outlined, and a lost-writes mark at each
// failover.
func TestWritesRow(t *testing.T) {
	files, _ := filepath.Glob("../testdata/incidents/*.timeline")
	workloads := 0
	for _, file := range files {
		tl, m := load(t, file)
		verdict := report.New(tl, m)
		rec := htmlreport.New(tl, m)
		if _, err := sim.ReplayContext(context.Background(), tl, m, verdict, rec); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := rec.WriteSVG(&b); err != nil {
			t.Fatal(err)
		}
		svg := b.String()
		f := verdict.Replication()
		workload := f != nil && f.Workload
		if got := strings.Contains(svg, `class="rl">writes</text>`); got != workload {
			t.Errorf("%s: a writes row: %v; a workload: %v", file, got, workload)
		}
		if !workload {
			if strings.Contains(svg, `class="wk"`) || strings.Contains(svg, `class="lw"`) {
				t.Errorf("%s: no workload, yet writes drawn", file)
			}
			continue
		}
		workloads++
		s := f.Summary
		bands := regexp.MustCompile(`class="wf( wl)?"><title>([^<]*)</title>`).FindAllStringSubmatch(svg, -1)
		if len(bands) != len(s.Outages) || len(s.Outages) == 0 {
			t.Fatalf("%s: %d outage bands, want the %d outages", file, len(bands), len(s.Outages))
		}
		longest := 0
		for k, o := range s.Outages {
			title := bands[k][2]
			want := fmt.Sprintf("from %s to %s (%s, ", clockOf(tl, o.From), clockOf(tl, o.To), o.Length())
			if !strings.Contains(title, want) || !strings.Contains(title, "cause: ") {
				t.Errorf("%s: outage %d titled %q, want %q and its cause", file, k, title, want)
			}
			if bands[k][1] != "" {
				longest++
				if o != s.Outage {
					t.Errorf("%s: outage %+v outlined as the longest, want %+v", file, o, s.Outage)
				}
			}
		}
		if longest != 1 {
			t.Errorf("%s: %d outages outlined as the longest, want 1", file, longest)
		}
		merges := 0
		for _, l := range s.Losses {
			if l.Cause == repl.LostAtMerge {
				merges++
			}
		}
		if n, want := strings.Count(svg, `class="lw" data-t=`), len(verdict.Failovers())+merges; n != want {
			t.Errorf("%s: %d lost-writes marks, want one at each of %d failovers and %d merges", file, n, len(verdict.Failovers()), merges)
		}
	}
	if workloads < 4 {
		t.Errorf("%d shipped incidents with a workload, want the four", workloads)
	}
}

// TestOutageCause: an outage's title names what stopped the writes, and what happened while
// they were stopped.
func TestOutageCause(t *testing.T) {
	for file, want := range map[string][]string{
		"lagging-replica":           {"cause: 03:14:07 db1 fault refuse", "lost 299 acknowledged writes of db1 (positions 84402..84700)", "299 writes lost"},
		"lagging-replica-semisync":  {"cause: 03:13:47 db2 link freeze; then: 03:14:07 db1 fault refuse; 03:14:09 db1 FAILOVER", "lost no acknowledged write", `class="sf"`},
		"semisync-fallback":         {"cause: 02:10:00 db2 replicator stop", "02:10:10 db1 semisync fell back to async", `class="sr"`},
		"partition-master-workload": {"cause: 14:02:30 application beside db1 reaches no writable master: its writes fail", "merge at 14:20:00: lost 5000 acknowledged writes of db1 (positions 25001..30000)"},
		"ebs-stall-workload":        {"LONGEST OUTAGE: writes failed from 21:11:00 to 21:21:00 (10m0s, 120000 writes): cause: 21:11:00 db1 fault stall", "longest outage 10m0s"},
	} {
		tl, m := load(t, "../testdata/incidents/"+file+".timeline")
		_, chart := render(t, tl, m)
		for _, w := range want {
			if !strings.Contains(string(chart), w) {
				t.Errorf("%s: the chart does not say %q", file, w)
			}
		}
	}
}

func clockOf(tl *timeline.Timeline, d time.Duration) string { return timeline.Clock(tl.Start, d) }
