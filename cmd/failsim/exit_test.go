package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// The exit codes: 0 success, 1 a checked expectation or property failed, 2 bad input or usage.
// testscript's "! exec" only says "not zero", so they are pinned here.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	held := write("held.timeline", "cluster db1:master db2:replica\n00:00:10 db1 refuse\nexpect failover of db1 to db2\n")
	failed := write("failed.timeline", "cluster db1:master db2:replica\n00:00:10 db1 stall\nexpect failover of db1\n")
	bad := write("bad.timeline", "cluster db1:master db2:replica\n00:00:10 db1 melt\n")
	twice := write("twice.properties", "mysql_error.state=suspect\nmysql_error.threshold=1\nmysql_error.action=fail\nmysql_error.threshold=2\n")
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"replay", held}, 0},
		{[]string{"replay", failed}, 1},
		{[]string{"replay", bad}, 2},
		{[]string{"replay"}, 2},
		{[]string{"nonsense"}, 2},
		{[]string{"statemap", "--statemap", bad}, 2},
		{[]string{"statemap", "--statemap", twice}, 2},
		{[]string{"replay", "--statemap", twice, held}, 2},
		{[]string{"check", "--traces", "0"}, 2},
		{[]string{"check", "--family", "benign", "--traces", "50"}, 0},
		{[]string{"check", "--family", "benign", "--traces", "50", "--statemap", "../../conf/examples/aggressive.properties", "--out", dir}, 1},
		{[]string{"proxy", "--node", "db1=127.0.0.1:0,127.0.0.1:1", "--node", "db1=127.0.0.1:0,127.0.0.1:2", "--control", "127.0.0.1:0"}, 2},
		{[]string{"replay", "-h"}, 0},
		{[]string{"import", "tungsten", "../../bundle/testdata/failover"}, 0},
		{[]string{"import", "tungsten", dir}, 2},
		{[]string{"replay", held, "--format", "json"}, 0},
		{[]string{"replay", "-format", "json", failed}, 1},
		{[]string{"replay", "--speed", "5", held}, 2},
		{[]string{"replya", held}, 2},
		{[]string{"help", "replay"}, 0},
		{[]string{"help", "nonsense"}, 2},
		{[]string{"--version"}, 0},
		{[]string{}, 2},
		{nil, 2},
		{[]string{"--bogus"}, 2},
		{[]string{"completion", "bash"}, 0},
		{[]string{"completion", "nushell"}, 2},
		{[]string{"replay", "/dev/zero"}, 2},
		{[]string{"check", "--traces", "10", "--out", held + "/ce"}, 2},
		{[]string{"proxy", "status", "--control-token", "x", "--control-token-file", held}, 2},
	} {
		var out, errOut bytes.Buffer
		m := &Main{Stdin: bytes.NewReader(nil), Stdout: &out, Stderr: &errOut}
		if got := m.Exit(context.Background(), c.args); got != c.want {
			t.Errorf("failsim %v: exit %d, want %d\nstderr: %s", c.args, got, c.want, errOut.String())
		}
	}
}
