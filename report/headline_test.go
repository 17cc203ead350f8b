package report_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// indentedHead is how failsim statemap diff read a verdict's headline before the verdict gave
// it as a value: the verdict's lines that are not reasons (not indented).
func indentedHead(verdict []string) []string {
	var heads []string
	for _, l := range verdict {
		if !strings.HasPrefix(l, " ") {
			heads = append(heads, l)
		}
	}
	return heads
}

// TestHeadlineIsTheVerdictsHead: for every shipped timeline (the rules' and the incidents'),
// under its own statemap and under each example's, the Headline's lines are the verdict's
// unindented lines, so statemap diff, which compares Headlines, says what it said when it
// parsed the verdict's indentation.
func TestHeadlineIsTheVerdictsHead(t *testing.T) {
	var paths []string
	for _, pattern := range []string{"../sim/testdata/rules/*.timeline", "../testdata/incidents/*.timeline"} {
		ps, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, ps...)
	}
	if len(paths) < 50 {
		t.Fatalf("found %d shipped timelines, want the rules' and the incidents'", len(paths))
	}
	examples, err := filepath.Glob("../conf/examples/*.properties")
	if err != nil || len(examples) == 0 {
		t.Fatalf("no example statemaps: %v", err)
	}
	var maps []*statemap.Map
	for _, path := range examples {
		m, err := statemap.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		maps = append(maps, m)
	}
	failedOver, replicated := 0, 0
	for _, path := range paths {
		tl, own, err := timeline.LoadFile(path, "")
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range append([]*statemap.Map{own}, maps...) {
			r := report.New(tl, m)
			sim.Replay(tl, m, r)
			h := r.Headline()
			want := indentedHead(r.Verdict())
			if got := h.Lines(); !slices.Equal(got, want) {
				t.Errorf("%s under statemap %d: Headline's lines %q, the verdict's head %q", path, i, got, want)
			}
			if got, want := h.Text(), strings.Join(want, "; "); got != want {
				t.Errorf("%s under statemap %d: Headline's text %q, want %q", path, i, got, want)
			}
			if len(h.Fenced) > 0 {
				failedOver++
			}
			if h.Replication != nil {
				replicated++
			}
		}
	}
	t.Logf("%d timelines, %d runs failed a master, %d replicated", len(paths), failedOver, replicated)
	if failedOver == 0 || replicated == 0 {
		t.Errorf("of the runs, %d failed a master and %d had a replication model: want some of each", failedOver, replicated)
	}
}

// The headline's fields are the verdict's: the master failed, the replica promoted or none
// eligible, when.
func TestHeadlineFields(t *testing.T) {
	tl, err := timeline.Parse("t", []byte("cluster db1:master db2:replica\n00:00:30 db1 refuse\n00:02:00 cluster end\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := statemap.Default()
	r := report.New(tl, m)
	sim.Replay(tl, m, r)
	h := r.Headline()
	if len(h.Fenced) != 1 || h.Fenced[0].Master != 0 || h.Fenced[0].Promoted != 1 || h.Fenced[0].At != 30*time.Second || h.Replication != nil {
		t.Errorf("headline %+v, want db1 failed over to db2 and no replication model", h)
	}
	if got := (report.Headline{}).Text(); got != "no failover" {
		t.Errorf("the zero Headline's text %q, want %q", got, "no failover")
	}
}
