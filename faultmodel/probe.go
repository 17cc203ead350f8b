package faultmodel

import (
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/statemap"
)

// The probe's bytes, trip by trip: what the checker's probe (monitor.Checker) carries each way
// before it ends, COM_QUIT and close excluded, as counted by a relay between the checker and
// MariaDB 10.11 with the probe user. Toxiproxy's toxics act on these: bandwidth holds a trip for
// its bytes, slicer cuts them, limit-data counts them. The in-process server's greeting is 78
// bytes, every other trip the same. The login carries the driver's connection attributes, the
// client's pid among them: 183 bytes for a five-digit pid, a byte less for each digit fewer.
// Another server version, user or pid moves them a little, and with them the edges of
// limit-data's phases (docs/engine.md).
const (
	GreetingBytes = 104 // the server's greeting (downstream)
	LoginBytes    = 183 // the client's handshake response (upstream): user, scramble, plugin, connection attributes
	VerdictBytes  = 11  // the server's OK to the login (downstream)
	QueryBytes    = 13  // COM_QUERY "SELECT 1" (upstream)
	ResultBytes   = 50  // its result set (downstream)
)

// wait is what a probe waits for when a trip is under way: the phase it ends in if the trip
// never arrives.
type wait uint8

const (
	forGreeting wait = iota // connected, waiting for the greeting
	forVerdict              // the login sent, waiting for its verdict
	forResult               // the query sent, waiting for its result
)

// timedOut is the condition of a probe whose budget runs out waiting for w: the checker reads
// at each (monitor.Classify's "out of time" rows).
func (w wait) timedOut() statemap.Condition {
	switch w {
	case forGreeting:
		return statemap.LoginResponseTimeout
	case forVerdict:
		return statemap.QueryExecTimeout
	}
	return statemap.QueryResultsTimeout
}

// closed is the condition of a probe whose connection is closed (FIN) while it waits for w: an
// EOF, which the checker names mysql_premature_eof at the login and socket_io_error elsewhere.
// A reset (RST) is socket_io_error whatever the probe waits for.
func (w wait) closed() statemap.Condition {
	if w == forVerdict {
		return statemap.MySQLPrematureEOF
	}
	return statemap.SocketIOError
}

// trip is one way of one exchange of the probe.
type trip struct {
	stream fault.Stream
	wait   wait // what the probe waits for while the trip is under way
	bytes  int
}

// trips are the probe's, in order: the greeting, the login and its verdict, the query and its
// result. Each starts when the one before has arrived: a probe does one thing at a time.
var trips = [...]trip{
	{fault.Downstream, forGreeting, GreetingBytes},
	{fault.Upstream, forVerdict, LoginBytes},
	{fault.Downstream, forVerdict, VerdictBytes},
	{fault.Upstream, forResult, QueryBytes},
	{fault.Downstream, forResult, ResultBytes},
}

// name is the trip in words.
func (t trip) name() string {
	switch {
	case t.wait == forGreeting:
		return "greeting"
	case t.wait == forVerdict && t.stream == fault.Upstream:
		return "login"
	case t.wait == forVerdict:
		return "login's verdict"
	case t.stream == fault.Upstream:
		return "query"
	}
	return "query's result"
}
