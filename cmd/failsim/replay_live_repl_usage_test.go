package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/failsim/failsim/internal/mariadb"
	"github.com/failsim/failsim/internal/mysqld"
	"github.com/failsim/failsim/monitor/livereplay"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/timeline"
)

// A --mysql value is NODE=DSN only when what comes before its first "=" cannot be the start
// of a DSN: a password or a parameter with "=" stays a DSN.
func TestNodeDSN(t *testing.T) {
	for _, c := range []struct {
		v, node, dsn string
		ok           bool
	}{
		{"db1=probe@tcp(127.0.0.1:3306)/", "db1", "probe@tcp(127.0.0.1:3306)/", true},
		{"db-1.east=probe:pw=x@tcp(h:1)/", "db-1.east", "probe:pw=x@tcp(h:1)/", true},
		{"probe@tcp(127.0.0.1:3306)/?timeout=2s", "", "probe@tcp(127.0.0.1:3306)/?timeout=2s", false},
		{"probe:pa=ss@tcp(127.0.0.1:3306)/", "", "probe:pa=ss@tcp(127.0.0.1:3306)/", false},
		{"=probe@tcp(h:1)/", "", "=probe@tcp(h:1)/", false},
		{"probe@tcp(h:1)/", "", "probe@tcp(h:1)/", false},
	} {
		node, dsn, ok := nodeDSN(c.v)
		if node != c.node || dsn != c.dsn || ok != c.ok {
			t.Errorf("nodeDSN(%q) = %q, %q, %v; want %q, %q, %v", c.v, node, dsn, ok, c.node, c.dsn, c.ok)
		}
	}
}

// FuzzLiveServers: no --mysql values panic the reading of them, a value read as NODE=DSN
// splits at its first "=", and a per-node answer has one DSN for every node.
func FuzzLiveServers(f *testing.F) {
	tl, err := timeline.Parse("w.timeline", []byte("cluster db1:master db2:replica\nworkload writes=5/s\n00:00:10 cluster end\n"))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"db1=probe@tcp(h:1)/\x00db2=probe@tcp(h:2)/", "probe@tcp(h:1)/", "db1=a\x00db1=b", "x=y\x00probe@tcp(h:1)/", "db9=\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		values := strings.Split(s, "\x00")
		for _, v := range values {
			if node, dsn, ok := nodeDSN(v); ok && node+"="+dsn != v {
				t.Fatalf("nodeDSN(%q) = %q, %q", v, node, dsn)
			}
		}
		got, err := liveServers(values, tl)
		if err == nil && len(got.perNode) != len(tl.Nodes) {
			t.Fatalf("liveServers(%q) = %+v with no error: want a DSN for each of %d nodes", values, got, len(tl.Nodes))
		}
	})
}

