package faultmodel

import (
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/statemap"
)

// Predict is the fault model: the outcome of a probe started while the node's database link
// has fault f, under a checker budget of timeout. A probe that times out takes the whole budget;
// any other finishes at once, or after the delay of slow, or after the five trips of delay.
//
// Under delay D every byte is D late each way and a probe makes five trips: the greeting (D),
// the login and its verdict (3D), the query and its result (5D). It ends ok after 5D when that
// is under the budget; otherwise it runs out of time in the phase the budget ends in: waiting
// for the greeting (login_response_timeout), for the login's verdict (query_exec_timeout) or
// for the query's result (query_results_timeout).
//
// Toxiproxy's toxics (latency, bandwidth, slow-close, timeout, reset-peer, slicer, limit-data)
// meet the probe's trips on their one stream as predictToxic says, rule by rule.
func Predict(f fault.Fault, timeout time.Duration) act.Outcome {
	at := func(c statemap.Condition) act.Outcome { return act.Outcome{Condition: c} }
	late := func(c statemap.Condition) act.Outcome { return act.Outcome{Condition: c, Took: timeout} }
	switch f.Kind {
	case fault.Heal:
		return at(statemap.OK)
	case fault.Refuse, fault.Reset, fault.Close:
		return at(statemap.SocketIOError)
	case fault.Freeze:
		return late(statemap.LoginResponseTimeout)
	case fault.Blackhole:
		return late(statemap.SocketConnectTimeout)
	case fault.Stall:
		return late(statemap.QueryResultsTimeout)
	case fault.Slow:
		if f.Delay < timeout {
			return act.Outcome{Condition: statemap.OK, Took: f.Delay}
		}
		return late(statemap.QueryResultsTimeout)
	case fault.Delay:
		switch {
		case f.Delay >= timeout:
			return late(statemap.LoginResponseTimeout)
		case 3*f.Delay >= timeout:
			return late(statemap.QueryExecTimeout)
		case 5*f.Delay >= timeout:
			return late(statemap.QueryResultsTimeout)
		}
		return act.Outcome{Condition: statemap.OK, Took: 5 * f.Delay}
	case fault.Error:
		switch f.Code {
		case 1040:
			return at(statemap.TooManyConnections)
		case 1045:
			return at(statemap.WrongCredentials)
		}
		return at(statemap.MySQLError)
	case fault.Latency, fault.Bandwidth, fault.SlowClose, fault.Timeout, fault.ResetPeer, fault.Slicer, fault.LimitData:
		return predictToxic(f, timeout)
	case fault.Unreachable:
		return at(statemap.NoRouteToHost)
	case fault.HostDown:
		return at(statemap.HostIsDown)
	case fault.Probe:
		c, ok := statemap.ParseCondition(f.Condition)
		if !ok {
			c = statemap.UntrappedCondition
		}
		if c.IsTimeout() {
			return late(c)
		}
		return at(c)
	}
	return at(statemap.UntrappedCondition)
}

// DatabaseDead reports whether fault f on a node's link means its database is dead, for
// judging whether fencing it was right: refuse, reset, close, freeze, blackhole, unreachable and
// hostdown (the host is down, and its database with it) are death; no fault, stall, slow, delay
// and error are a live database answering slowly or with an error. A forced condition ("probe C")
// is death when C is what a dead database's probes end in: socket_io_error,
// login_response_timeout, socket_connect_timeout, no_route_to_host or host_is_down. Of
// toxiproxy's toxics timeout and reset-peer are death, limit-data when no probe gets through
// its bytes, and latency, bandwidth, slicer and slow-close never (toxicDead).
func DatabaseDead(f fault.Fault) bool {
	if f.Kind.Toxiproxy() {
		return toxicDead(f)
	}
	switch f.Kind {
	case fault.Refuse, fault.Reset, fault.Close, fault.Freeze, fault.Blackhole, fault.Unreachable, fault.HostDown:
		return true
	case fault.Probe:
		c, _ := statemap.ParseCondition(f.Condition)
		switch c {
		case statemap.SocketIOError, statemap.LoginResponseTimeout, statemap.SocketConnectTimeout, statemap.NoRouteToHost, statemap.HostIsDown:
			return true
		}
	}
	return false
}
