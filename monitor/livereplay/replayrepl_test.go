package livereplay

import (
	"context"
	"errors"
	"net"
	"regexp"
	"testing"

	"github.com/failsim/failsim/internal/embedded"
	"github.com/failsim/failsim/internal/liveservers"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// A DSN that is not a tcp one is the user's error, naming the node, with the DSN's shape as
// its hint.
func TestReplServersBadDSN(t *testing.T) {
	_, err := ReplServers([]string{"db1", "db2"}, []string{"probe@tcp(127.0.0.1:1)/", "probe@unix(/tmp/my.sock)/"})
	var ue *UsageError
	if !errors.As(err, &ue) || !regexp.MustCompile(`^--mysql db2: `).MatchString(ue.Error()) || ue.Hint != "a DSN looks like probe:PASSWORD@tcp(127.0.0.1:3306)/" {
		t.Fatalf("got %v (%#v), want a *UsageError on db2 with the DSN hint", err, ue)
	}
	bases, err := ReplServers([]string{"db1"}, []string{"probe:pw@tcp(127.0.0.1:3306)/"})
	if err != nil || len(bases) != 1 || bases[0].Addr != "127.0.0.1:3306" {
		t.Fatalf("got %v, %v, want db1's server at 127.0.0.1:3306", bases, err)
	}
}

// Before the run, ReplayRepl probes every server, logs every user in, and reads the master's
// ledger: each failure is a *UsageError naming the node, with no password in it. The
// in-process server stands in for the servers: it has no failsim.ledger.
func TestReplayReplPreflight(t *testing.T) {
	srv := liveservers.Embedded(t)
	tl, err := timeline.Parse("w.timeline", []byte("cluster db1:master db2:replica\nworkload writes=5/s\n00:00:01 db1 refuse\n00:00:10 cluster end\n"))
	if err != nil {
		t.Fatal(err)
	}
	// A port of 127.0.0.1 nothing listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := ln.Addr().String()
	ln.Close()

	probe := ReplUser{Flag: "--writer", Name: embedded.ProbeUser, Password: srv.Password, Env: "W"}
	for _, c := range []struct {
		name      string
		dsn2      string
		admin     ReplUser
		err, hint string
	}{
		{"server down", srv.DSN(down), probe, `^--mysql db2: a probe of 127\.0\.0\.1:\d+ with no fault ended in \w+: .+$`,
			"the live replay needs every node's server running, the probe user able to log in and query"},
		{"login refused", srv.DSN(""), ReplUser{Flag: "--admin", Name: "nobody", Password: "n0t-the-password", Env: "A"},
			`^--admin nobody on db1 \(127\.0\.0\.1:\d+\): Error \d+ .+$`, "its password comes from A"},
		{"no ledger", srv.DSN(""), probe, `^the ledger on db1, the master: Error 1146 .*ledger$`,
			"create failsim.ledger (id BIGINT PRIMARY KEY) on the master, and grant the probe user SELECT and --writer INSERT on it"},
	} {
		bases, err := ReplServers(tl.Names(), []string{srv.DSN(""), c.dsn2})
		if err != nil {
			t.Fatal(err)
		}
		ready := false
		_, err = ReplayRepl(context.Background(), ReplayReplConfig{Timeline: tl, Map: statemap.Default(), Servers: bases,
			Admin: c.admin, Writer: probe, Ready: func() { ready = true }})
		var ue *UsageError
		if !errors.As(err, &ue) || !regexp.MustCompile(c.err).MatchString(ue.Error()) || ue.Hint != c.hint {
			t.Errorf("%s: got %v (%#v), want a *UsageError matching %s with the hint %q", c.name, err, ue, c.err, c.hint)
			continue
		}
		if ready || regexp.MustCompile(regexp.QuoteMeta(srv.Password)+"|n0t-the-password").MatchString(ue.Error()) {
			t.Errorf("%s: the run started (%v), or a password in %q", c.name, ready, ue.Error())
		}
	}
}
