package mariadb

import (
	"context"
	"database/sql"
	"os"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

func TestStartProbeUserStop(t *testing.T) {
	s := Need(t)
	cfg, err := mysql.ParseDSN(s.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = &mysql.NopLogger{}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var one int
	if err := db.QueryRowContext(ctx, "SELECT id FROM failsim.heartbeat").Scan(&one); err != nil || one != 1 {
		t.Fatalf("probe user query: %v (got %d)", err, one)
	}
	if _, err := db.ExecContext(ctx, "CREATE DATABASE nope"); err == nil {
		t.Fatal("the probe user could create a database: it should only SELECT")
	}
	dir := s.dir
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("data folder %s left behind: %v", dir, err)
	}
}
