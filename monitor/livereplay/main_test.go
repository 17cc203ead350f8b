package livereplay

import (
	"os"
	"testing"

	"github.com/failsim/failsim/internal/liveservers"
)

// TestMain stops the live tests' servers (internal/liveservers) once the tests have run.
func TestMain(m *testing.M) {
	code := m.Run()
	liveservers.Stop(os.Stderr)
	os.Exit(code)
}
