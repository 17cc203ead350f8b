package sim_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/timeline"
)

// echoes keeps what each act.Echo of a run gives back.
type echoes []act.Action

func (e *echoes) Event(ev act.Event) {
	if x, ok := ev.(act.Echo); ok {
		*e = append(*e, x.Echoed())
	}
}

// TestEchoesGiveBackTheScript: the input echoes of a run (a fault set, a host down or up, a
// partition, a replication event) give back, in order, exactly the timeline's actions of those kinds, their lines
// aside: what a recorder needs to write a run's inputs back as timeline lines.
func TestEchoesGiveBackTheScript(t *testing.T) {
	files, _ := filepath.Glob("testdata/rules/*.timeline")
	more, _ := filepath.Glob("../testdata/incidents/*.timeline")
	files = append(files, more...)
	kinds, echoed := 0, map[act.Kind]bool{}
	for _, f := range files {
		tl, sm, err := timeline.LoadFile(f, "")
		if err != nil {
			t.Fatal(err)
		}
		var want echoes
		for _, a := range tl.Events {
			switch a.Kind {
			case act.SetFault, act.HostDown, act.HostUp, act.Partition:
				a.Line = 0
				want = append(want, a)
			}
		}
		// The replication events are the timeline's own list, told by the adapter that steps
		// the replication model: they are held to it apart, in their own order.
		var wantRepl echoes
		if tl.Repl != nil {
			for _, e := range tl.Repl.Events {
				wantRepl = append(wantRepl, act.Action{At: e.At, Kind: act.Replicate, Node: repl.EventNode(e.Input), Repl: e.Input})
			}
		}
		var all, got, gotRepl echoes
		sim.Replay(tl, sm, &all)
		for _, a := range all {
			if a.Kind == act.Replicate {
				gotRepl = append(gotRepl, a)
			} else {
				got = append(got, a)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the echoes give back\n%v\nthe timeline says\n%v", f, got, want)
		}
		if !reflect.DeepEqual(gotRepl, wantRepl) {
			t.Errorf("%s: the replication echoes give back\n%v\nthe timeline says\n%v", f, gotRepl, wantRepl)
		}
		for _, a := range all {
			if !echoed[a.Kind] {
				echoed[a.Kind] = true
				kinds++
			}
		}
	}
	if kinds != 5 {
		t.Fatalf("the timelines echo %d of the 5 kinds of input (%v): the test covers less than it says", kinds, echoed)
	}
}
