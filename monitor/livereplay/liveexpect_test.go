package livereplay

import (
	"slices"
	"testing"
	"time"

	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// The live judgement of the expect lines: a window in which something must happen widens by
// a tick on each side, the client's view is not judged
// (with a word), the rest are judged as in the simulator; the verdicts come back in timeline
// order and print as the simulated replay prints them.
func TestLiveExpectations(t *testing.T) {
	src := `cluster db1:master db2:replica
workload writes=10/s
00:00:40 db1 refuse
00:01:20 cluster end
expect failover of db1 to db2 after 00:00:43 by 00:00:44
expect db2 never failed
expect lost writes 0
expect db1 failed after 00:00:20 by 00:00:35
expect db1 stopped at 00:00:50
expect no master after 00:00:50 by 00:00:55
`
	tl, err := timeline.Parse("w.timeline", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m, err := statemap.Load("")
	if err != nil {
		t.Fatal(err)
	}
	l := NewLiveExpectations(tl, m)
	sim.Replay(tl, m, l.Observer()) // the simulator's run stands for a live one here
	lines, ok := ExpectationLines(tl.File, l.Results())
	want := []string{
		"expectations (live): 4 held, 1 failed, 1 not judged live",
		"  held    w.timeline:5: expect failover of db1 to db2 after 00:00:43 by 00:00:44", // at 00:00:42: within a tick
		"  held    w.timeline:6: expect db2 never failed",
		"  skipped w.timeline:7: expect lost writes 0: not judged live: the client's view is compared with the simulated one instead",
		"  held    w.timeline:8: expect db1 failed after 00:00:20 by 00:00:35", // at 00:00:42: within a tick of 00:00:35
		"  held    w.timeline:9: expect db1 stopped at 00:00:50",
		"  FAILED  w.timeline:10: expect no master after 00:00:50 by 00:00:55: a master was in service all along from 00:00:40 to 00:01:05", // widened, and still failed
	}
	if ok || !slices.Equal(lines, want) {
		t.Fatalf("ExpectationLines = %v\n%q\nwant\n%q", ok, lines, want)
	}
	if x, why := liveExpect(tl.Expects[0]); why != "" || x.Window.After != 33*time.Second || x.Window.By != 54*time.Second {
		t.Errorf("a failover's window, widened: %+v %q", x.Window, why)
	}
	if lines, ok := ExpectationLines("f", nil); lines != nil || !ok {
		t.Errorf("no expectations: %q %v", lines, ok)
	}
}
