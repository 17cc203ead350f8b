// Package statemap is the Tungsten Manager's rule table: for each condition a probe can end in,
// the datasource state it shows, the threshold in timekeeper ticks after which its alarm expires,
// and the action the fencer runs on expiry.
//
// A Map is built from the shipped defaults and an optional override file; the override is
// consulted first, then the defaults, and a condition mapped in neither is unknown, threshold -1,
// action none. A Map is immutable once built and safe to share.
package statemap

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/fault"
)

// TickInterval is the timekeeper's period: thresholds count these ticks.
const TickInterval = 10 * time.Second

// MaxThreshold is the largest threshold a statemap may set: 100,000,000 ticks, about 31.7
// years of sustained failure. A larger one is refused when the file is read; -1 is the way to
// say never.
const MaxThreshold = 100_000_000

// State is a datasource state as the manager shows it. The zero value is Unknown.
type State uint8

// The datasource states.
const (
	Unknown State = iota // no determination at all
	Online               // the database answered the probe normally
	Stopped              // definitively down: connection refused or reset
	Timeout              // did not answer in time at some stage
	Suspect              // something is wrong, but not provably dead
	numStates
)

var stateNames = [numStates]string{"unknown", "online", "stopped", "timeout", "suspect"}

func (s State) String() string {
	if s < numStates {
		return stateNames[s]
	}
	return fmt.Sprintf("state(%d)", uint8(s))
}

// ParseState reads a state name; the caller lower-cases it.
func ParseState(s string) (State, bool) {
	for i, n := range stateNames {
		if n == s {
			return State(i), true
		}
	}
	return 0, false
}

// Action is what the fencer does when an alarm expires. The zero value is None.
type Action uint8

// The actions, least severe first.
const (
	None  Action = iota // log only ("undefined" reads as none)
	Alert               // logs "ALERT NOT IMPLEMENTED" and nothing else
	Fail                // a replica is failed; a master is failed over
	numActions
)

var actionNames = [numActions]string{"none", "alert", "fail"}

func (a Action) String() string {
	if a < numActions {
		return actionNames[a]
	}
	return fmt.Sprintf("action(%d)", uint8(a))
}

// ParseAction reads an action name; the caller lower-cases it. "undefined" is none.
func ParseAction(s string) (Action, bool) {
	if s == "undefined" {
		return None, true
	}
	for i, n := range actionNames {
		if n == s {
			return Action(i), true
		}
	}
	return 0, false
}

// Condition is one outcome of a probe. The zero value is Undefined; OK is a healthy probe.
type Condition uint8

// The conditions: the 2015 checker's list, lower-cased as used in keys, plus wrong_credentials.
const (
	Undefined Condition = iota
	OK
	TooManyConnections
	OpenFileLimitError
	SocketNoIO
	SocketConnectTimeout
	SendQueryTimeout
	QueryResultsTimeout
	QueryExecTimeout
	LoginResponseTimeout
	QueryTooLarge
	QueryResultFailed
	QueryExecutionFailed
	SocketIOError
	MySQLError
	UnexpectedException
	MySQLPrematureEOF
	HostIsDown
	NoRouteToHost
	UnknownHost
	UntrappedCondition
	WrongCredentials
	NumConditions // the number of conditions; not a condition
)

var conditionNames = [NumConditions]string{
	"undefined", "ok", "too_many_connections", "open_file_limit_error", "socket_no_io",
	"socket_connect_timeout", "send_query_timeout", "query_results_timeout", "query_exec_timeout",
	"login_response_timeout", "query_too_large", "query_result_failed", "query_execution_failed",
	"socket_io_error", "mysql_error", "unexpected_exception", "mysql_premature_eof", "host_is_down",
	"no_route_to_host", "unknown_host", "untrapped_condition", "wrong_credentials",
}

func (c Condition) String() string {
	if c < NumConditions {
		return conditionNames[c]
	}
	return fmt.Sprintf("condition(%d)", uint8(c))
}