// The outcome of a live replay with a workload, in text and in JSON: the same lines, the
// client's figures of both sides, and the verdict.
func TestLiveReplOutcome(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sim := repl.Summary{Offered: 1501, Acknowledged: 1401, Failed: 100, Unavailable: 2 * time.Second, Lost: 150,
		Outage: repl.Outage{From: 7 * time.Second, To: 9 * time.Second}}
	live := repl.Summary{Offered: 1501, Acknowledged: 1397, Failed: 104, Unavailable: 2080 * time.Millisecond,
		Outage: repl.Outage{From: 7020 * time.Millisecond, To: 9100 * time.Millisecond}}
	rate := repl.PerSecond(50)
	client, ok := livereplay.CompareReplication(start, sim, live, 150, rate, 2*time.Second, 1)
	if !ok {
		t.Fatalf("CompareReplication: %q", client)
	}
	o := liveReplOutcome{file: "w.timeline", servers: 3, decisions: []string{"agree   00:00:09 failover db1 -> db3 (live +0.0s)"},
		client: client, notes: []string{"live promotion at 00:00:09: db1 -> db3, writable 40ms after the failover was told; db2 repointed"},
		agree: true, simulated: sim, live: live, liveLost: 150,
		states: []string{"agree   db1: 00:00:00 online (live +0.0s), 00:00:07 stopped (live +0.0s)"},
		xlines: []string{"expectations (live): 1 held, 0 failed", "  held    w.timeline:6: expect failover of db1 to db3"}}
	var text bytes.Buffer
	if err := o.write(&text, report.Text); err != nil {
		t.Fatal(err)
	}
	want := `
decisions, simulated against live (within one tick):
  agree   00:00:09 failover db1 -> db3 (live +0.0s)

state changes, simulated against live (within one tick):
  agree   db1: 00:00:00 online (live +0.0s), 00:00:07 stopped (live +0.0s)

the client's view, simulated against live (lost writes within one deadline's worth, the longest outage within one tick, failed writes and unavailable time within one deadline and a tick a failover):
  simulated  offered 1501, acknowledged 1401, failed 100, lost 150; longest outage 2s (00:00:07 to 00:00:09); unavailable 2s
  live       offered 1501, acknowledged 1397, failed 104, lost 150; longest outage 2.08s (00:00:07.020 to 00:00:09.100); unavailable 2.08s
  agree   lost writes: live 150, simulated 150 (within 100, one deadline's worth)
  agree   longest outage: live 2.08s, simulated 2s (within one tick)
  agree   failed writes: live 104, simulated 100 (within 600, one deadline and 1 tick's worth)
  agree   unavailable: live 2.08s, simulated 2s (within 12s, one deadline and 1 tick)

live promotion at 00:00:09: db1 -> db3, writable 40ms after the failover was told; db2 repointed
verdict: agree

expectations (live): 1 held, 0 failed
  held    w.timeline:6: expect failover of db1 to db3
`
	if text.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", text.String(), want)
	}
	var js bytes.Buffer
	o.agree = false
	if err := o.write(&js, report.JSON); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Summary struct {
			File            string
			Agree           bool
			Client          []string
			Simulated, Live map[string]float64
		} `json:"live_summary"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, js.String())
	}
	s := got.Summary
	if s.File != "w.timeline" || s.Agree || len(s.Client) != 6 || s.Simulated["lost"] != 150 || s.Live["failed"] != 104 ||
		s.Live["longest_outage_s"] != 2.08 || s.Simulated["unavailable_s"] != 2 {
		t.Errorf("json: %s", js.String())
	}
}

// Before a live run with a workload every user logs in to every server, and the master's
// ledger is read: a user that cannot log in, or a server with no ledger, is exit 2 naming the
// node, with no password in the message. The built-in server stands in for the servers: its
// probe user logs in; it has no failsim.ledger.
func TestReplayLiveWorkloadPreflight(t *testing.T) {
	srv, err := mysqld.Start(context.Background(), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "w.timeline")
	if err := os.WriteFile(path, []byte("cluster db1:master db2:replica\nworkload writes=5/s\n00:00:01 db1 refuse\n00:00:10 cluster end\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(passwordEnv, srv.Password)
	t.Setenv(writerPasswordEnv, srv.Password)
	dsn := srv.User + "@tcp(" + srv.Addr + ")/"
	for _, c := range []struct {
		admin, adminPassword, err, hint string
	}{
		{"nobody", "n0t-the-password", `^failsim: error: --admin nobody on db1 \(127\.0\.0\.1:\d+\): Error \d+ .+$`, "its password comes from FAILSIM_ADMIN_PASSWORD"},
		{srv.User, srv.Password, `^failsim: error: the ledger on db1, the master: Error 1146 .*ledger$`,
			"create failsim.ledger (id BIGINT PRIMARY KEY) on the master, and grant the probe user SELECT and --writer INSERT on it"},
	} {
		t.Setenv(adminPasswordEnv, c.adminPassword)
		var stdout, stderr bytes.Buffer
		m := &Main{Stdin: bytes.NewReader(nil), Stdout: &stdout, Stderr: &stderr}
		code := m.Exit(context.Background(), []string{"replay", "--live", "--admin", c.admin, "--writer", srv.User,
			"--mysql", "db1=" + dsn, "--mysql", "db2=" + dsn, path})
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if code != 2 || len(lines) != 2 || !regexp.MustCompile(c.err).MatchString(lines[0]) || lines[1] != "failsim: hint: "+c.hint {
			t.Errorf("--admin %s: exit %d, stderr:\n%s\nwant exit 2, %s and the hint %q", c.admin, code, stderr.String(), c.err, c.hint)
		}
		if strings.Contains(stderr.String(), srv.Password) || strings.Contains(stderr.String(), c.adminPassword) || stdout.Len() > 0 {
			t.Errorf("a password in the message, or output on stdout:\n%s%s", stderr.String(), stdout.String())
		}
	}
}

// The preflight checks the grants, not only the logins, on a real MariaDB: a --writer that can
// log in but not INSERT into the ledger is exit 2 before the run, naming the user, the node and
// the privilege (it used to play the whole run and say "DIFFER lost writes").
func TestReplayLiveWorkloadGrants(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a MariaDB of its own (about 8 s); monitor's TestReplayReplChecksGrants covers the check")
	}
	s := mariadb.Need(t)
	root, err := s.Root()
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, q := range []string{
		"CREATE TABLE IF NOT EXISTS " + mariadb.Ledger + " (id BIGINT PRIMARY KEY)",
		"CREATE USER 'nowriter'@'%' IDENTIFIED BY 'pw-w'", "GRANT SELECT ON " + mariadb.Ledger + " TO 'nowriter'@'%'",
		"CREATE USER 'admin'@'%' IDENTIFIED BY 'pw-a'", "GRANT " + mariadb.AdminGrants + " ON *.* TO 'admin'@'%'",
	} {
		if _, err := root.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	path := filepath.Join(t.TempDir(), "w.timeline")
	if err := os.WriteFile(path, []byte("cluster db1:master db2:replica\nworkload writes=5/s\n00:00:01 db1 refuse\n00:00:10 cluster end\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(passwordEnv, s.Password)
	t.Setenv(adminPasswordEnv, "pw-a")
	t.Setenv(writerPasswordEnv, "pw-w")
	var stdout, stderr bytes.Buffer
	m := &Main{Stdin: bytes.NewReader(nil), Stdout: &stdout, Stderr: &stderr}
	code := m.Exit(context.Background(), []string{"replay", "--live", "--admin", "admin", "--writer", "nowriter",
		"--mysql", "db1=" + s.DSN(""), "--mysql", "db2=" + s.DSN(""), path})
	want := "failsim: error: --writer nowriter on db1 (" + s.Addr + ") lacks INSERT ON failsim.ledger\n" +
		"failsim: hint: docs/live.md lists the grants each user needs (\"The privileges each user needs\")\n"
	if code != 2 || stderr.String() != want || stdout.Len() > 0 {
		t.Errorf("exit %d, stderr:\n%s\nstdout:\n%s\nwant exit 2 and\n%s", code, stderr.String(), stdout.String(), want)
	}
}
