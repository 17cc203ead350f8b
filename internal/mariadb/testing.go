package mariadb

import (
	"context"
	"net"
	"os"
	"testing"
)

// Require skips t when the server binaries are missing, naming the package to install; with
// CI=true in the environment it fails t instead, so CI never silently skips.
func Require(t testing.TB) {
	t.Helper()
	if _, _, err := Binaries(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v; CI=true: these tests must run, not skip", err)
		}
		t.Skipf("skipping: %v", err)
	}
}

// Need starts a server for t (see Require for when it cannot) and stops it when t ends.
func Need(t testing.TB) *Server {
	t.Helper()
	Require(t)
	s, err := Start(context.Background())
	if err != nil {
		t.Fatalf("start MariaDB: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("stop MariaDB: %v", err)
		}
	})
	return s
}

// NeedCluster starts a cluster of n servers for t (see Require for when it cannot) and stops
// it when t ends.
func NeedCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	Require(t)
	c, err := StartCluster(context.Background(), n)
	if err != nil {
		t.Fatalf("start a MariaDB cluster: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("stop the MariaDB cluster: %v", err)
		}
	})
	return c
}

// ServeLinks serves the control API of c's links (the proxy nodes REPLICA<-SOURCE) on a free
// port of 127.0.0.1 with a random token until t ends, for `failsim replay --live --links`; it
// returns the control URL and the token.
func ServeLinks(t testing.TB, c *Cluster) (url, token string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	token = secret()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Links.ServeControl(ctx, ln, token) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the links' control API: %v", err)
		}
	})
	return "http://" + ln.Addr().String(), token
}