// IsTimeout reports whether the condition is a timeout: its name ends in _timeout, and a probe
// ending in it takes the checker's whole budget.
func (c Condition) IsTimeout() bool {
	switch c {
	case SocketConnectTimeout, SendQueryTimeout, QueryResultsTimeout, QueryExecTimeout, LoginResponseTimeout:
		return true
	}
	return false
}

// Conditions returns every condition in declaration order.
func Conditions() []Condition {
	cs := make([]Condition, NumConditions)
	for i := range cs {
		cs[i] = Condition(i)
	}
	return cs
}

// ParseCondition reads a condition name (lower case).
func ParseCondition(s string) (Condition, bool) {
	for i, n := range conditionNames {
		if n == s {
			return Condition(i), true
		}
	}
	return 0, false
}

// Nearest returns the known condition name closest to s, for "did you mean", by failsim's one
// rule (fault.NearestName). ok is false when no name is that close.
func Nearest(s string) (name string, ok bool) { return fault.NearestName(s, conditionNames[:]) }

// Hint is what follows "unknown condition %q" in an error: " (did you mean NAME?)" when a
// condition is close to s, else where to find the names.
func Hint(s string) string {
	if n, ok := Nearest(s); ok {
		return " (did you mean " + n + "?)"
	}
	return " (failsim statemap lists the conditions)"
}

// Rule is what the statemap says of one condition.
type Rule struct {
	State     State
	Threshold int    // timekeeper ticks until the alarm expires: -1 never, 0 at once
	Action    Action // run on expiry
	Source    string // where the rule came from: "file:line", or "unmapped"
}

// Map is an effective statemap: one rule per condition.
type Map struct {
	rules [NumConditions]Rule
}

// Rule returns the rule for c.
func (m *Map) Rule(c Condition) Rule {
	if c >= NumConditions {
		return unmapped
	}
	return m.rules[c]
}

var unmapped = Rule{State: Unknown, Threshold: -1, Action: None, Source: "unmapped"}

// Fatal reports whether the rule ever fences: its action is fail and its threshold is not -1.
func (r Rule) Fatal() bool { return r.Action == Fail && r.Threshold >= 0 }

// Window returns the span of sustained failure after which the alarm expires: an alarm raised
// between two ticks expires at the threshold-th tick after it, so after (threshold-1) to
// threshold tick intervals. ok is false when the alarm never expires.
func (r Rule) Window() (lo, hi time.Duration, ok bool) {
	switch {
	case r.Threshold < 0:
		return 0, 0, false
	case r.Threshold == 0:
		return 0, 0, true
	}
	return time.Duration(r.Threshold-1) * TickInterval, time.Duration(r.Threshold) * TickInterval, true
}

// Explain says in one plain sentence what the rule does for condition c. Only ok deletes the
// node's alarms; any other condition, even one mapped to online, is a bad probe that raises
// its alarm.
func (r Rule) Explain(c Condition) string {
	if c == OK {
		return "healthy: deletes the node's alarms"
	}
	lo, hi, expires := r.Window()
	var when string
	switch {
	case !expires:
		when = "never expires"
	case r.Threshold == 0:
		when = "at once"
	default:
		when = fmt.Sprintf("after %s: %d-%d s of sustained failure", plural(r.Threshold, "tick"), int(lo.Seconds()), int(hi.Seconds()))
	}
	var says string
	switch {
	case !expires:
		says = fmt.Sprintf("logs only: shows %s, never fences", r.State)
	case r.Action == Fail:
		says = "fails the node " + when
	case r.Action == Alert:
		says = "logs ALERT NOT IMPLEMENTED " + when + ", never fences"
	default:
		says = "logs the expiry " + when + ", never fences"
	}
	switch {
	case r.State == Online && !expires:
		says += ", yet is no ok probe: raises an alarm and deletes none"
	case r.State == Online:
		says += "; shows online, yet is no ok probe: raises an alarm and deletes none"
	}
	return says
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
