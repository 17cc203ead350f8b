// Package embedded runs a MySQL-protocol server inside the failsim process: go-mysql-server's
// in-memory engine behind its MySQL wire listener, on a free port of 127.0.0.1, with a probe
// user that has a random password and SELECT only, and the same failsim.heartbeat table as the
// throwaway MariaDB of package mariadb. It needs nothing but Go: no server binary, no cgo.
//
// It is the default server of a live replay: the proxies forward to it, the checker logs in to
// it through them. It is a stand-in for the wire, not for MySQL: its storage is memory, so
// nothing in it can stall, and its own error codes differ from MySQL's where docs/live.md says.
//
// go-mysql-server and the vitess listener under it log only through process-wide loggers
// (logrus's standard logger and the function variables of vitess's go/vt/log). Start silences
// both, once, for the whole process: their lines would otherwise go to stderr around failsim's
// own. go-mysql-server also keeps process-wide state of its own (the global system variables,
// sql.SystemVariables), so two servers in one process share it.
package embedded

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	gms "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	vtlog "github.com/dolthub/vitess/go/vt/log"
	"github.com/go-sql-driver/mysql"
	"github.com/sirupsen/logrus"
)

// ProbeUser is the name of the probe user that Start creates.
const ProbeUser = "failsim_probe"

// stopTimeout bounds how long Close waits for the connections' handlers to finish once their
// sockets are closed.
const stopTimeout = 5 * time.Second

// Server is a running in-process server. Close stops it; nothing of it is left on disk.
type Server struct {
	Addr     string // "127.0.0.1:PORT"
	User     string // the probe user: SELECT on every table, nothing else
	Password string // the probe user's password, random per server

	srv      *server.Server
	ln       *listener
	accepted chan struct{} // closed when the accept loop has returned
	once     sync.Once
	err      error // Close's result
}

// Start builds the engine, creates the probe user and the failsim.heartbeat table, and starts
// the listener on a free port of 127.0.0.1. The server answers as soon as Start returns. ctx
// bounds the set-up only; the server runs until Close.
func Start(ctx context.Context) (*Server, error) {
	quietLogs()
	pro := memory.NewDBProvider()
	engine := gms.NewDefault(pro)
	password, err := randomHex(12)
	if err != nil {
		return nil, err
	}
	if err := setUp(ctx, engine, pro, password); err != nil {
		return nil, err
	}
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen on 127.0.0.1: %w", err)
	}
	ln := &listener{Listener: raw, open: map[*conn]struct{}{}}
	cfg := server.Config{Protocol: "tcp", Address: raw.Addr().String(), Listener: ln}
	srv, err := server.NewServer(cfg, engine, sql.NewContext, memory.NewSessionBuilder(pro), nil)
	if err != nil {
		raw.Close()
		return nil, fmt.Errorf("start the in-process server: %w", err)
	}
	s := &Server{Addr: raw.Addr().String(), User: ProbeUser, Password: password, srv: srv, ln: ln, accepted: make(chan struct{})}
	go func() {
		defer close(s.accepted)
		srv.Start() // accepts until the listener closes; it never returns an error
	}()
	return s, nil
}

