// Package liveservers holds the servers the live tests of monitor and monitor/livereplay
// probe: one MariaDB and one in-process server per test binary, each started by the first test
// that needs it and stopped by the package's TestMain (Stop). Only tests import it.
package liveservers

import (
	"context"
	"io"
	"sync"
	"testing"

	"github.com/failsim/failsim/internal/embedded"
	"github.com/failsim/failsim/internal/mariadb"
)

// shared is the one MariaDB the test binary talks to, started by the first test that needs it
// and stopped by Stop.
var shared struct {
	once sync.Once
	s    *mariadb.Server
	err  error
}

// sharedEmbedded is the one in-process server, likewise.
var sharedEmbedded struct {
	once sync.Once
	s    *embedded.Server
	err  error
}

// Stop stops the servers the tests started, saying on w what failed to stop. A package's
// TestMain calls it once its tests have run.
func Stop(w io.Writer) {
	if shared.s != nil {
		if err := shared.s.Close(); err != nil {
			io.WriteString(w, "stop MariaDB: "+err.Error()+"\n")
		}
	}
	if sharedEmbedded.s != nil {
		if err := sharedEmbedded.s.Close(); err != nil {
			io.WriteString(w, "stop the in-process server: "+err.Error()+"\n")
		}
	}
}

// MariaDB returns the shared server, skipping (or failing under CI=true) without one.
func MariaDB(t *testing.T) *mariadb.Server {
	t.Helper()
	mariadb.Require(t)
	shared.once.Do(func() { shared.s, shared.err = mariadb.Start(context.Background()) })
	if shared.err != nil {
		t.Fatalf("start MariaDB: %v", shared.err)
	}
	return shared.s
}

// Embedded returns the shared in-process server. It needs nothing installed, so it never
// skips.
func Embedded(t *testing.T) *embedded.Server {
	t.Helper()
	sharedEmbedded.once.Do(func() { sharedEmbedded.s, sharedEmbedded.err = embedded.Start(context.Background()) })
	if sharedEmbedded.err != nil {
		t.Fatalf("start the in-process server: %v", sharedEmbedded.err)
	}
	return sharedEmbedded.s
}

// Server is a server the live tests probe, whichever it is.
type Server struct {
	Addr     string                   // "127.0.0.1:PORT"
	Password string                   // the probe user's
	DSN      func(addr string) string // the probe user's DSN for addr ("" for Addr)
}

// All are the two servers of the live tests, by name: "mariadb" (skipped without the
// binaries, failed under CI=true) and "embedded" (always there). A test runs its body once
// for each as a subtest of that name: one harness, two servers.
var All = []struct {
	Name string
	Need func(t *testing.T) Server
}{
	{"mariadb", func(t *testing.T) Server {
		s := MariaDB(t)
		return Server{Addr: s.Addr, Password: s.Password, DSN: s.DSN}
	}},
	{"embedded", func(t *testing.T) Server {
		s := Embedded(t)
		return Server{Addr: s.Addr, Password: s.Password, DSN: s.DSN}
	}},
}

// Each runs body as a subtest for each server.
func Each(t *testing.T, body func(t *testing.T, s Server)) {
	for _, srv := range All {
		t.Run(srv.Name, func(t *testing.T) { body(t, srv.Need(t)) })
	}
}
