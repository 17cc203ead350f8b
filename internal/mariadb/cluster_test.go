package mariadb

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/proxy"
)

func open(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = 5*time.Second, 5*time.Second, 5*time.Second
	cfg.Logger = &mysql.NopLogger{}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	t.Cleanup(func() { db.Close() })
	return db
}

// count returns how many ledger rows server i has (read by the probe user).
func count(t *testing.T, c *Cluster, i int) int {
	t.Helper()
	var n int
	if err := open(t, c.DSN(i, "", "")).QueryRow("SELECT COUNT(*) FROM " + Ledger).Scan(&n); err != nil {
		t.Fatalf("%s: count the ledger: %v", c.Names[i], err)
	}
	return n
}

// waitCount waits until server i has want ledger rows.
func waitCount(t *testing.T, c *Cluster, i, want int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		n := count(t, c, i)
		if n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s has %d ledger rows, want %d", c.Names[i], n, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func insert(t *testing.T, db *sql.DB, from, to int) {
	t.Helper()
	for id := from; id < to; id++ {
		if _, err := db.Exec("INSERT INTO "+Ledger+" (id) VALUES (?)", id); err != nil {
			t.Fatalf("insert %d: %v", id, err)
		}
	}
}

// TestClusterReplicatesThroughItsLinks: writes on the master reach both replicas; a frozen link
// stops one replica's stream while the other goes on, and heal catches it up; the users have
// exactly the rights they are meant to.
func TestClusterReplicatesThroughItsLinks(t *testing.T) {
	c := NeedCluster(t, 3)
	for i := range c.Servers {
		if n := count(t, c, i); n != 0 {
			t.Fatalf("%s starts with %d ledger rows", c.Names[i], n)
		}
	}
	w := open(t, c.WriterDSN(0))
	insert(t, w, 0, 50)
	waitCount(t, c, 1, 50)
	waitCount(t, c, 2, 50)

	if err := c.SetLink(1, proxy.Mode{Fault: fault.Fault{Kind: fault.Freeze}}); err != nil {
		t.Fatal(err)
	}
	insert(t, w, 50, 80)
	waitCount(t, c, 2, 80)
	time.Sleep(300 * time.Millisecond)
	if n := count(t, c, 1); n != 50 {
		t.Errorf("db2's link is frozen: it has %d rows, want 50", n)
	}
	if err := c.SetLink(1, proxy.Mode{}); err != nil {
		t.Fatal(err)
	}
	waitCount(t, c, 1, 80)

	// The positions count the writes: the master's binary log has 80 transactions.
	var pos string
	if err := open(t, c.DSN(0, "", "")).QueryRow("SELECT @@gtid_binlog_pos").Scan(&pos); err != nil || pos != "0-1-80" {
		t.Errorf("db1's gtid_binlog_pos = %q, %v; want 0-1-80", pos, err)
	}

	ctx := context.Background()
	// The writer cannot write on a replica (read_only), nor anything but the ledger.
	if _, err := open(t, c.WriterDSN(1)).Exec("INSERT INTO " + Ledger + " (id) VALUES (1000)"); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("the writer on a read-only replica: %v, want a read-only error", err)
	}
	if _, err := w.Exec("INSERT INTO failsim.heartbeat VALUES (2, NOW(6))"); err == nil {
		t.Error("the writer could insert into another table")
	}
	if _, err := open(t, c.DSN(0, "", "")).Exec("INSERT INTO " + Ledger + " (id) VALUES (1000)"); err == nil {
		t.Error("the probe user could insert")
	}
	// The admin can do what a promotion does, and read the replica's status.
	admin := open(t, c.AdminDSN(2))
	for _, q := range []string{"STOP SLAVE", "CHANGE MASTER TO MASTER_DELAY=1", "START SLAVE", "SET GLOBAL read_only = 0", "SET GLOBAL read_only = 1"} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			t.Errorf("admin: %s: %v", q, err)
		}
	}
	if st, err := SlaveStatus(ctx, admin); err != nil || st["Gtid_IO_Pos"] != "0-1-80" {
		t.Errorf("admin: SHOW SLAVE STATUS: Gtid_IO_Pos %q, %v; want 0-1-80", st["Gtid_IO_Pos"], err)
	}
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE nope"); err == nil {
		t.Error("the admin could create a database")
	}
}
