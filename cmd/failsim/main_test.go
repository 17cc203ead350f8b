package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	// The scripts and the signal tests run this test binary as failsim, through main's run:
	// the same signal handling, streams and exit codes as the real binary.
	testscript.Main(m, map[string]func(){
		"failsim": func() { os.Exit(run()) },
	})
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
