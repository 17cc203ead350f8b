package monitor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/failsim/failsim/statemap"
)

// TestClassify pins the phase table, including the outcomes loopback cannot produce (host is
// down, no route, unknown host): errors built the way net and the driver build them.
func TestClassify(t *testing.T) {
	sysErr := func(op string, errno syscall.Errno) error {
		return &net.OpError{Op: op, Net: "tcp", Err: os.NewSyscallError(op, errno)}
	}
	timeout := &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
	tests := []struct {
		name string
		e    Ending
		want statemap.Condition
	}{
		{"ok", Ending{Phase: Done}, statemap.OK},
		{"refused", Ending{Phase: Connect, Op: OpDial, Raw: sysErr("connect", syscall.ECONNREFUSED), Err: sysErr("connect", syscall.ECONNREFUSED)}, statemap.SocketIOError},
		{"connect timeout", Ending{Phase: Connect, Op: OpDial, Raw: &net.OpError{Op: "dial", Err: os.ErrDeadlineExceeded}, Err: context.DeadlineExceeded, OutOfTime: true}, statemap.SocketConnectTimeout},
		{"host down", Ending{Phase: Connect, Op: OpDial, Raw: sysErr("connect", syscall.EHOSTDOWN), Err: sysErr("connect", syscall.EHOSTDOWN)}, statemap.HostIsDown},
		{"no route", Ending{Phase: Connect, Op: OpDial, Raw: sysErr("connect", syscall.EHOSTUNREACH), Err: sysErr("connect", syscall.EHOSTUNREACH)}, statemap.NoRouteToHost},
		{"net unreachable", Ending{Phase: Connect, Op: OpDial, Raw: sysErr("connect", syscall.ENETUNREACH)}, statemap.NoRouteToHost},
		{"no local address", Ending{Phase: Connect, Op: OpDial, Raw: sysErr("connect", syscall.EADDRNOTAVAIL)}, statemap.OpenFileLimitError},
		{"unknown host", Ending{Phase: Connect, Op: OpDial, Raw: &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "db9", IsNotFound: true}}}, statemap.UnknownHost},
		{"greeting timeout", Ending{Phase: Greeting, Op: OpRead, Raw: timeout, Err: mysql.ErrInvalidConn, OutOfTime: true}, statemap.LoginResponseTimeout},
		{"greeting EOF", Ending{Phase: Greeting, Op: OpRead, Raw: io.EOF, Err: mysql.ErrInvalidConn}, statemap.SocketIOError},
		{"greeting reset", Ending{Phase: Greeting, Op: OpRead, Raw: sysErr("read", syscall.ECONNRESET), Err: mysql.ErrInvalidConn}, statemap.SocketIOError},
		{"too many connections", Ending{Phase: Greeting, Err: &mysql.MySQLError{Number: 1040}}, statemap.TooManyConnections},
		{"greeting error", Ending{Phase: Greeting, Err: &mysql.MySQLError{Number: 1130}}, statemap.MySQLError},
		{"access denied", Ending{Phase: Login, Err: &mysql.MySQLError{Number: 1045}}, statemap.WrongCredentials},
		{"access denied at greeting", Ending{Phase: Greeting, Err: &mysql.MySQLError{Number: 1045}}, statemap.WrongCredentials},
		{"login error", Ending{Phase: Login, Err: &mysql.MySQLError{Number: 1049}}, statemap.QueryExecutionFailed},
		{"login write timeout", Ending{Phase: Login, Op: OpWrite, Raw: timeout, OutOfTime: true}, statemap.SendQueryTimeout},
		{"login reply timeout", Ending{Phase: Login, Op: OpRead, Raw: timeout, Err: mysql.ErrInvalidConn, OutOfTime: true}, statemap.QueryExecTimeout},
		{"login EOF", Ending{Phase: Login, Op: OpRead, Raw: io.EOF, Err: mysql.ErrInvalidConn}, statemap.MySQLPrematureEOF},
		{"query write timeout", Ending{Phase: Query, Op: OpWrite, Raw: timeout, OutOfTime: true}, statemap.SendQueryTimeout},
		{"query timeout", Ending{Phase: Query, Op: OpRead, Raw: timeout, Err: mysql.ErrInvalidConn, OutOfTime: true}, statemap.QueryResultsTimeout},
		{"query timeout by context", Ending{Phase: Query, Err: context.DeadlineExceeded, OutOfTime: true}, statemap.QueryResultsTimeout},
		{"query error", Ending{Phase: Query, Err: &mysql.MySQLError{Number: 1146}}, statemap.QueryResultFailed},
		{"query reset", Ending{Phase: Query, Op: OpRead, Raw: sysErr("read", syscall.ECONNRESET), Err: mysql.ErrInvalidConn}, statemap.SocketIOError},
		{"query EOF", Ending{Phase: Query, Op: OpRead, Raw: io.ErrUnexpectedEOF, Err: mysql.ErrInvalidConn}, statemap.SocketIOError},
		{"driver oddity", Ending{Phase: Login, Err: fmt.Errorf("this authentication plugin is not supported")}, statemap.UnexpectedException},
		{"malformed packet", Ending{Phase: Greeting, Err: mysql.ErrMalformPkt}, statemap.UnexpectedException},
		{"invalid connection alone", Ending{Phase: Query, Err: mysql.ErrInvalidConn}, statemap.SocketIOError},
		{"closed", Ending{Phase: Query, Err: errors.Join(net.ErrClosed)}, statemap.SocketIOError},
	}
	for _, tt := range tests {
		if got := Classify(tt.e); got != tt.want {
			t.Errorf("%s: Classify = %s, want %s", tt.name, got, tt.want)
		}
	}
}
