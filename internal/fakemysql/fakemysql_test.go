package fakemysql

import (
	"context"
	"database/sql/driver"
	"errors"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

type quiet struct{}

func (quiet) Print(...any) {}

func connect(t *testing.T, addr string) (driver.Conn, error) {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User, cfg.Passwd = "tcp", addr, "u", "p"
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = 2*time.Second, 2*time.Second, 2*time.Second
	cfg.Logger = quiet{}
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.Connect(ctx)
}

func TestSelectOne(t *testing.T) {
	for _, offer := range []bool{false, true} {
		s := Start(t, Config{OfferTLS: offer})
		c, err := connect(t, s.Addr())
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		rows, err := c.(driver.QueryerContext).QueryContext(context.Background(), "SELECT 1", nil)
		if err != nil {
			t.Fatalf("query: %v", err)
		}
		dest := make([]driver.Value, 1)
		if err := rows.Next(dest); err != nil {
			t.Fatalf("next: %v", err)
		}
		if dest[0] != int64(1) {
			t.Errorf("SELECT 1 gave %#v", dest[0])
		}
		rows.Close()
		if err := c.(driver.Pinger).Ping(context.Background()); err != nil {
			t.Errorf("ping: %v", err)
		}
		c.Close()
		if s.Queries() != 1 || s.Logins() != 1 {
			t.Errorf("queries %d logins %d, want 1 1", s.Queries(), s.Logins())
		}
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		code uint16
	}{{Config{DenyLogin: true}, 1045}, {Config{TooManyConnections: true}, 1040}} {
		s := Start(t, tc.cfg)
		_, err := connect(t, s.Addr())
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != tc.code {
			t.Errorf("%+v: got %v, want MySQL error %d", tc.cfg, err, tc.code)
		}
	}
}

func TestSilent(t *testing.T) {
	s := Start(t, Config{Silent: true})
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User = "tcp", s.Addr(), "u"
	cfg.Logger = quiet{}
	c, _ := mysql.NewConnector(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := c.Connect(ctx); err == nil {
		t.Fatal("connect to a silent server succeeded")
	}
}
