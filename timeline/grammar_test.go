package timeline

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/repl"
)

// Every form's example parses, in one timeline, and every kind of event, replication event and
// expectation has a form: the "want" lists built from the forms name every statement the
// parser accepts.
func TestFormsCoverTheParser(t *testing.T) {
	lines := []string{"cluster db1:master db2:replica w1:witness"}
	for _, fs := range [][]form{settingForms, eventForms, expectForms} {
		for _, f := range fs {
			lines = append(lines, f.example)
		}
	}
	tl, err := Parse("forms.timeline", []byte(strings.Join(lines, "\n")+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range settingForms {
		if word, _, _ := strings.Cut(f.example, " "); !isSetting(word) {
			t.Errorf("setting %q: %s is not read as a setting", f.usage, word)
		}
	}
	events := map[EventKind]bool{}
	for _, ev := range tl.Events {
		events[ev.Kind] = true
	}
	for _, k := range []EventKind{SetFault, ManagerDown, ManagerUp, SetPolicy, Recover, End, Partition, HostDown, HostUp} {
		// Up is the same form as down.
		if !events[k] && k != ManagerUp && k != HostUp {
			t.Errorf("no form's example is a %v event", k)
		}
	}
	inputs := map[reflect.Type]bool{}
	for _, ev := range tl.Repl.Events {
		inputs[reflect.TypeOf(ev.Input)] = true
	}
	for _, in := range []repl.Input{repl.SetLag{}, repl.SetApplyLag{}, repl.SetStream{}, repl.SetReplicator{}} {
		if !inputs[reflect.TypeOf(in)] {
			t.Errorf("no form's example is a %T event", in)
		}
	}
	kinds := map[ExpectKind]bool{}
	for _, x := range tl.Expects {
		kinds[x.Kind] = true
	}
	for k := ExpectNoFailover; k <= ExpectPrimary; k++ {
		if !kinds[k] {
			t.Errorf("no form's example is an expectation of kind %d", k)
		}
	}
	if len(tl.Expects) != len(expectForms) || len(tl.Events)+len(tl.Repl.Events) != len(eventForms) {
		t.Errorf("%d expectations and %d events parsed from %d and %d forms", len(tl.Expects), len(tl.Events)+len(tl.Repl.Events), len(expectForms), len(eventForms))
	}
}

// The errors' "want" lists come from the forms: every statement, event and expectation is
// named.
func TestWantListsNameEveryForm(t *testing.T) {
	c := "cluster db1:master db2:replica\n"
	for _, tc := range []struct {
		in    string
		forms []form
	}{
		{c + "expect db1 dances\n", expectForms},
		{c + "expect\n", expectForms},
		{c + "00:02:00 db1\n", eventForms},
	} {
		_, err := Parse("t.timeline", []byte(tc.in))
		if err == nil {
			t.Fatalf("%q parses", tc.in)
		}
		for _, f := range tc.forms {
			if !strings.Contains(err.Error(), `"`+f.usage+`"`) {
				t.Errorf("%q: %v\n does not name %q", tc.in, err, f.usage)
			}
		}
	}
	_, err := Parse("t.timeline", []byte(c+"freeze db1\n"))
	var fe *fileline.Error
	if !errors.As(err, &fe) {
		t.Fatalf("unknown statement: %v", err)
	}
	for _, f := range settingForms {
		word, _, _ := strings.Cut(f.usage, " ")
		if !strings.Contains(err.Error(), word) {
			t.Errorf("unknown statement: %v\n does not name %s", err, word)
		}
	}
}
