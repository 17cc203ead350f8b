//go:build unix

package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/failsim/failsim/internal/mariadb"
	"github.com/failsim/failsim/proxy"
	"github.com/failsim/failsim/replica"
)

// liveReplTimeline is the live workload replay's timeline: 50 writes/s on three servers; db2's
// stream frozen at 2 s, db3's at 4 s, the master db1 refused at 7 s. The simulator fails db1
// over at 9 s to db3, the more advanced replica, and loses what db1 acknowledged after db3's
// freeze (150 writes); both links heal at 22 s, db2 now streaming from db3.
const liveReplTimeline = `cluster db1:master db2:replica db3:replica
workload writes=50/s deadline=2s
00:00:02 db2 link freeze
00:00:04 db3 link freeze
00:00:07 db1 refuse
00:00:22 db2 link heal
00:00:22 db3 link heal
00:00:30 cluster end
`

// TestReplayLiveWorkload runs the real `failsim replay --live` on a three-server MariaDB
// cluster with a workload: the probes, writes and promotions through its proxies, the links
// frozen through the cluster's links' proxy (--links), a real promotion. It must agree with
// the simulator: the same failover within a tick, the lost writes within one deadline's
// worth, the longest outage within one tick. db2, repointed to db3 with no --repl-user (so
// keeping its own replication user: CHANGE MASTER leaves what it is not given), must stream
// from db3 once its link heals.
func TestReplayLiveWorkload(t *testing.T) {
	if testing.Short() {
		t.Skip("30 s of live replication at speed 1: not with -short")
	}
	c := mariadb.NeedCluster(t, 3)
	url, token := mariadb.ServeLinks(t, c)
	path := filepath.Join(t.TempDir(), "workload.timeline")
	if err := os.WriteFile(path, []byte(liveReplTimeline), 0o644); err != nil {
		t.Fatal(err)
	}
	// Earlier writes in the ledger: the run's ids must start above them.
	if _, err := rootPool(t, c, 0).Exec("INSERT INTO " + mariadb.Ledger + " (id) VALUES (5), (7)"); err != nil {
		t.Fatal(err)
	}
	t.Setenv(passwordEnv, c.Servers[0].Password)
	t.Setenv(adminPasswordEnv, c.AdminPassword)
	t.Setenv(writerPasswordEnv, c.WriterPassword)
	t.Setenv(tokenEnv, token)
	args := []string{"replay", "--live", "--admin", mariadb.AdminUser, "--writer", mariadb.WriterUser, "--links", url}
	for i, s := range c.Servers {
		args = append(args, "--mysql", fmt.Sprintf("%s=%s@tcp(%s)/", c.Names[i], s.User, s.Addr))
	}
	args = append(args, path)
	var stdout, stderr bytes.Buffer
	m := &Main{Stdin: bytes.NewReader(nil), Stdout: &stdout, Stderr: &stderr}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code := m.Exit(ctx, args)
	out := stdout.String()
	t.Logf("stdout:\n%s\nstderr:\n%s", out, stderr.String())
	if code != 0 {
		t.Fatalf("exit %d, want 0 (agree)", code)
	}
	for _, secret := range []string{c.Servers[0].Password, c.AdminPassword, c.WriterPassword, token} {
		if strings.Contains(out+stderr.String(), secret) {
			t.Error("a password or the token is in the output")
		}
	}
	for _, want := range []string{
		`(?m)^live replay of .*workload.timeline at 1x on 3 servers, 50 writes every 1s with a 2s deadline: 30s$`,
		`(?m)^00:00:02 db2 link freeze$`,
		`(?m)^  agree   00:00:09 failover db1 -> db3 \(live [+-]\d+\.\ds\)$`,
		`(?m)^  simulated  offered 1501, acknowledged 1401, failed 100, lost 150; longest outage 2s \(00:00:07 to 00:00:09\); unavailable 2s$`,
		`(?m)^  live       offered 150[01], acknowledged \d+, failed \d+, lost \d+; longest outage .*$`,
		`(?m)^  agree   longest outage: live .*, simulated 2s \(within one tick\)$`,
		`(?m)^live promotion at 00:00:\d\d: db1 -> db3, writable [\d.]+m?s after the failover was told; (db1 not set read_only \(.*\); )?db2 repointed$`,
		`(?m)^verdict: agree$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("stdout does not match %s", want)
		}
	}
	lost := regexp.MustCompile(`(?m)^  agree   lost writes: live (\d+), simulated 150 \(within 100, one deadline's worth\)$`).FindStringSubmatch(out)
	if lost == nil {
		t.Fatal("no agreeing lost-writes line")
	}
	if n, _ := strconv.Atoi(lost[1]); n < 50 {
		t.Errorf("live lost %d writes: db1 acknowledged about 150 after db3's stream froze", n)
	}

	// The ledger's run started above the ids already there: the new master holds none of
	// 1..7 but 5 and 7, and the rest start at 8.
	db3 := rootPool(t, c, 2)
	var low int
	if err := db3.QueryRow("SELECT COUNT(*) FROM " + mariadb.Ledger + " WHERE id < 8 AND id NOT IN (5, 7)").Scan(&low); err != nil {
		t.Fatal(err)
	}
	if low != 0 {
		t.Errorf("%d ledger ids under 8 besides 5 and 7: the run's ids collided with the earlier ones", low)
	}
	// db2 streams from db3 through its link (db2<-db3) with the user it had, and catches up.
	db2 := rootPool(t, c, 1)
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := mariadb.SlaveStatus(context.Background(), db2)
		if err != nil {
			t.Fatal(err)
		}
		m3, err := replica.Read(context.Background(), db3)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := replica.Read(context.Background(), db2)
		if err != nil {
			t.Fatal(err)
		}
		addr := st["Master_Host"] + ":" + st["Master_Port"]
		if st["Slave_IO_Running"] == "Yes" && addr == c.Route(1, 2) && r2.Applied >= m3.Binlog && m3.Binlog > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("db2 after the run: io %q, sql %q, source %s (want %s, db2<-db3), error %q; applied %d of db3's %d",
				st["Slave_IO_Running"], st["Slave_SQL_Running"], addr, c.Route(1, 2), st["Last_IO_Error"], r2.Applied, m3.Binlog)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Then db3 and db2, db2's stream flowing, in JSON: db3 refused, db2 promoted, nothing lost.
	path = filepath.Join(t.TempDir(), "flowing.timeline")
	if err := os.WriteFile(path, []byte(liveFlowingTimeline), 0o644); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(t.TempDir(), "live.html")
	args = []string{"replay", "--live", "--format", "json", "--report", page, "--admin", mariadb.AdminUser, "--writer", mariadb.WriterUser, "--links", url,
		"--mysql", fmt.Sprintf("db3=%s@tcp(%s)/", c.Servers[2].User, c.Servers[2].Addr),
		"--mysql", fmt.Sprintf("db2=%s@tcp(%s)/", c.Servers[1].User, c.Servers[1].Addr), path}
	stdout.Reset()
	stderr.Reset()
	code = m.Exit(ctx, args)
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	if code != 0 {
		t.Fatalf("exit %d, want 0 (agree)", code)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var got struct {
		Summary struct {
			Agree           bool
			Decisions       []string
			Simulated, Live map[string]float64
		} `json:"live_summary"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("the last line is no live_summary: %v", err)
	}
	s := got.Summary
	if !strings.Contains(stdout.String(), `"text":"db2 replicator start"`) {
		t.Error("no live event db2 replicator start")
	}
	if !s.Agree || len(s.Decisions) != 1 || !strings.Contains(s.Decisions[0], "failover db3 -> db2") {
		t.Errorf("live_summary: agree %v, decisions %q; want agree and one failover db3 -> db2", s.Agree, s.Decisions)
	}
	if s.Simulated["lost"] != 0 || s.Live["lost"] != 0 || s.Simulated["offered"] != 751 || s.Live["offered"] < 750 {
		t.Errorf("live_summary: simulated %v, live %v; want nothing lost of about 751 writes", s.Simulated, s.Live)
	}
	// The report draws the live run, its writes row the live client's view.
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"LONGEST OUTAGE: writes failed", "the client&#39;s view, simulated against live", "db3 FAILOVER"} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("the report has no %q", want)
		}
	}

	// Last, db2 the master with no fault in the timeline, its server frozen twice for 4 s by
	// something the timeline did not plan: failed writes and unavailable time differ.
	path = filepath.Join(t.TempDir(), "frozen.timeline")
	if err := os.WriteFile(path, []byte(liveFrozenTimeline), 0o644); err != nil {
		t.Fatal(err)
	}
	args = []string{"replay", "--live", "--admin", mariadb.AdminUser, "--writer", mariadb.WriterUser,
		"--mysql", fmt.Sprintf("db2=%s@tcp(%s)/", c.Servers[1].User, c.Servers[1].Addr),
		"--mysql", fmt.Sprintf("db3=%s@tcp(%s)/", c.Servers[2].User, c.Servers[2].Addr), path}
	stdout.Reset()
	stderr.Reset()
	frozenServer := c.Servers[1]
	frozen := make(chan error, 1)
	go func() {
		var err error
		for _, at := range []time.Duration{3 * time.Second, 4 * time.Second} { // after the preflight's second or so
			time.Sleep(at)
			if err = frozenServer.Signal(syscall.SIGSTOP); err != nil {
				break
			}
			time.Sleep(4 * time.Second)
			if err = frozenServer.Signal(syscall.SIGCONT); err != nil {
				break
			}
		}
		frozen <- err
	}()
	code = m.Exit(ctx, args)
	if err := <-frozen; err != nil {
		t.Fatal(err)
	}
	out = stdout.String()
	t.Logf("stdout:\n%s\nstderr:\n%s", out, stderr.String())
	if code != 1 {
		t.Errorf("exit %d, want 1 (differ)", code)
	}
	for _, re := range []string{`(?m)^  agree   lost writes: live 0, simulated 0 `, `(?m)^  DIFFER  failed writes: live \d+, simulated 0 \(within 100, one deadline's worth\)$`,
		`(?m)^  DIFFER  unavailable: live [\d.]+s, simulated 0s \(within 2s, one deadline\)$`, `(?m)^verdict: differ$`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("stdout has no line matching %s", re)
		}
	}

	// An interrupted run heals the links it froze, and says so: db3's links frozen at 1 s, the
	// run stopped at 4 s.
	path = filepath.Join(t.TempDir(), "interrupted.timeline")
	if err := os.WriteFile(path, []byte("cluster db2:master db3:replica\nworkload writes=50/s deadline=2s\n00:00:01 db3 link freeze\n00:00:30 cluster end\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args = []string{"replay", "--live", "--admin", mariadb.AdminUser, "--writer", mariadb.WriterUser, "--links", url,
		"--mysql", fmt.Sprintf("db2=%s@tcp(%s)/", c.Servers[1].User, c.Servers[1].Addr),
		"--mysql", fmt.Sprintf("db3=%s@tcp(%s)/", c.Servers[2].User, c.Servers[2].Addr), path}
	stdout.Reset()
	stderr.Reset()
	ictx, stop := context.WithCancel(ctx)
	timer := time.AfterFunc(4*time.Second, stop)
	defer timer.Stop()
	code = m.Exit(ictx, args)
	out = stdout.String()
	t.Logf("stdout:\n%s\nstderr:\n%s", out, stderr.String())
	if code != 1 || !strings.Contains(out, "\ninterrupted: db3's replication links healed (they were in freeze)\n") {
		t.Errorf("exit %d, want 1 and the links healed", code)
	}
	for _, name := range []string{"db3<-db1", "db3<-db2"} {
		if n, ok := c.Links.Node(name); !ok || n.Mode() != (proxy.Mode{}) {
			t.Errorf("%s after the interrupted run: %v, want pass", name, n.Mode())
		}
	}
}

// liveFrozenTimeline follows liveFlowingTimeline on the same servers: db2 the master, no
// fault at all, 50 writes/s for 12 s. The test freezes db2's server twice for 4 s behind the
// timeline's back (SIGSTOP, SIGCONT): nothing is lost and no probe runs out of its 5 s, but
// about 200 writes fail their 2 s deadline, and the live replay must differ.
const liveFrozenTimeline = `cluster db2:master db3:replica
workload writes=50/s deadline=2s
00:00:12 cluster end
`

// liveFlowingTimeline follows liveReplTimeline on the same servers: db3 the master, db2 its
// replica with its stream flowing, its replicator stopped for a second (STOP/START SLAVE, as
// the admin); db3 refused at 5 s. db2 is promoted and nothing is lost.
const liveFlowingTimeline = `cluster db3:master db2:replica
workload writes=50/s deadline=2s
00:00:01 db2 replicator stop
00:00:02 db2 replicator start
00:00:05 db3 refuse
00:00:15 cluster end
`

// rootPool opens a root pool on server i of c, closed when t ends.
func rootPool(t *testing.T, c *mariadb.Cluster, i int) *sql.DB {
	db, err := c.Servers[i].Root()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
