package replica_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/internal/mariadb"
	"github.com/failsim/failsim/proxy"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/replica"
)

func open(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = 5*time.Second, 10*time.Second, 5*time.Second
	cfg.Logger = &mysql.NopLogger{}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	t.Cleanup(func() { db.Close() })
	return db
}

func insert(t *testing.T, db *sql.DB, from, to int) {
	t.Helper()
	for id := from; id < to; id++ {
		if _, err := db.Exec("INSERT INTO "+mariadb.Ledger+" (id) VALUES (?)", id); err != nil {
			t.Fatalf("insert %d: %v", id, err)
		}
	}
}

func read(t *testing.T, db *sql.DB) replica.Status {
	t.Helper()
	st, err := replica.Read(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// waitStored waits until a server has stored want.
func waitStored(t *testing.T, db *sql.DB, name string, want int64) replica.Status {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := read(t, db)
		if st.Stored == want {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s stored %d, want %d", name, st.Stored, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitApplied waits until a server has applied want.
func waitApplied(t *testing.T, db *sql.DB, name string, want int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for st := read(t, db); st.Applied != want; st = read(t, db) {
		if time.Now().After(deadline) {
			t.Fatalf("%s applied %d, want %d", name, st.Applied, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func best(sts []replica.Status) int {
	s := replica.Standings(sts, []bool{true, true, true}, func(i int) bool { return i != 0 }, nil)
	return repl.Best(s)
}

// TestOnACluster: on three real servers, the replicator stops and starts, a frozen link holds
// a replica's stored position while the other goes on, the ranking picks the most advanced
// replica (not the first in order), MASTER_DELAY makes the applied position trail the stored
// one, and a promotion waits for the new master to apply what it stored, makes it writable,
// fences the old master and repoints the other replica, which catches up from the new master.
func TestOnACluster(t *testing.T) {
	c := mariadb.NeedCluster(t, 3)
	ctx := context.Background()
	dbs := make([]*sql.DB, 3)
	for i := range dbs {
		dbs[i] = open(t, c.AdminDSN(i))
	}
	w := open(t, c.WriterDSN(0))
	insert(t, w, 0, 20)
	if st := read(t, dbs[0]); st.Replica || st.Binlog != 20 || st.Stored != 20 || st.ReadOnly {
		t.Fatalf("db1: %+v, want the master at 20, writable", st)
	}
	for i := 1; i < 3; i++ {
		waitApplied(t, dbs[i], c.Names[i], 20)
		if st := read(t, dbs[i]); !st.Running() || st.Stored != 20 || !st.ReadOnly {
			t.Fatalf("%s: %+v, want a running read-only replica at 20", c.Names[i], st)
		}
	}

	// replicator stop: db3 stays at 20 and is no candidate; start: it catches up.
	if err := replica.Stop(ctx, dbs[2]); err != nil {
		t.Fatal(err)
	}
	insert(t, w, 20, 30)
	waitStored(t, dbs[1], "db2", 30)
	sts, _ := replica.ReadAll(ctx, dbs)
	if sts[2].Running() || sts[2].Stored != 20 {
		t.Fatalf("db3 stopped: %+v", sts[2])
	}
	if s := replica.Standings(sts, []bool{true, true, true}, func(i int) bool { return i != 0 }, nil); s[2].Excluded != repl.ReplicatorStopped || repl.Best(s) != 1 {
		t.Fatalf("standings with db3 stopped: %+v", s)
	}
	if err := replica.Start(ctx, dbs[2]); err != nil {
		t.Fatal(err)
	}
	waitStored(t, dbs[2], "db3", 30)

	// link freeze on db2: db3 goes ahead and wins the ranking though db2 comes first.
	if err := c.SetLink(1, proxy.Mode{Fault: fault.Fault{Kind: fault.Freeze}}); err != nil {
		t.Fatal(err)
	}
	insert(t, w, 30, 40)
	waitStored(t, dbs[2], "db3", 40)
	sts, _ = replica.ReadAll(ctx, dbs)
	if sts[1].Stored != 30 || !sts[1].Running() {
		t.Fatalf("db2 behind a frozen link: %+v, want stored 30, its replicator running", sts[1])
	}
	if b := best(sts); b != 2 {
		t.Fatalf("best = %d, want db3 (2), the most advanced", b)
	}

	// apply-lag: MASTER_DELAY in whole seconds.
	if err := replica.SetApplyDelay(ctx, dbs[2], 1500*time.Millisecond); err == nil || !strings.Contains(err.Error(), "whole number of seconds") {
		t.Errorf("SetApplyDelay(1.5s) = %v", err)
	}
	if err := replica.SetApplyDelay(ctx, dbs[2], 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if st := read(t, dbs[2]); st.Delay != 2*time.Second || !st.Running() {
		t.Fatalf("db3 after MASTER_DELAY=2: %+v", st)
	}
	insert(t, w, 40, 45)
	if st := waitStored(t, dbs[2], "db3", 45); st.Applied >= 45 {
		t.Errorf("db3 applied %d as soon as it stored 45: MASTER_DELAY=2 should hold it", st.Applied)
	}

	// Promote db3: it applies what it stored first.
	route := func(r, s int) replica.Source {
		return replica.Source{Addr: c.Route(r, s), User: mariadb.ReplUser, Password: c.ReplPassword}
	}
	pr, err := replica.Promote(ctx, replica.Plan{DBs: dbs, New: 2, Old: 0, Repoint: []int{1}, Route: route})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Stored != 45 || pr.Pending != 0 || pr.Fenced != nil || len(pr.Repointed) != 1 {
		t.Fatalf("promotion: %+v", pr)
	}
	if pr.Applied < 45 && pr.Waited < 100*time.Millisecond {
		t.Errorf("promotion: applied %d of 45 at the start, waited only %v", pr.Applied, pr.Waited)
	}
	if st := read(t, dbs[2]); st.Replica || st.ReadOnly || st.Binlog != 45 {
		t.Fatalf("db3 promoted: %+v, want a writable master at 45", st)
	}
	if st := read(t, dbs[0]); !st.ReadOnly {
		t.Error("db1 was not set read_only")
	}
	if _, err := w.Exec("INSERT INTO " + mariadb.Ledger + " (id) VALUES (45)"); err == nil {
		t.Error("the old master still takes writes")
	}
	w3 := open(t, c.WriterDSN(2))
	insert(t, w3, 45, 50)
	// db2 streams from db3 now, through its own link, still frozen: heal it and it catches up.
	if st := read(t, dbs[1]); st.Stored != 30 {
		t.Errorf("db2 repointed behind its frozen link: stored %d, want 30", st.Stored)
	}
	if err := c.SetLink(1, proxy.Mode{}); err != nil {
		t.Fatal(err)
	}
	waitApplied(t, dbs[1], "db2", 50)

	// A delay on a link makes the stream late, not stopped.
	if err := c.SetLink(1, proxy.Mode{Fault: fault.Fault{Kind: fault.Delay, Delay: time.Second}}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	insert(t, w3, 50, 51)
	waitStored(t, dbs[1], "db2", 51)
	if took := time.Since(start); took < time.Second {
		t.Errorf("db2 stored a write %v after it was made through a 1s delay", took)
	}

	// An apply wait shorter than the apply lag: db2 takes writes with transactions still to
	// apply, and Settle applies them after.
	if err := c.SetLink(1, proxy.Mode{}); err != nil {
		t.Fatal(err)
	}
	if err := replica.SetApplyDelay(ctx, dbs[1], 5*time.Second); err != nil {
		t.Fatal(err)
	}
	insert(t, w3, 51, 56)
	waitStored(t, dbs[1], "db2", 56)
	pr, err = replica.Promote(ctx, replica.Plan{DBs: dbs, New: 1, Old: 2, Route: route, ApplyWait: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Pending == 0 || pr.Waited < 200*time.Millisecond {
		t.Fatalf("promotion with a 200ms apply wait under a 5s apply lag: %+v, want transactions pending", pr)
	}
	if st := read(t, dbs[1]); st.ReadOnly || st.Applied >= 56 {
		t.Fatalf("db2 after the apply wait: %+v, want writable with transactions still to apply", st)
	}
	if err := replica.Settle(ctx, dbs[1]); err != nil {
		t.Fatal(err)
	}
	if st := read(t, dbs[1]); st.Replica || st.Binlog != 56 {
		t.Fatalf("db2 settled: %+v, want a master with all 56 applied", st)
	}
}

// TestSemisyncFallsBackAndReturns: on two real servers under semisync with a 1 s timeout, a
// write is acknowledged at once while the replica streams; with its link frozen the next write
// waits the timeout, the master falls back to async and says so; healed, the replica catches
// up and the master returns to semisync.
func TestSemisyncFallsBackAndReturns(t *testing.T) {
	c := mariadb.NeedCluster(t, 2)
	ctx := context.Background()
	dbs := []*sql.DB{open(t, c.AdminDSN(0)), open(t, c.AdminDSN(1))}
	if err := replica.SetSemisync(ctx, dbs, true, time.Second); err != nil {
		t.Fatal(err)
	}
	if err := replica.SetSemisync(ctx, dbs, true, 0); err == nil || !strings.Contains(err.Error(), "want at least 1ms") {
		t.Errorf("SetSemisync with no timeout: %v", err)
	}
	w := open(t, c.WriterDSN(0))
	semi := func() bool {
		on, err := replica.Semisync(ctx, dbs[0])
		if err != nil {
			t.Fatal(err)
		}
		return on
	}
	// The replica's receiver reconnects with semisync on: wait until the master counts it.
	insert(t, w, 0, 1)
	if !semi() {
		t.Fatal("the master did not turn semisync on")
	}
	start := time.Now()
	insert(t, w, 1, 2)
	if took := time.Since(start); took >= time.Second {
		t.Errorf("a semisync write with the replica streaming took %v", took)
	}
	if err := c.SetLink(1, proxy.Mode{Fault: fault.Fault{Kind: fault.Freeze}}); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	insert(t, w, 2, 3)
	if took := time.Since(start); took < time.Second {
		t.Errorf("a semisync write with no replica storing took %v, want the 1s timeout", took)
	}
	if semi() {
		t.Error("the master did not fall back to async")
	}
	if err := c.SetLink(1, proxy.Mode{}); err != nil {
		t.Fatal(err)
	}
	waitStored(t, dbs[1], "db2", 3)
	deadline := time.Now().Add(30 * time.Second)
	for id := 3; !semi(); id++ {
		if time.Now().After(deadline) {
			t.Fatal("the master did not return to semisync once the replica caught up")
		}
		insert(t, w, id, id+1) // the master returns to semisync at an acknowledged commit
		time.Sleep(50 * time.Millisecond)
	}
}
