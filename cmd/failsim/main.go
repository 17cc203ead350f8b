// Command failsim replays MySQL cluster incidents through a model of the Tungsten Manager's
// failover decision engine, checks statemaps against generated fault traces, injects wire faults
// with a MySQL-aware proxy, and runs the same engine live against real servers.
//
// Exit codes: 0 success, 1 a checked expectation or property failed, 2 bad input or usage;
// a replay or check stopped by a signal exits 128 plus the signal's number (130 for SIGINT,
// 143 for SIGTERM).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// Main holds what a run of the command reads from and writes to. Tests and main share it.
type Main struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

func main() { os.Exit(run()) }

// run runs failsim on the process's arguments and standard streams, SIGINT and SIGTERM
// cancelling its context with the signal as the cause, and returns the exit code. The tests
// re-execute their binary as failsim through it.
func run() int {
	ctx, stop := signalContext(context.Background())
	defer stop()
	return (&Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}).Exit(ctx, os.Args[1:])
}

// Exit runs the command and reports what went wrong on Stderr; it returns the exit code.
func (m *Main) Exit(ctx context.Context, args []string) int {
	err := m.Run(ctx, args)
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(m.Stderr, "failsim: error: %v\n", ee.err)
		}
		if ee.hint != "" {
			fmt.Fprintf(m.Stderr, "failsim: hint: %s\n", ee.hint)
		}
		return ee.code
	}
	fmt.Fprintf(m.Stderr, "failsim: error: %v\n", err)
	return 2
}

// Run runs one command line: a fresh command tree for each run, so that nothing of one run
// leaks into the next.
func (m *Main) Run(ctx context.Context, args []string) error {
	root := m.newRoot(args)
	root.SetArgs(longFlags(root, args))
	return root.ExecuteContext(ctx)
}

// exitError carries an exit code and an optional hint line.
type exitError struct {
	code int
	err  error
	hint string
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErr marks bad input or usage: exit code 2.
func usageErr(err error, hint string) error {
	if hint == "" {
		hint = inputHint(err)
	}
	return &exitError{code: 2, err: err, hint: hint}
}

// failedErr marks a checked expectation or property that failed: exit code 1. The command has
// already printed what failed, so nothing more is said.
func failedErr() error { return &exitError{code: 1} }
