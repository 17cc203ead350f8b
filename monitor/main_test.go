package monitor

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/failsim/failsim/internal/mariadb"
)

// shared is the one MariaDB the package's tests talk to, started by the first test that needs
// it and stopped by TestMain.
var shared struct {
	once sync.Once
	s    *mariadb.Server
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.s != nil {
		if err := shared.s.Close(); err != nil {
			os.Stderr.WriteString("stop MariaDB: " + err.Error() + "\n")
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
