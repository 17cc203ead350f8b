package proxy

import (
	"bufio"
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"go.uber.org/goleak"

	"github.com/failsim/failsim/internal/fakemysql"
)

func TestMain(m *testing.M) {
	if upstream := os.Getenv(floodChildEnv); upstream != "" {
		os.Exit(floodChild(upstream))
	}
	if spec := os.Getenv(processChildEnv); spec != "" {
		os.Exit(processChildMain(spec))
	}
	// Room for the load test's 1,000 connections: four descriptors each.
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil && lim.Cur < 8192 {
		lim.Cur = min(lim.Max, 8192)
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
	mysql.SetLogger(quiet{})
	goleak.VerifyTestMain(m)
	_ = os.Stdout
}

type quiet struct{}

func (quiet) Print(...any) {}

// start runs a proxy with one node "db" in front of upstream, closed at cleanup.
func start(t testing.TB, upstream string, mode string, opts ...func(*Config)) (*Proxy, *Node) {
	t.Helper()
	m, err := parseModeString(mode)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Nodes: []NodeConfig{{Name: "db", Listen: "127.0.0.1:0", Upstream: upstream, Mode: m}}, Seed: 1}
	for _, o := range opts {
		o(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	n, _ := p.Node("db")
	return p, n
}

// set switches the node's mode or fails the test.
func set(t testing.TB, n *Node, mode string) {
	t.Helper()
	m, err := parseModeString(mode)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.SetMode(m); err != nil {
		t.Fatal(err)
	}
}

// dial connects with a timeout.
func dial(t testing.TB, addr string) (*net.TCPConn, error) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { c.Close() })
	return c.(*net.TCPConn), nil
}

// mustDial connects or fails the test.
func mustDial(t testing.TB, addr string) *net.TCPConn {
	t.Helper()
	c, err := dial(t, addr)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// rawClient speaks just enough MySQL over a plain socket to log in and ping.
type rawClient struct {
	c *net.TCPConn
	r *bufio.Reader
}

func newRaw(c *net.TCPConn) *rawClient { return &rawClient{c: c, r: bufio.NewReader(c)} }

// read reads one packet within d.
func (rc *rawClient) read(d time.Duration) (byte, []byte, error) {
	rc.c.SetReadDeadline(time.Now().Add(d))
	var h [4]byte
	if _, err := io.ReadFull(rc.r, h[:]); err != nil {
		return 0, nil, err
	}
	p := make([]byte, int(h[0])|int(h[1])<<8|int(h[2])<<16)
	_, err := io.ReadFull(rc.r, p)
	return h[3], p, err
}

func (rc *rawClient) write(seq byte, payload []byte) error {
	n := len(payload)
	_, err := rc.c.Write(append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...))
	return err
}

// login reads the greeting and logs in; it returns the greeting.
func (rc *rawClient) login(t testing.TB) []byte {
	t.Helper()
	_, g, err := rc.read(2 * time.Second)
	if err != nil {
		t.Fatalf("greeting: %v", err)
	}
	if err := rc.write(1, make([]byte, 40)); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := rc.read(2 * time.Second); err != nil || ok[0] != 0 {
		t.Fatalf("login: %v %x", err, ok)
	}
	return g
}

// ping sends COM_PING and waits d for the OK.
func (rc *rawClient) ping(d time.Duration) error {
	if err := rc.write(0, []byte{0x0e}); err != nil {
		return err
	}
	_, p, err := rc.read(d)
	if err == nil && p[0] != 0 {
		err = errors.New("ping: not OK")
	}
	return err
}

// isTimeout reports whether err is a deadline or timeout.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// mysqlConnect opens one go-sql-driver connection through addr within the context budget.
func mysqlConnect(ctx context.Context, addr string) (driver.Conn, error) {
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User, cfg.Passwd = "tcp", addr, "u", "p"
	cfg.Timeout = 2 * time.Second
	cfg.Logger = quiet{}
	cn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return cn.Connect(ctx)
}

// selectOne runs SELECT 1 on c within d.
func selectOne(c driver.Conn, d time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	rows, err := c.(driver.QueryerContext).QueryContext(ctx, "SELECT 1", nil)
	if err != nil {
		return err
	}
	defer rows.Close()
	v := make([]driver.Value, 1)
	if err := rows.Next(v); err != nil {
		return err
	}
	if v[0] != int64(1) {
		return errors.New("SELECT 1: wrong value")
	}
	return nil
}

// fake starts a MySQL responder.
func fake(t testing.TB, cfg fakemysql.Config) string {
	return fakemysql.Start(t, cfg).Addr()
}

func fmtInt(i int) string { return strconv.Itoa(i) }
