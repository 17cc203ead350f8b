package proxy_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/failsim/failsim/internal/mariadb"
	"github.com/failsim/failsim/proxy"
)

// stallRounds is how many probes TestStallReleasesAbandonedSessions abandons: more than the
// max_connections it gives the server, so that a session kept for each would refuse a login
// long before the last round.
const stallRounds = 40

// TestStallReleasesAbandonedSessions: a real MariaDB behind the proxy, db1 stalled, a checker
// whose every probe logs in, runs SELECT 1, times out and closes its socket. When the client
// goes, the proxy lets its server session go too: the probe user's sessions on the server are
// back to none after every round, so no round ever meets "too many connections", though
// the server takes at most 10 clients and the rounds abandon 40 probes.
func TestStallReleasesAbandonedSessions(t *testing.T) {
	srv := mariadb.Need(t)
	root, err := srv.Root()
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	ctx := context.Background()
	if _, err := root.ExecContext(ctx, "SET GLOBAL max_connections = 10"); err != nil {
		t.Fatal(err)
	}
	px, err := proxy.New(proxy.Config{Nodes: []proxy.NodeConfig{{Name: "db1", Listen: "127.0.0.1:0", Upstream: srv.Addr}}})
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	db1, _ := px.Node("db1")
	stall, err := proxy.ParseMode([]string{"stall"})
	if err != nil {
		t.Fatal(err)
	}
	if err := db1.SetMode(stall); err != nil {
		t.Fatal(err)
	}
	for round := range stallRounds {
		err := abandonedProbe(srv, db1.Addr())
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("round %d: the probe ended in %v, want its own timeout (the query held)", round, err)
		}
		waitSessions(t, root, srv.User, 0, round)
	}
	if got := db1.Status().Open; got != 0 {
		t.Errorf("the proxy still holds %d connections", got)
	}
}

// abandonedProbe logs in through addr as the probe user and runs SELECT 1 with a budget of
// 300 ms, as the live checker does; go-sql-driver closes the socket when the budget runs out.
func abandonedProbe(srv *mariadb.Server, addr string) error {
	cfg, err := mysql.ParseDSN(srv.DSN(addr))
	if err != nil {
		return err
	}
	cfg.Timeout = 5 * time.Second
	cfg.Logger = &mysql.NopLogger{}
	cn, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	login, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := cn.Connect(login)
	if err != nil {
		return err // a leak shows here: ERR 1040, too many connections
	}
	defer c.Close()
	q, cancelq := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancelq()
	rows, err := c.(driver.QueryerContext).QueryContext(q, "SELECT 1", nil)
	if err == nil {
		rows.Close()
		return errors.New("SELECT 1 answered under stall")
	}
	return err
}

// waitSessions waits until the server holds want sessions of user. The proxy releases a
// session as soon as the client is gone, and the server ends it as soon as it reads the FIN;
// the bound only stops a test whose sessions never go.
func waitSessions(t *testing.T, root *sql.DB, user string, want, round int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		err := root.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = ?", user).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("round %d: the server still holds %d sessions of %s, want %d", round, n, user, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
