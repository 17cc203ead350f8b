package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"failsim": func() {
			os.Exit((&Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}).Exit(context.Background(), os.Args[1:]))
		},
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
			return nil
		},
	})
}
