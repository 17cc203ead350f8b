package check

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/property"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

var work = &Workload{Rate: repl.PerSecond(100), Deadline: 2 * time.Second}

// With a workload, a trace's faults are those it has without one; it adds a workload and
// replication events; written and parsed back, it replays the same, the client's summary
// included.
func TestWorkloadTraces(t *testing.T) {
	m := statemap.Default()
	for _, f := range []Family{Benign, Fatal, Mixed} {
		plain, err := NewGenerator(f, DefaultShape(), m, 0)
		if err != nil {
			t.Fatal(err)
		}
		g, _ := NewGenerator(f, DefaultShape(), m, 0)
		g.work = work
		events, semisync := 0, 0
		for i := range 30 {
			tl, bare := g.Trace(TraceRand(5, i)), plain.Trace(TraceRand(5, i))
			if !reflect.DeepEqual(tl.Events, bare.Events) || tl.Repl == nil || bare.Repl != nil {
				t.Fatalf("%s trace %d: the workload changed the faults, or is missing", f, i)
			}
			events += len(tl.Repl.Events)
			if tl.Repl.Config.Mode == repl.Semisync {
				semisync++
			}
			text := Timeline(tl, nil, "", property.Spec{Name: property.NoAckedWriteLost})
			back, err := timeline.Parse("generated", text)
			if err != nil {
				t.Fatalf("%s trace %d does not parse: %v\n%s", f, i, err, text)
			}
			if !reflect.DeepEqual(back.Repl.Config, tl.Repl.Config) {
				t.Fatalf("%s trace %d: replication %+v once written, was %+v", f, i, back.Repl.Config, tl.Repl.Config)
			}
			if got, want := eventLog(back, m), eventLog(tl, m); got != want {
				t.Fatalf("%s trace %d replays differently once written:\n%s", f, i, text)
			}
		}
		if events == 0 || semisync == 0 || semisync == 30 {
			t.Errorf("%s: %d replication events and %d semisync traces in 30: the families add too little", f, events, semisync)
		}
	}
}

// A fatal trace with a workload loses acknowledged writes (a lagging replica promoted), and its
// shrunk counterexample reproduces; a property of the writes without a workload is refused.
func TestWorkloadCounterexample(t *testing.T) {
	m := statemap.Default()
	p := property.Spec{Name: property.NoAckedWriteLost}
	res, err := Run(context.Background(), Config{Map: m, Family: Fatal, Properties: []property.Spec{p}, Shape: DefaultShape(), Traces: 200, Seed: 1, Workload: work})
	if err != nil {
		t.Fatal(err)
	}
	if res.Held() {
		t.Fatal("no fatal trace lost a write")
	}
	v := res.Violations[0]
	tl, err := timeline.Parse("ce.timeline", Timeline(v.Shrunk, nil, "", p))
	if err != nil {
		t.Fatal(err)
	}
	xs := expect.NewSet(tl, m)
	sim.Replay(tl, m, xs)
	if r := xs.Results(); len(r) != 1 || r[0].Held || r[0].Why != v.ShrunkWhy {
		t.Errorf("the counterexample judged %+v, want %q", r, v.ShrunkWhy)
	}
	if err := (Config{Map: m, Family: Fatal, Properties: []property.Spec{p}, Shape: DefaultShape(), Traces: 1}).Validate(); err == nil || err.Error() != "property no-acked-write-lost judges a workload's writes: the traces have no workload" {
		t.Errorf("no workload: %v", err)
	}
}

func TestParseWorkload(t *testing.T) {
	w, err := ParseWorkload("writes=5/100ms,deadline=1s")
	if err != nil || w != (Workload{Rate: repl.Rate{Writes: 5, Per: 100 * time.Millisecond}, Deadline: time.Second}) || w.String() != "writes=5/100ms,deadline=1s" {
		t.Errorf("%+v %v", w, err)
	}
	if _, err := ParseWorkload("writes=5/s,near=db1"); err == nil || err.Error() != `workload setting "near=db1": want "workload writes=N/s|N/DURATION [deadline=DURATION] [near NODE]"` {
		t.Errorf("near: %v", err)
	}
}

// eventLines counts the event lines of timeline text: the lines that start with a time, but
// the end.
func eventLines(text []byte) int {
	n := 0
	for _, l := range strings.Split(string(text), "\n") {
		if l != "" && l[0] >= '0' && l[0] <= '9' && !strings.HasSuffix(l, " cluster end") {
			n++
		}
	}
	return n
}

// A counterexample's sizes count every event its timeline writes, the replication events
// (lags, frozen links, stopped replicators) too: the trace as generated, in the JSON and the
// header, and the shrunk one, in the text.
func TestCounterexampleCountsEveryEvent(t *testing.T) {
	m := statemap.Default()
	p := property.Spec{Name: property.NoAckedWriteLost}
	res, err := Run(context.Background(), Config{Map: m, Family: Fatal, Properties: []property.Spec{p}, Shape: DefaultShape(), Traces: 30, Seed: 1, Workload: work})
	if err != nil {
		t.Fatal(err)
	}
	if res.Held() {
		t.Fatal("no fatal trace lost a write")
	}
	v := res.Violations[0]
	if replCount(v.Original) == 0 || replCount(v.Shrunk) == 0 {
		t.Fatalf("the counterexample has no replication event to count: %d as generated, %d shrunk", replCount(v.Original), replCount(v.Shrunk))
	}
	o := NewOutcome(Fatal, res)
	c := o.Properties[0].Counterexample
	if want := eventLines(Timeline(v.Original, nil, "", p)); c.Events != want {
		t.Errorf("as generated: %d events, the timeline writes %d", c.Events, want)
	}
	c.File = "ce.timeline"
	want := eventLines([]byte(c.Timeline))
	if text := o.Properties[0].violatedText(); !strings.Contains(text, fmt.Sprintf(" replays to %s on ", Plural(want, "event"))) {
		t.Errorf("shrunk: the timeline writes %d events, the text says:\n%s%s", want, text, c.Timeline)
	}
}
