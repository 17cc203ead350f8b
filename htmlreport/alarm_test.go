package htmlreport

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/failsim/failsim/internal/daytimeline"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// TestAlarmTicks pins the ticks a staircase climbs: from the raise, a tick at the raise's own
// instant counting, to the end, its tick counting only when the alarm expired there.
func TestAlarmTicks(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		raised, end time.Duration
		atEnd       bool
		first, last time.Duration
		n           int64
	}{
		{0, 80 * s, true, 10 * s, 80 * s, 8},
		{5 * s, 80 * s, true, 10 * s, 80 * s, 8},
		{10 * s, 80 * s, true, 10 * s, 80 * s, 8},
		{10 * s, 80 * s, false, 10 * s, 70 * s, 7},
		{11 * s, 19 * s, false, 20 * s, 10 * s, 0},
		{11 * s, 20 * s, false, 20 * s, 10 * s, 0},
		{11 * s, 20 * s, true, 20 * s, 20 * s, 1},
		{3 * s, 21*s + time.Millisecond, false, 10 * s, 20 * s, 2},
	} {
		first, last, n := alarmTicks(c.raised, c.end, c.atEnd)
		if first != c.first || n != c.n || (n > 0 && last != c.last) {
			t.Errorf("alarmTicks(%v, %v, %v) = %v, %v, %d; want %v, %v, %d", c.raised, c.end, c.atEnd, first, last, n, c.first, c.last, c.n)
		}
	}
}

// TestStaircaseClimbsAsTheEngineCounts: on every shipped incident, every rule and a day of
// 2,000 faults, each alarm that ended climbed as many ticks as the engine counted when it
// expired, self-healed or was cleared.
func TestStaircaseClimbsAsTheEngineCounts(t *testing.T) {
	texts := map[string]string{"day": daytimeline.Text(2000, 1)}
	files, _ := filepath.Glob("../testdata/incidents/*.timeline")
	rules, _ := filepath.Glob("../sim/testdata/rules/*.timeline")
	for _, f := range append(files, rules...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = string(data)
	}
	ended := 0
	for name, text := range texts {
		tl, err := timeline.Parse(name, []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		r := New(tl, statemap.Default())
		sim.Replay(tl, statemap.Default(), r)
		for i := range r.nodes {
			for _, a := range r.nodes[i].alarms {
				if a.ended == statemap.Never || a.threshold == 0 {
					continue // a threshold of 0 expires at once: a mark, not a staircase
				}
				ended++
				if _, _, n := alarmTicks(a.raised, a.ended, a.endsOnTick()); n != int64(a.count) {
					t.Errorf("%s: %s's alarm %s raised at %v, ended at %v (%s): the staircase climbs %d ticks, the engine counted %d",
						name, tl.Nodes[i].Name, a.cond, a.raised, a.ended, a.end, n, a.count)
				}
			}
		}
	}
	if ended < 100 {
		t.Errorf("only %d alarms ended: the test looks at too little", ended)
	}
}
