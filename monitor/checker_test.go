package monitor

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/internal/liveservers"
	"github.com/failsim/failsim/statemap"
)

// probe runs one probe against dsn with budget and checks the bound: it returns
// within the budget plus 100 ms.
func probe(t *testing.T, dsn, query string, budget time.Duration) Result {
	t.Helper()
	c, err := NewChecker(CheckerConfig{DSN: dsn, Budget: budget, Query: query})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := c.Probe(context.Background())
	if took := time.Since(start); took > budget+100*time.Millisecond {
		t.Errorf("probe took %v, budget %v: want at most budget+100ms (ended %s in %s: %v)", took, budget, r.Condition, r.Phase, r.Err)
	}
	return r
}

func want(t *testing.T, r Result, c statemap.Condition, p Phase) {
	t.Helper()
	if r.Condition != c || r.Phase != p {
		t.Errorf("probe ended %s in phase %s (%v), want %s in phase %s", r.Condition, r.Phase, r.Err, c, p)
	}
}

func TestProbeMariaDB(t *testing.T) {
	s := liveservers.MariaDB(t)
	t.Run("ok", func(t *testing.T) {
		r := probe(t, s.DSN(""), "", time.Second)
		want(t, r, statemap.OK, Done)
		if r.Err != nil {
			t.Errorf("ok probe with an error: %v", r.Err)
		}
	})
	t.Run("heartbeat", func(t *testing.T) {
		want(t, probe(t, s.DSN(""), "SELECT ts FROM failsim.heartbeat WHERE id = 1", time.Second), statemap.OK, Done)
	})
	t.Run("wrong password", func(t *testing.T) {
		dsn := strings.Replace(s.DSN(""), ":"+s.Password+"@", ":not-the-password-xyzzy@", 1)
		r := probe(t, dsn, "", time.Second)
		want(t, r, statemap.WrongCredentials, Login)
		if msg := r.Err.Error(); strings.Contains(msg, "xyzzy") || strings.Contains(msg, s.Password) {
			t.Errorf("the error shows a password: %s", msg)
		}
	})
	t.Run("query error", func(t *testing.T) {
		want(t, probe(t, s.DSN(""), "SELECT * FROM failsim.nope", time.Second), statemap.QueryResultFailed, Query)
	})
	t.Run("cancelled", func(t *testing.T) {
		c, err := NewChecker(CheckerConfig{DSN: s.DSN("")})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if r := c.Probe(ctx); r.Condition != statemap.Undefined {
			t.Errorf("a cancelled probe ended %s (%v), want undefined", r.Condition, r.Err)
		}
	})
}

// listen returns a loopback listener whose connections serve runs on.
func listen(t *testing.T, serve func(*net.TCPConn)) string {
	t.Helper()
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		for {
			c, err := ln.AcceptTCP()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	return ln.Addr().String()
}

func dsnFor(addr string) string { return "probe:secret-pw@tcp(" + addr + ")/" }

// The faults a bare socket can make: the proxy's conformance tests cover the rest.
func TestProbeSockets(t *testing.T) {
	budget := 400 * time.Millisecond
	t.Run("refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		r := probe(t, dsnFor(addr), "", budget)
		want(t, r, statemap.SocketIOError, Connect)
		if strings.Contains(r.Err.Error(), "secret-pw") {
			t.Errorf("the error shows the password: %v", r.Err)
		}
	})
	t.Run("close before greeting", func(t *testing.T) {
		addr := listen(t, func(c *net.TCPConn) { c.Close() })
		want(t, probe(t, dsnFor(addr), "", budget), statemap.SocketIOError, Greeting)
	})
	t.Run("reset before greeting", func(t *testing.T) {
		addr := listen(t, func(c *net.TCPConn) { c.SetLinger(0); c.Close() })
		// The RST can beat the end of the dial: either phase is the truth of the wire.
		if r := probe(t, dsnFor(addr), "", budget); r.Condition != statemap.SocketIOError || r.Phase > Greeting {
			t.Errorf("probe ended %s in phase %s (%v), want socket_io_error at connect or greeting", r.Condition, r.Phase, r.Err)
		}
	})
	t.Run("freeze", func(t *testing.T) {
		hold := make(chan struct{})
		t.Cleanup(func() { close(hold) })
		addr := listen(t, func(c *net.TCPConn) { <-hold; c.Close() })
		r := probe(t, dsnFor(addr), "", budget)
		want(t, r, statemap.LoginResponseTimeout, Greeting)
		if r.Took < budget {
			t.Errorf("a frozen server's probe ended after %v, before its budget %v", r.Took, budget)
		}
	})
}

func TestNewCheckerBadDSN(t *testing.T) {
	_, err := NewChecker(CheckerConfig{DSN: "probe:hunter2@tcp(127.0.0.1:3306"})
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("bad DSN: got %v, want an error without the password", err)
	}
}

// The DSN checks name no flag and quote no part of the DSN: the command adds its flag.
func TestDSNErrors(t *testing.T) {
	for _, c := range []struct {
		dsn   string
		proxy bool
		want  string
	}{
		{"probe:hunter2@tcp(127.0.0.1:3306", false, "bad DSN: invalid DSN: missing the slash separating the database name"},
		{"probe:hunter2@udp(127.0.0.1:3306)/", false, `bad DSN: network "udp": want tcp or unix`},
		{"probe:hunter2@tcp(127.0.0.1:3306", true, "bad DSN: invalid DSN: missing the slash separating the database name"},
		{"probe:hunter2@unix(/tmp/mysql.sock)/", true, `network "unix": the proxies need a tcp DSN`},
		{"", false, "bad DSN: it is empty: want USER@tcp(HOST:PORT)/"},
		{"", true, "bad DSN: it is empty: want USER@tcp(HOST:PORT)/"},
		{"probe:hunter2@/", false, "bad DSN: it names no server address: want USER@tcp(ADDRESS)/"},
		{"probe:hunter2@tcp(127.0.0.1:99999)/", false, `bad DSN: address "127.0.0.1:99999": port "99999": want 1 to 65535`},
		{"probe:hunter2@tcp(127.0.0.1:0)/", true, `bad DSN: address "127.0.0.1:0": port "0": want 1 to 65535`},
		{"probe:hunter2@tcp(:3306)/", false, `bad DSN: address ":3306": no host`},
	} {
		var err error
		if c.proxy {
			_, err = ProxyDSN(c.dsn)
		} else {
			_, err = NewChecker(CheckerConfig{DSN: c.dsn})
		}
		if err == nil || err.Error() != c.want {
			t.Errorf("%s (proxy %v): %v, want %s", c.dsn, c.proxy, err, c.want)
		}
	}
	if _, err := ProxyDSN("probe:hunter2@tcp(127.0.0.1:3306)/"); err != nil {
		t.Errorf("a tcp DSN: %v", err)
	}
	for _, ok := range []string{"probe@tcp(db1.internal)/", "probe@tcp([::1]:3306)/", "probe@unix(/run/mysqld/mysqld.sock)/"} {
		if _, err := NewChecker(CheckerConfig{DSN: ok}); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}
