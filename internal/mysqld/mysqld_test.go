//go:build unix

package mysqld

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	_ "github.com/go-sql-driver/mysql"
)

// The program, built from this checkout into the cache directory (this test binary has no
// failsim-mysqld beside it), serves the probe user on loopback in a process group of its own,
// and stops when Close ends its standard input: its port refuses and it exited cleanly.
func TestStartServesAndStops(t *testing.T) {
	if os.Getenv("GOCACHE") == "" { // keep the go command's build cache where it was
		dir, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("GOCACHE", filepath.Join(dir, "go-build"))
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	s, err := Start(context.Background(), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if want := filepath.Join(os.Getenv("XDG_CACHE_HOME"), "failsim"); !strings.HasPrefix(s.Path, want+string(filepath.Separator)) || filepath.Base(s.Path) != Program {
		t.Errorf("built into %s, want a %s under %s", s.Path, Program, want)
	}
	if host, _, _ := net.SplitHostPort(s.Addr); host != "127.0.0.1" || s.User != "failsim_probe" || len(s.Password) < 16 {
		t.Errorf("hello %+v: want a loopback address, the probe user and a random password", s.Hello)
	}
	db, err := sql.Open("mysql", s.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ts string
	if err := db.QueryRow("SELECT ts FROM failsim.heartbeat WHERE id = 1").Scan(&ts); err != nil {
		t.Errorf("the probe's heartbeat query: %v", err)
	}
	db.Close()
	if pg, err := syscall.Getpgid(s.cmd.Process.Pid); err != nil || pg == syscall.Getpgrp() {
		t.Errorf("the server's process group is %d (%v), failsim's %d: want one of its own", pg, err, syscall.Getpgrp())
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if !s.cmd.ProcessState.Exited() || s.cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("the server ended %v: want a clean exit", s.cmd.ProcessState)
	}
	if c, err := net.DialTimeout("tcp", s.Addr, time.Second); err == nil {
		c.Close()
		t.Errorf("%s still accepts after Close", s.Addr)
	}
}

// A program beside failsim's executable wins, and nothing is built.
func TestLocateBeside(t *testing.T) {
	dir := t.TempDir()
	want := filepath.Join(dir, Program)
	if err := os.WriteFile(want, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", "") // no go command: a build would fail
	got, err := locate(context.Background(), zerolog.Nop(), filepath.Join(dir, "failsim"), "/nonexistent")
	if err != nil || got != want {
		t.Errorf("locate: %q, %v; want %q", got, err, want)
	}
}

// With neither the program beside failsim nor a checkout (a -trimpath build run outside one),
// the error says so and the hint gives the go build command.
func TestLocateNoCheckout(t *testing.T) {
	dir := t.TempDir()
	_, err := locate(context.Background(), zerolog.Nop(), filepath.Join(dir, "failsim"), "")
	var nf *NotFoundError
	if !errors.As(err, &nf) || nf.Error() != "no failsim-mysqld beside "+dir+"/failsim, and failsim's checkout to build it from is unknown" ||
		nf.Hint != "in failsim's checkout, put it beside failsim: go build -o "+dir+"/failsim-mysqld ./cmd/failsim-mysqld; or give --mysql DSN" {
		t.Errorf("locate: %v (%#v)", err, nf)
	}
}

// A program that does not answer as the server does is an error that says what it did,
// and it does not stay running.
func TestStartRefusesAStranger(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ script, want string }{
		{"echo nonsense; sleep 600", `printed "nonsense", not its address`},
		{"echo 'cannot listen' >&2; exit 3", "exited before it served: exit status 3: cannot listen"},
	} {
		path := filepath.Join(dir, "s"+c.want[:4])
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"+c.script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		s, err := start(context.Background(), path)
		if err == nil {
			s.Close()
			t.Errorf("%s: started", c.script)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.script, err, c.want)
		}
	}
}

// The first line of the program's stdout is its Hello, however it is split into writes.
func TestFirstLine(t *testing.T) {
	w := &firstLine{line: make(chan string, 1)}
	for _, b := range []string{`{"addr":`, `"127.0.0.1:1"}`, "\nmore\n", "and more"} {
		w.Write([]byte(b))
	}
	if got := <-w.line; got != `{"addr":"127.0.0.1:1"}` {
		t.Errorf("first line %q", got)
	}
}
