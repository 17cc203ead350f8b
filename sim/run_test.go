package sim_test

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// TestReplayTwice replays one parsed timeline twice, and then twice at once: the same verdicts
// and the same bytes every time. A parsed timeline holds its expectations as data; each replay
// judges them with observers of its own. (When the timeline held the observers, the second
// replay saw db1 "failed at 00:01:00, 00:01:00", and only-coordinator-fences, which held the
// first time, failed the second: its managers were still down from the first replay.)
func TestReplayTwice(t *testing.T) {
	tl, err := timeline.Parse("twice.timeline", []byte(`cluster db1:master db2:replica
00:01:00 db1 refuse
00:02:00 db1 heal
00:02:30 db1 recover
00:04:00 db1 manager down
00:05:00 cluster end
expect db1 never failed
expect failover by 00:00:30
expect no master after 00:01:00 by 00:01:00
expect db2 master at 00:03:00
expect property only-coordinator-fences
expect property single-master
expect property detects-death-within 1s
`))
	if err != nil {
		t.Fatal(err)
	}
	m := statemap.Default()
	run := func() ([]expect.Result, []byte) {
		var out bytes.Buffer
		results, err := sim.Run(context.Background(), &out, report.Text, tl, m)
		if err != nil {
			t.Error(err)
		}
		return results, out.Bytes()
	}
	first, out := run()
	want := []expect.Result{
		{Line: 7, Text: "expect db1 never failed", Why: "db1 was failed at 00:01:00"},
		{Line: 8, Text: "expect failover by 00:00:30", Why: "the failovers were db1 to db2 at 00:01:00"},
		{Line: 9, Text: "expect no master after 00:01:00 by 00:01:00", Why: "a master was in service all along from 00:01:00 to 00:01:00"},
		{Line: 10, Text: "expect db2 master at 00:03:00", Held: true},
		{Line: 11, Text: "expect property only-coordinator-fences", Held: true},
		{Line: 12, Text: "expect property single-master", Held: true},
		{Line: 13, Text: "expect property detects-death-within 1s", Held: true},
	}
	if !slices.Equal(first, want) {
		t.Fatalf("first replay:\n got  %+v\n want %+v", first, want)
	}
	for i := range 2 {
		again, out2 := run()
		if !slices.Equal(again, first) || !bytes.Equal(out2, out) {
			t.Fatalf("replay %d differs from the first:\n%+v\n%+v", i+2, first, again)
		}
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if again, _ := run(); !slices.Equal(again, first) {
				t.Errorf("a concurrent replay differs from the first:\n%+v\n%+v", first, again)
			}
		})
	}
	wg.Wait()
}
