package mariadb

import (
	"context"
	"os"
	"testing"
)

// Need starts a server for t and stops it when t ends. Without the server binaries it skips
// t, naming the package to install; with CI=true in the environment it fails t instead.
func Need(t testing.TB) *Server {
	t.Helper()
	if _, _, err := Binaries(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v; CI=true: these tests must run, not skip", err)
		}
		t.Skipf("skipping: %v", err)
	}
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
