package narrate

import (
	"testing"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
)

// AppendDescribe's own lines are Describe's.
func TestAppendDescribe(t *testing.T) {
	slow, err := fault.Parse([]string{"slow", "8s"})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"db1", "db2"}
	for _, ev := range []act.Event{
		&fence.StateChanged{Node: 1, Condition: statemap.QueryResultsTimeout, From: statemap.Online, To: statemap.Timeout},
		&fence.AlarmRaised{Node: 0, Condition: statemap.SocketIOError, Threshold: -1, Action: statemap.Fail},
		&fence.AlarmRaised{Node: 1, Condition: statemap.LoginResponseTimeout, Threshold: 12, Action: statemap.None},
		&act.FaultSet{Node: 1, Fault: slow},
		&fence.ManagerDown{Node: 0},
	} {
		if got, want := string(AppendDescribe([]byte("x "), names, ev)), "x "+Describe(names, ev); got != want {
			t.Errorf("AppendDescribe %T: %q, want %q", ev, got, want)
		}
	}
}
