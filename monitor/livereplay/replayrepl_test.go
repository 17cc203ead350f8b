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
	var ie *InputError
	if !errors.As(err, &ie) || !regexp.MustCompile(`^db2's server: `).MatchString(ie.Error()) || ie.Field != FieldServer || ie.Check != CheckDSN || ie.Node != "db2" {
		t.Fatalf("got %v (%#v), want an *InputError on db2's server's DSN", err, ie)
	}
	bases, err := ReplServers([]string{"db1"}, []string{"probe:pw@tcp(127.0.0.1:3306)/"})
	if err != nil || len(bases) != 1 || bases[0].Addr != "127.0.0.1:3306" {
		t.Fatalf("got %v, %v, want db1's server at 127.0.0.1:3306", bases, err)
	}
}

// Before the run, ReplayRepl probes every server, logs every user in, and reads the master's
// ledger: each failure is an *InputError naming the node, with no password in it. The
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

	probe := ReplUser{Name: embedded.ProbeUser, Password: srv.Password}
	for _, c := range []struct {
		name  string
		dsn2  string
		admin ReplUser
		err   string
		want  InputError // its Field, Check, Node and User
	}{
		{"server down", srv.DSN(down), probe, `^db2's server: a probe of 127\.0\.0\.1:\d+ with no fault ended in \w+: .+$`,
			InputError{Field: FieldServer, Check: CheckProbe, Node: "db2"}},
		{"login refused", srv.DSN(""), ReplUser{Name: "nobody", Password: "n0t-the-password"},
			`^admin nobody on db1 \(127\.0\.0\.1:\d+\): Error \d+ .+$`, InputError{Field: FieldAdmin, Check: CheckLogin, Node: "db1", User: "nobody"}},
		{"no ledger", srv.DSN(""), probe, `^the ledger on db1, the master: Error 1146 .*ledger$`,
			InputError{Field: FieldLedger, Check: CheckRead, Node: "db1"}},
	} {
		bases, err := ReplServers(tl.Names(), []string{srv.DSN(""), c.dsn2})
		if err != nil {
			t.Fatal(err)
		}
		ready := false
		_, err = ReplayRepl(context.Background(), ReplayReplConfig{Timeline: tl, Map: statemap.Default(), Servers: bases,
			Admin: c.admin, Writer: probe, Ready: func() { ready = true }})
		var ie *InputError
		if !errors.As(err, &ie) || !regexp.MustCompile(c.err).MatchString(ie.Error()) ||
			ie.Field != c.want.Field || ie.Check != c.want.Check || ie.Node != c.want.Node || ie.User != c.want.User {
			t.Errorf("%s: got %v (%#v), want an *InputError matching %s of %s, check %d, on %s", c.name, err, ie, c.err, c.want.Field, c.want.Check, c.want.Node)
			continue
		}
		if ready || regexp.MustCompile(regexp.QuoteMeta(srv.Password)+"|n0t-the-password").MatchString(ie.Error()) {
			t.Errorf("%s: the run started (%v), or a password in %q", c.name, ready, ie.Error())
		}
	}
}
