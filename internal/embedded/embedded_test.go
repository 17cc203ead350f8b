package embedded

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

func open(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = &mysql.NopLogger{}
	cfg.Timeout = 5 * time.Second
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	t.Cleanup(func() { db.Close() })
	return db
}

func TestStartProbeUserStop(t *testing.T) {
	s, err := Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if host, _, _ := net.SplitHostPort(s.Addr); host != "127.0.0.1" {
		t.Fatalf("listens on %s: want 127.0.0.1", s.Addr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db := open(t, s.DSN(""))
	var one int
	if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1: %v (got %d)", err, one)
	}
	if err := db.QueryRowContext(ctx, "SELECT id FROM failsim.heartbeat").Scan(&one); err != nil || one != 1 {
		t.Fatalf("heartbeat: %v (got %d)", err, one)
	}
	if _, err := db.ExecContext(ctx, "CREATE DATABASE nope"); err == nil {
		t.Fatal("the probe user could create a database: it should only SELECT")
	}
	// The set-up account is gone, and no root account was ever made.
	for _, user := range []string{"failsim_setup", "root"} {
		err := open(t, user+"@tcp("+s.Addr+")/").PingContext(ctx)
		var me *mysql.MySQLError
		if !errors.As(err, &me) {
			t.Errorf("%s logged in (%v): only the probe user should", user, err)
		}
	}
	bad := strings.Replace(s.DSN(""), ":"+s.Password+"@", ":wrong@", 1)
	var me *mysql.MySQLError
	if err := open(t, bad).PingContext(ctx); !errors.As(err, &me) || me.Number != 1045 {
		t.Errorf("wrong password: %v, want error 1045", err)
	}

	// An idle client connection is closed by Close, and the port refuses afterwards.
	idle, err := net.Dial("tcp", s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	db.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 4096)
	for {
		if _, err := idle.Read(buf); err != nil {
			if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "timeout") {
				t.Fatalf("an open connection survived Close: %v", err)
			}
			break
		}
	}
	if c, err := net.DialTimeout("tcp", s.Addr, time.Second); err == nil {
		c.Close()
		t.Fatal("the port still accepts after Close")
	}
	if err := s.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
}

// The in-process server is built with the stand-in for go-icu-regex (third_party/, replaced in
// go.mod): no WebAssembly ICU compiled at every failsim start. REGEXP says so.
func TestRegexpIsRefused(t *testing.T) {
	s, err := Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var ok bool
	err = open(t, s.DSN("")).QueryRowContext(ctx, "SELECT 'abc' REGEXP 'b'").Scan(&ok)
	if err == nil || !strings.Contains(err.Error(), "regular expressions are not available in failsim's in-process server") {
		t.Fatalf("REGEXP: %v (got %v): want the stand-in's refusal; is go.mod's replace of go-icu-regex gone?", err, ok)
	}
}
