package sim_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/timeline"
)

// echoes keeps what each act.Echo of a run gives back.
type echoes []act.Action

func (e *echoes) Event(ev fence.Event) {
	if x, ok := ev.(act.Echo); ok {
		*e = append(*e, x.Echoed())
	}
}

// TestEchoesGiveBackTheScript: the input echoes of a run (a fault set, a host down or up, a
// partition) give back, in order, exactly the timeline's actions of those kinds, their lines
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
		var got echoes
		sim.Replay(tl, sm, &got)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the echoes give back\n%v\nthe timeline says\n%v", f, got, want)
		}
		for _, a := range got {
			if !echoed[a.Kind] {
				echoed[a.Kind] = true
				kinds++
			}
		}
	}
	if kinds != 4 {
		t.Fatalf("the timelines echo %d of the 4 kinds of input (%v): the test covers less than it says", kinds, echoed)
	}
}
