package property_test

import (
	"testing"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/property"
	"github.com/failsim/failsim/statemap"
)

// TestViolations feeds a property events no correct engine emits, to check that each says
// what went wrong: the judgements made at the moment of a decision need no engine.
func TestViolations(t *testing.T) {
	tr := property.Trace{Names: []string{"db1", "db2"}, Start: time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), Interval: 3 * time.Second, Timeout: 5 * time.Second}
	for _, c := range []struct {
		name   string
		benign bool
		evs    []act.Event
		want   string
	}{
		{property.NoFenceInMaintenance, false, []act.Event{&fence.PolicyChanged{At: 5e9, Policy: fence.Maintenance}, &fence.AlarmRaised{At: 6e9, Node: 1, Condition: statemap.SocketIOError}},
			"00:00:06: in maintenance: db2 alarm raised: socket_io_error (threshold 0, action none)"},
		{property.OnlyCoordinatorFences, false, []act.Event{&fence.AlarmExpired{At: 7e9, Node: 1, Condition: statemap.SocketIOError, Coordinator: 1}},
			`00:00:07: db2's socket_io_error alarm was acted on by "db2", but the coordinator is db1`},
		{property.OnlyCoordinatorFences, false, []act.Event{&fence.ManagerDown{Node: 0}, &fence.ManagerDown{Node: 1}, &fence.NodeFailed{At: 8e9, Node: 1, Condition: statemap.SocketIOError}},
			"00:00:08: failed with no primary view (0 of 2 managers up): db2 FAILED: replica out of service (socket_io_error)"},
		{property.OnlyCoordinatorFences, false, []act.Event{&fence.ManagerDown{Node: 0}, &fence.ManagerDown{Node: 1}, &fence.AlarmExpired{At: 8e9, Node: 1, Condition: statemap.SocketIOError}},
			"00:00:08: db2's socket_io_error alarm was acted on with no primary view (0 of 2 managers up)"},
		{property.NoFalseFailover, false, []act.Event{&fence.NoCandidate{At: 9e9, Node: 0, Condition: statemap.NoRouteToHost}},
			"00:00:09: master db1 was fenced (no-candidate, no_route_to_host) while its database was alive (no fault)"},
		{property.NoFalseFailover, false, []act.Event{&act.FaultSet{At: 9e9, Node: 0, Fault: fault.Fault{Kind: fault.Unreachable}}, &act.FaultSet{At: 10e9, Node: 0, Fault: fault.Fault{Kind: fault.Slow, Delay: 2 * time.Second}}, &fence.Failover{At: 10e9, Node: 0, Condition: statemap.NoRouteToHost, To: 1}},
			"00:00:10: master db1 was fenced (failover, no_route_to_host) while its database was alive (fault slow 2s)"},
		{property.NoFalseFailover, true, []act.Event{&act.FaultSet{At: 8e9, Node: 0, Fault: fault.Fault{Kind: fault.Refuse}}, &fence.NoCandidate{At: 9e9, Node: 0, Condition: statemap.SocketIOError}},
			"00:00:09: master db1 was fenced (no-candidate, socket_io_error) on a trace with no fatal fault"},
		// A watched fault whose deadline passed is judged at the next event, at its deadline.
		{property.DetectsDeathWithin, false, []act.Event{&act.FaultSet{At: 60e9, Node: 0, Fault: fault.Fault{Kind: fault.Refuse}}, &fence.StateChanged{At: 70e9, Node: 1}},
			"00:01:05: master db1 has had fault refuse (socket_io_error) since 00:01:00 and was not fenced by 00:01:05, 5s after it"},
	} {
		tr := tr
		tr.Benign = c.benign
		p, err := property.New(property.Spec{Name: c.name}, tr)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range c.evs {
			p.Event(ev)
		}
		if held, why := p.Verdict(); held || why != c.want {
			t.Errorf("%s: held %v, %q; want %q", c.name, held, why, c.want)
		}
	}
}
