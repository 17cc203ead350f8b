// Command failsim replays MySQL cluster incidents through a model of the Tungsten Manager's
// failover decision engine, checks statemaps against generated fault traces, injects wire faults
// with a MySQL-aware proxy, and runs the same engine live against real servers.
//
// Exit codes: 0 success, 1 a checked expectation or property failed, 2 bad input or usage.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/rs/zerolog"

	"github.com/failsim/failsim/sim"
)

// Main holds what a run of the command writes to. Tests and main share it.
type Main struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

const usage = `usage: failsim <command> [flags] [args]

commands:
  replay     replay an incident timeline in virtual time and judge its expectations
  statemap   print the effective statemap (defaults plus an optional override)
  faults     print the fault table and what the statemap does with each fault
  check      property-test a statemap against generated fault traces
  proxy      run the fault-injecting MySQL wire proxy, or control a running one
  watch      run the decision engine live against real MySQL servers

Run 'failsim <command> -h' for a command's flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := (&Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}).Exit(ctx, os.Args[1:])
	stop()
	os.Exit(code)
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
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(m.Stderr, "failsim: error: %v\n", err)
	return 2
}

// Run runs one subcommand.
func (m *Main) Run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(m.Stderr, usage)
		return &exitError{code: 2}
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "replay":
		return m.runReplay(ctx, rest)
	case "statemap":
		return m.runStatemap(ctx, rest)
	case "faults":
		return m.runFaults(ctx, rest)
	case "check":
		return m.runCheck(ctx, rest)
	case "proxy":
		return m.runProxy(ctx, rest)
	case "watch":
		return m.runWatch(ctx, rest)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(m.Stdout, usage)
		return nil
	}
	return usageErr(fmt.Errorf("unknown command %q", cmd), "run 'failsim help' for the list of commands")
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
func usageErr(err error, hint string) error { return &exitError{code: 2, err: err, hint: hint} }

// failedErr marks a checked expectation or property that failed: exit code 1. The command has
// already printed what failed, so nothing more is said.
func failedErr() error { return &exitError{code: 1} }

// newFlags returns a flag set for a subcommand that reports its errors instead of exiting.
func (m *Main) newFlags(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(m.Stderr, "usage: failsim %s %s\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, turning a flag error into a usage error (exit 2).
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return &exitError{code: 0}
		}
		return &exitError{code: 2}
	}
	return nil
}

// logLevelFlag adds --log-level to fs.
func logLevelFlag(fs *flag.FlagSet) *string {
	return fs.String("log-level", "warn", "diagnostics on stderr: debug, info, warn, error or disabled")
}

// newLogger returns a zerolog logger on Stderr at the named level.
func (m *Main) newLogger(level string) (zerolog.Logger, error) {
	lvl, err := zerolog.ParseLevel(strings.ToLower(level))
	if err != nil || level == "" {
		return zerolog.Nop(), usageErr(fmt.Errorf("--log-level %q: want debug, info, warn, error or disabled", level), "")
	}
	w := zerolog.ConsoleWriter{Out: m.Stderr, NoColor: true, PartsExclude: []string{zerolog.TimestampFieldName}}
	return zerolog.New(w).Level(lvl), nil
}

// parseFormat reads --format: text or json.
func parseFormat(s string) (sim.Format, error) {
	switch s {
	case "text":
		return sim.Text, nil
	case "json":
		return sim.JSON, nil
	}
	return 0, usageErr(fmt.Errorf("--format %q: want text or json", s), "")
}