// setUp creates the probe user and the heartbeat table through SQL, as a temporary superuser
// with a random password that exists only for the set-up.
func setUp(ctx context.Context, engine *gms.Engine, pro *memory.DbProvider, probePassword string) error {
	const setupUser, setupHost = "failsim_setup", "localhost"
	setupPassword, err := randomHex(12)
	if err != nil {
		return err
	}
	users := engine.Analyzer.Catalog.MySQLDb
	users.SetPersister(&mysql_db.NoopPersister{}) // accounts live in memory only
	ed := users.Editor()
	users.AddEphemeralSuperUser(ed, setupUser, setupHost, setupPassword) // turns accounts on
	ed.Close()
	defer func() {
		ed := users.Editor()
		ed.RemoveUser(mysql_db.UserPrimaryKey{Host: setupHost, User: setupUser})
		ed.Close()
	}()
	session := memory.NewSession(sql.NewBaseSessionWithClientServer("", sql.Client{User: setupUser, Address: setupHost}, 0), pro)
	sctx := sql.NewContext(ctx, sql.WithSession(session))
	for _, q := range []string{
		"CREATE USER '" + ProbeUser + "'@'%' IDENTIFIED BY '" + probePassword + "'",
		"GRANT SELECT ON *.* TO '" + ProbeUser + "'@'%'",
		"CREATE DATABASE failsim",
		"CREATE TABLE failsim.heartbeat (id INT PRIMARY KEY, ts TIMESTAMP(6) NOT NULL)",
		"INSERT INTO failsim.heartbeat VALUES (1, NOW(6))",
	} {
		_, rows, _, err := engine.Query(sctx, q)
		if err == nil {
			_, err = sql.RowIterToRows(sctx, rows)
		}
		if err != nil {
			return fmt.Errorf("set up the probe user: %w", err)
		}
	}
	return nil
}

// DSN returns the probe user's go-sql-driver/mysql DSN for addr (the server's own address when
// addr is "").
func (s *Server) DSN(addr string) string {
	if addr == "" {
		addr = s.Addr
	}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = s.User, s.Password, "tcp", addr
	return cfg.FormatDSN()
}

// Close stops accepting, closes every open connection and waits for their handlers, at most
// 5 s. It is safe to call more than once; later calls return the first one's result.
func (s *Server) Close() error {
	s.once.Do(func() {
		s.srv.Close() // closes the listener: the accept loop returns
		<-s.accepted
		s.ln.closeAll()
		select {
		case <-s.ln.idle():
		case <-time.After(stopTimeout):
			s.err = fmt.Errorf("in-process server: %d connections still open %s after close", s.ln.count(), stopTimeout)
		}
	})
	return s.err
}

// listener keeps the connections it accepted until the server's handler closes them, so that
// Close can close them and wait for their handlers: the vitess listener only stops accepting.
type listener struct {
	net.Listener
	mu   sync.Mutex
	open map[*conn]struct{}
	done chan struct{} // closed when open empties after closeAll; nil before
}

// Accept implements net.Listener.
func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &conn{Conn: c, l: l}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done != nil { // closing: refuse late arrivals
		c.Close()
		return nil, net.ErrClosed
	}
	l.open[tc] = struct{}{}
	return tc, nil
}

func (l *listener) closeAll() {
	l.mu.Lock()
	l.done = make(chan struct{})
	for c := range l.open {
		c.Conn.Close() // the handler's read fails; it then closes c, which forgets it
	}
	if len(l.open) == 0 {
		close(l.done)
	}
	l.mu.Unlock()
}

func (l *listener) idle() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.done
}

func (l *listener) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.open)
}

func (l *listener) forget(c *conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.open[c]; !ok {
		return
	}
	delete(l.open, c)
	if l.done != nil && len(l.open) == 0 {
		close(l.done)
	}
}

// conn is an accepted connection; the vitess handler closes it last thing when it finishes.
type conn struct {
	net.Conn
	l *listener
}

// Close implements net.Conn.
func (c *conn) Close() error {
	err := c.Conn.Close()
	c.l.forget(c)
	if errors.Is(err, net.ErrClosed) {
		return nil // closeAll got there first
	}
	return err
}

var quiet sync.Once

// quietLogs silences go-mysql-server's and vitess's process-wide loggers (see the package doc).
func quietLogs() {
	quiet.Do(func() {
		logrus.SetOutput(io.Discard)
		logrus.SetLevel(logrus.PanicLevel)
		nop := func(...any) {}
		nopf := func(string, ...any) {}
		vtlog.Info, vtlog.Warning, vtlog.Error = nop, nop, nop
		vtlog.Infof, vtlog.Warningf, vtlog.Errorf = nopf, nopf, nopf
	})
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random password: %w", err)
	}
	return hex.EncodeToString(b), nil
}
