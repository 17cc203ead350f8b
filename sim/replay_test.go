package sim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// spanTimeline writes a timeline of the same handful of faults over a span: each fault at the
// same fraction of it, and a quiet spell between them that grows with the span.
func spanTimeline(span time.Duration) string {
	var b strings.Builder
	b.WriteString("cluster db1:master db2:replica db3:replica\nstart 2000-01-01T00:00:00Z\n")
	for i, ev := range []string{"db2 stall", "db3 freeze", "db3 heal", "db2 heal", "db3 error 1040", "db1 freeze", "db3 heal"} {
		at := span / 8 * time.Duration(i+1)
		if ev == "db3 heal" && i == 2 {
			at = span/8*2 + 10*time.Minute // healed after it was failed
		}
		fmt.Fprintf(&b, "%s %s\n", time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Add(at).Format(time.RFC3339), ev)
	}
	fmt.Fprintf(&b, "%s cluster end\n", time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Add(span).Format(time.RFC3339))
	return b.String()
}

// TestReplayCostFollowsChanges: the same events over a day and over 200 years take about the
// same number of replay steps, and a quiet timeline as long as a timeline may be takes a few:
// a quiet node, a tick that decides nothing and a probe that repeats what is known cost nothing.
func TestReplayCostFollowsChanges(t *testing.T) {
	steps := func(text string) uint {
		tl, err := timeline.Parse("span.timeline", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		r := newRunner(context.Background(), tl, statemap.Default(), []drive.Observer{report.New(tl, statemap.Default())}, nil)
		if err := r.run(); err != nil {
			t.Fatal(err)
		}
		return r.steps
	}
	day, years := steps(spanTimeline(24*time.Hour)), steps(spanTimeline(200*365*24*time.Hour))
	t.Logf("steps: day %d, 200 years %d", day, years)
	if day > 200 || years > day+10 {
		t.Errorf("replay steps: %d for a day, %d for 200 years of the same events; want at most 200, and about the same", day, years)
	}
	quiet := steps("cluster db1:master db2:replica\nstart 2000-01-01T00:00:00Z\n2289-12-31T00:00:00Z cluster end\n")
	if quiet > 5 {
		t.Errorf("a quiet timeline of 290 years took %d replay steps, want at most 5", quiet)
	}
}

// contract records what a replay tells an observer.
type contract struct {
	events   []time.Duration
	instants map[time.Duration]bool
}

func (c *contract) Event(ev act.Event) { c.events = append(c.events, ev.When()) }
func (c *contract) Instant(at time.Duration, e fence.View) {
	c.instants[at] = true
}

// TestObserverContract: observers are told of every instant at which something was decided,
// every checkpoint and the end, though the replay skips the ticks and probes that decide
// nothing.
func TestObserverContract(t *testing.T) {
	files, _ := filepath.Glob("../testdata/incidents/*.timeline")
	rules, _ := filepath.Glob("testdata/rules/*.timeline")
	texts := map[string]string{"day": spanTimeline(24 * time.Hour), "200y": spanTimeline(200 * 365 * 24 * time.Hour)}
	for _, f := range append(files, rules...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = string(data)
	}
	for name, text := range texts {
		tl, err := timeline.Parse(name, []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		c := &contract{instants: map[time.Duration]bool{}}
		Replay(tl, statemap.Default(), c, expect.NewSet(tl, statemap.Default()))
		for _, at := range append(append(c.events, tl.Checkpoints()...), tl.End) {
			if at <= tl.End && !c.instants[at] {
				t.Errorf("%s: nothing told of the instant %s", name, at)
			}
		}
	}
}
