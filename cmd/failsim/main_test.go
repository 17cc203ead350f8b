package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rs/zerolog"

	"github.com/failsim/failsim/internal/mysqld"
)

func TestMain(m *testing.M) {
	// The scripts and the signal tests run this test binary as failsim, through main's run:
	// the same signal handling, streams and exit codes as the real binary.
	testscript.Main(m, map[string]func(){
		"failsim": func() { os.Exit(run()) },
	})
}

// built builds failsim-mysqld once per test run (into the user's cache directory, as a live
// replay run from a checkout does) and puts it beside the scripts' failsim command, where
// their live replays find it: a script's environment has no home, so no build cache either.
var built struct {
	once sync.Once
	err  error
}

// TestScripts runs the CLI scripts in testdata/script: every user-visible message is in one.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			// Scripts reach the shipped statemaps and incidents through $REPO.
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			env.Setenv("REPO", filepath.Clean(filepath.Join(wd, "..", "..")))
			// testscript.Main put the failsim command (this test binary) first on PATH.
			bindir := strings.Split(os.Getenv("PATH"), string(os.PathListSeparator))[0]
			built.once.Do(func() { built.err = besideFailsim(bindir) })
			if built.err != nil {
				return built.err
			}
			env.Setenv("BINDIR", bindir)
			// Free loopback ports for scripts that start servers: $PORT1 .. $PORT4.
			for i := 1; i <= 4; i++ {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					return err
				}
				env.Setenv(fmt.Sprintf("PORT%d", i), fmt.Sprint(ln.Addr().(*net.TCPAddr).Port))
				ln.Close()
			}
			return nil
		},
	})
}

// besideFailsim builds failsim-mysqld and links (or copies) it into bindir.
func besideFailsim(bindir string) error {
	path, err := mysqld.Locate(context.Background(), zerolog.Nop())
	if err != nil {
		return err
	}
	to := filepath.Join(bindir, mysqld.Program)
	if os.Link(path, to) == nil {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o755)
}
