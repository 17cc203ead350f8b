package monitor

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"syscall"

	"github.com/go-sql-driver/mysql"

	"github.com/failsim/failsim/statemap"
)

// Ending is how a probe ended, as the checker saw it: all Classify needs.
type Ending struct {
	Phase     Phase
	Op        Op    // the socket operation Raw came from; OpNone when Raw is nil
	Raw       error // the first socket error; nil if the socket never failed
	Err       error // the error the driver returned; nil for a healthy probe
	OutOfTime bool  // the budget ran out before the probe ended
}

// Classify names the condition a probe ended in, phase by phase as the reference checker does:
//
//	phase / what happened                   condition
//	no error                                ok
//	ERR 1040 before the query               too_many_connections
//	ERR 1045 before the query               wrong_credentials
//	ERR at the greeting                     mysql_error
//	ERR at the login                        query_execution_failed
//	ERR to the query                        query_result_failed
//	out of time: connect                    socket_connect_timeout
//	out of time: greeting                   login_response_timeout
//	out of time: login, writing             send_query_timeout
//	out of time: login, reading             query_exec_timeout (the reference checker's quirk)
//	out of time: query, writing             send_query_timeout
//	out of time: query, reading             query_results_timeout
//	EOF at the login                        mysql_premature_eof
//	I/O error "host is down"                host_is_down
//	I/O error "no route to host"            no_route_to_host (network unreachable too)
//	"cannot assign requested address"       open_file_limit_error
//	unknown host (DNS)                      unknown_host
//	any other I/O error, refused and reset  socket_io_error
//	a packet over failsim's bounds          unexpected_exception (bounded.go)
//	anything else                           unexpected_exception
func Classify(e Ending) statemap.Condition {
	if e.Err == nil && e.Raw == nil {
		return statemap.OK
	}
	var pe *ProtocolError
	if errors.As(e.Raw, &pe) || errors.As(e.Err, &pe) {
		return statemap.UnexpectedException
	}
	var me *mysql.MySQLError
	if errors.As(e.Err, &me) && e.Phase < Query {
		switch me.Number {
		case 1040:
			return statemap.TooManyConnections
		case 1045:
			return statemap.WrongCredentials
		}
		if e.Phase <= Greeting {
			return statemap.MySQLError
		}
		return statemap.QueryExecutionFailed
	}
	if me != nil {
		return statemap.QueryResultFailed
	}
	if e.OutOfTime || isTimeout(e.Raw) || (e.Raw == nil && isTimeout(e.Err)) {
		return timeoutOf(e.Phase, e.Op)
	}
	cause := e.Raw
	if cause == nil {
		cause = e.Err
	}
	var dns *net.DNSError
	switch {
	case errors.As(cause, &dns):
		return statemap.UnknownHost
	case errors.Is(cause, syscall.EHOSTDOWN):
		return statemap.HostIsDown
	case errors.Is(cause, syscall.EHOSTUNREACH), errors.Is(cause, syscall.ENETUNREACH):
		return statemap.NoRouteToHost
	case errors.Is(cause, syscall.EADDRNOTAVAIL):
		return statemap.OpenFileLimitError
	case errors.Is(cause, io.EOF), errors.Is(cause, io.ErrUnexpectedEOF):
		if e.Phase == Login {
			return statemap.MySQLPrematureEOF
		}
		return statemap.SocketIOError
	case e.Raw != nil, isIOError(cause):
		return statemap.SocketIOError
	}
	return statemap.UnexpectedException
}

// timeoutOf names the timeout of a phase.
func timeoutOf(p Phase, op Op) statemap.Condition {
	switch p {
	case Connect:
		return statemap.SocketConnectTimeout
	case Greeting:
		return statemap.LoginResponseTimeout
	case Login:
		if op == OpWrite {
			return statemap.SendQueryTimeout
		}
		return statemap.QueryExecTimeout
	}
	if op == OpWrite {
		return statemap.SendQueryTimeout
	}
	return statemap.QueryResultsTimeout
}

func isTimeout(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// isIOError reports whether a driver error stands for a broken socket.
func isIOError(err error) bool {
	var op *net.OpError
	var errno syscall.Errno
	return errors.Is(err, mysql.ErrInvalidConn) || errors.As(err, &op) || errors.As(err, &errno) || errors.Is(err, net.ErrClosed)
}
