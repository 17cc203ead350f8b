// Command failsim-mysqld is the server of `failsim replay --live` without --mysql: a
// MySQL-protocol server (go-mysql-server's in-memory engine, package internal/embedded) on a
// free port of 127.0.0.1, in a process of its own so that failsim's other commands do not pay
// for linking it (its package initialisation runs at every start of a program that links it).
//
// failsim starts it (package internal/mysqld): it prints one line of JSON on stdout, the
// address and the probe user's name and password ({"addr":...,"user":...,"password":...}), and
// serves until its standard input ends (failsim closes it, or exits) or it gets SIGINT or
// SIGTERM. It takes no arguments and writes nothing to disk.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/failsim/failsim/internal/embedded"
	"github.com/failsim/failsim/internal/mysqld"
)

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "%s: error: no arguments wanted (got %q)\n%s: hint: failsim replay --live starts this program; it serves until its standard input ends\n", mysqld.Program, args[0], mysqld.Program)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := embedded.Start(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", mysqld.Program, err)
		return 1
	}
	hello, _ := json.Marshal(mysqld.Hello{Addr: srv.Addr, User: srv.User, Password: srv.Password})
	if _, err := fmt.Fprintf(stdout, "%s\n", hello); err != nil {
		srv.Close()
		fmt.Fprintf(stderr, "%s: error: write the address: %v\n", mysqld.Program, err)
		return 1
	}
	go func() {
		io.Copy(io.Discard, stdin) // until failsim closes it or exits
		stop()
	}()
	<-ctx.Done()
	if err := srv.Close(); err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", mysqld.Program, err)
		return 1
	}
	return 0
}
