package faultmodel

import (
	"testing"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/statemap"
)

// Every fault's outcome and death, under a budget of 5 s, to exact values.
func TestPredict(t *testing.T) {
	const budget = 5 * time.Second
	for _, c := range []struct {
		f    fault.Fault
		want act.Outcome
		dead bool
	}{
		{fault.Fault{}, act.Outcome{Condition: statemap.OK}, false},
		{fault.Fault{Kind: fault.Refuse}, act.Outcome{Condition: statemap.SocketIOError}, true},
		{fault.Fault{Kind: fault.Reset}, act.Outcome{Condition: statemap.SocketIOError}, true},
		{fault.Fault{Kind: fault.Close}, act.Outcome{Condition: statemap.SocketIOError}, true},
		{fault.Fault{Kind: fault.Freeze}, act.Outcome{Condition: statemap.LoginResponseTimeout, Took: budget}, true},
		{fault.Fault{Kind: fault.Blackhole}, act.Outcome{Condition: statemap.SocketConnectTimeout, Took: budget}, true},
		{fault.Fault{Kind: fault.Stall}, act.Outcome{Condition: statemap.QueryResultsTimeout, Took: budget}, false},
		{fault.Fault{Kind: fault.Slow, Delay: 4999 * time.Millisecond}, act.Outcome{Condition: statemap.OK, Took: 4999 * time.Millisecond}, false},
		{fault.Fault{Kind: fault.Slow, Delay: budget}, act.Outcome{Condition: statemap.QueryResultsTimeout, Took: budget}, false},
		{fault.Fault{Kind: fault.Delay, Delay: 999 * time.Millisecond}, act.Outcome{Condition: statemap.OK, Took: 4995 * time.Millisecond}, false},
		{fault.Fault{Kind: fault.Delay, Delay: time.Second}, act.Outcome{Condition: statemap.QueryResultsTimeout, Took: budget}, false},
		{fault.Fault{Kind: fault.Delay, Delay: 1666 * time.Millisecond}, act.Outcome{Condition: statemap.QueryResultsTimeout, Took: budget}, false},
		{fault.Fault{Kind: fault.Delay, Delay: 1667 * time.Millisecond}, act.Outcome{Condition: statemap.QueryExecTimeout, Took: budget}, false},
		{fault.Fault{Kind: fault.Delay, Delay: budget}, act.Outcome{Condition: statemap.LoginResponseTimeout, Took: budget}, false},
		{fault.Fault{Kind: fault.Delay, Delay: 24 * time.Hour}, act.Outcome{Condition: statemap.LoginResponseTimeout, Took: budget}, false},
		{fault.Fault{Kind: fault.Error, Code: 1040}, act.Outcome{Condition: statemap.TooManyConnections}, false},
		{fault.Fault{Kind: fault.Error, Code: 1045}, act.Outcome{Condition: statemap.WrongCredentials}, false},
		{fault.Fault{Kind: fault.Error, Code: 1205}, act.Outcome{Condition: statemap.MySQLError}, false},
		{fault.Fault{Kind: fault.Unreachable}, act.Outcome{Condition: statemap.NoRouteToHost}, true},
		{fault.Fault{Kind: fault.HostDown}, act.Outcome{Condition: statemap.HostIsDown}, true},
		{fault.Fault{Kind: fault.Probe, Condition: "query_exec_timeout"}, act.Outcome{Condition: statemap.QueryExecTimeout, Took: budget}, false},
		{fault.Fault{Kind: fault.Probe, Condition: "login_response_timeout"}, act.Outcome{Condition: statemap.LoginResponseTimeout, Took: budget}, true},
		{fault.Fault{Kind: fault.Probe, Condition: "socket_io_error"}, act.Outcome{Condition: statemap.SocketIOError}, true},
		{fault.Fault{Kind: fault.Probe, Condition: "mysql_error"}, act.Outcome{Condition: statemap.MySQLError}, false},
		{fault.Fault{Kind: fault.Probe, Condition: "no_such_condition"}, act.Outcome{Condition: statemap.UntrappedCondition}, false},
	} {
		if got := Predict(c.f, budget); got != c.want {
			t.Errorf("Predict(%s) = %+v, want %+v", c.f, got, c.want)
		}
		if got := DatabaseDead(c.f); got != c.dead {
			t.Errorf("DatabaseDead(%s) = %v, want %v", c.f, got, c.dead)
		}
	}
}
