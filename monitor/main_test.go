package monitor

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/failsim/failsim/internal/embedded"
	"github.com/failsim/failsim/internal/mariadb"
)

// shared is the one MariaDB the package's tests talk to, started by the first test that needs
// it and stopped by TestMain.
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

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.s != nil {
		if err := shared.s.Close(); err != nil {
			os.Stderr.WriteString("stop MariaDB: " + err.Error() + "\n")
		}
	}
	if sharedEmbedded.s != nil {
		if err := sharedEmbedded.s.Close(); err != nil {
			os.Stderr.WriteString("stop the in-process server: " + err.Error() + "\n")
		}
	}
	os.Exit(code)
}

// needMariaDB returns the shared server, skipping (or failing under CI=true) without one.
func needMariaDB(t *testing.T) *mariadb.Server {
	t.Helper()
	mariadb.Require(t)
	shared.once.Do(func() { shared.s, shared.err = mariadb.Start(context.Background()) })
	if shared.err != nil {
		t.Fatalf("start MariaDB: %v", shared.err)
	}
	return shared.s
}

// needEmbedded returns the shared in-process server. It needs nothing installed, so it never
// skips.
func needEmbedded(t *testing.T) *embedded.Server {
	t.Helper()
	sharedEmbedded.once.Do(func() { sharedEmbedded.s, sharedEmbedded.err = embedded.Start(context.Background()) })
	if sharedEmbedded.err != nil {
		t.Fatalf("start the in-process server: %v", sharedEmbedded.err)
	}
	return sharedEmbedded.s
}

// liveServer is a server the live tests probe, whichever it is.
type liveServer struct {
	Addr     string                   // "127.0.0.1:PORT"
	Password string                   // the probe user's
	DSN      func(addr string) string // the probe user's DSN for addr ("" for Addr)
}

// servers are the two servers of the live tests, by name: "mariadb" (skipped without the
// binaries, failed under CI=true) and "embedded" (always there). A test runs its body once
// for each as a subtest of that name: one harness, two servers.
var servers = []struct {
	name string
	need func(t *testing.T) liveServer
}{
	{"mariadb", func(t *testing.T) liveServer {
		s := needMariaDB(t)
		return liveServer{Addr: s.Addr, Password: s.Password, DSN: s.DSN}
	}},
	{"embedded", func(t *testing.T) liveServer {
		s := needEmbedded(t)
		return liveServer{Addr: s.Addr, Password: s.Password, DSN: s.DSN}
	}},
}

// eachServer runs body as a subtest for each server.
func eachServer(t *testing.T, body func(t *testing.T, s liveServer)) {
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) { body(t, srv.need(t)) })
	}
}
