// Package mariadb starts a throwaway MariaDB server for tests: a fresh data directory under a
// temporary folder, a free port on 127.0.0.1, a probe user with a random password, and a clean
// stop that removes everything.
//
// It uses the mariadbd (or mysqld) binary of Debian's mariadb-server package and never reads an
// option file (--no-defaults), so nothing on the machine is touched and no system-wide server
// is needed or started. Without the binary, Need skips the test with a message naming the
// package; when the environment has CI=true it fails instead, so CI never silently skips.
package mariadb

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Install is the command that provides the server binaries.
const Install = "apt-get install -y mariadb-server"

// startTimeout bounds install-db plus the server's start-up.
const startTimeout = 90 * time.Second

// stopTimeout bounds a clean shutdown before the server is killed.
const stopTimeout = 20 * time.Second

// Server is a running throwaway MariaDB. Close stops it and removes its data.
type Server struct {
	Addr     string // "127.0.0.1:PORT"
	User     string // the probe user: SELECT on every table, nothing else
	Password string // the probe user's password, random per server

	dir    string
	socket string
	report bool // started with report_host and report_port set to Addr: a cluster member
	cmd    *exec.Cmd
	exited chan struct{}
	err    error // the process's exit error, once exited is closed
}

// Binaries returns the paths of the server and of mariadb-install-db, or an error naming what
// is missing. It looks in PATH and then in /usr/sbin and /usr/bin.
func Binaries() (server, installDB string, err error) {
	server = find("mariadbd", "mysqld")
	installDB = find("mariadb-install-db", "mysql_install_db")
	if server == "" || installDB == "" {
		return "", "", fmt.Errorf("mariadbd not found: install Debian's mariadb-server (%s)", Install)
	}
	return server, installDB, nil
}

func find(names ...string) string {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
		for _, dir := range []string{"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"} {
			p := filepath.Join(dir, n)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
				return p
			}
		}
	}
	return ""
}

// Start initialises a data directory under a new temporary folder, starts the server on a
// free loopback port and creates the probe user. It returns once the server answers, or an
// error with the tail of the server's log.
func Start(ctx context.Context) (*Server, error) {
	bin, installDB, err := Binaries()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	dir, err := os.MkdirTemp("", "failsim-mariadb-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, socket: filepath.Join(dir, "mysql.sock"), User: "failsim_probe", exited: make(chan struct{})}
	if err := s.start(ctx, bin, installDB, []string{"--skip-log-bin"}); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// start initialises the data directory and starts the server with the options extra (the
// binary log's), then creates the probe user with s.Password, or a random one if it is empty.
func (s *Server) start(ctx context.Context, bin, installDB string, extra []string) error {
	data := filepath.Join(s.dir, "data")
	// Its own tmpdir: install-db's bootstrap server makes temporary tables there, and two of
	// them sharing /tmp (a cluster starts its servers at once) can trip over each other's.
	args := []string{"--no-defaults", "--auth-root-authentication-method=normal", "--skip-test-db",
		"--skip-name-resolve", "--datadir=" + data, "--tmpdir=" + s.dir}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	inst := exec.CommandContext(ctx, installDB, args...)
	if out, err := inst.CombinedOutput(); err != nil {
		return fmt.Errorf("mariadb-install-db: %w\n%s", err, tail(out, 2000))
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	sargs := []string{"--no-defaults", "--datadir=" + data, "--socket=" + s.socket,
		"--port=" + strconv.Itoa(port), "--bind-address=127.0.0.1", "--skip-networking=0",
		"--pid-file=" + filepath.Join(s.dir, "mariadb.pid"), "--log-error=" + s.logPath(),
		"--tmpdir=" + s.dir, "--skip-name-resolve", "--innodb-buffer-pool-size=16M",
		"--max-connections=200"}
	sargs = append(sargs, extra...)
	if s.report {
		// A replica registers with its source under this address, as SHOW SLAVE HOSTS
		// lists it: a discovering manager follows it to the replica.
		sargs = append(sargs, "--report-host=127.0.0.1", "--report-port="+strconv.Itoa(port))
	}
	if os.Geteuid() == 0 {
		sargs = append(sargs, "--user=root")
	}
	s.cmd = exec.Command(bin, sargs...)
	s.cmd.SysProcAttr = sysProcAttr()
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", bin, err)
	}
	go func() {
		s.err = s.cmd.Wait()
		close(s.exited)
	}()
	if err := s.waitReady(ctx); err != nil {
		return err
	}
	return s.createUser(ctx)
}

func (s *Server) logPath() string { return filepath.Join(s.dir, "error.log") }

// waitReady polls the root account over the socket until the server answers.
func (s *Server) waitReady(ctx context.Context) error {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "unix", s.socket
	cfg.Timeout = time.Second
	cfg.Logger = &mysql.NopLogger{}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	for {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := db.PingContext(pctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("mariadbd exited during start-up: %v\n%s", s.err, s.logTail())
		case <-ctx.Done():
			return fmt.Errorf("mariadbd not ready after %s: %v\n%s", startTimeout, err, s.logTail())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// createUser creates the probe user and the heartbeat table, out of the binary log (so that a
// cluster's servers start with no transaction of their own).
func (s *Server) createUser(ctx context.Context) error {
	if s.Password == "" {
		s.Password = secret()
	}
	db, err := s.Root()
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("set up the probe user: %w", err)
	}
	defer conn.Close()
	for _, q := range []string{
		"SET SESSION sql_log_bin = 0",
		"CREATE USER '" + s.User + "'@'%' IDENTIFIED BY '" + s.Password + "'",
		"GRANT SELECT ON *.* TO '" + s.User + "'@'%'",
		"CREATE DATABASE failsim",
		"CREATE TABLE failsim.heartbeat (id INT PRIMARY KEY, ts TIMESTAMP(6) NOT NULL) ENGINE=InnoDB",
		"INSERT INTO failsim.heartbeat VALUES (1, NOW(6))",
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("set up the probe user: %w", err)
		}
	}
	return nil
}

// secret returns a random password.
func secret() string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return hex.EncodeToString(b[:])
}

// Root opens a pool on the root account over the server's socket, for test set-up.
func (s *Server) Root() (*sql.DB, error) {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "unix", s.socket
	cfg.Timeout = 5 * time.Second
	cfg.Logger = &mysql.NopLogger{}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(conn), nil
}

// DSN returns the probe user's DSN for addr (the server's own address when addr is "").
func (s *Server) DSN(addr string) string {
	if addr == "" {
		addr = s.Addr
	}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = s.User, s.Password, "tcp", addr
	return cfg.FormatDSN()
}

// Close stops the server (SIGTERM, then SIGKILL after 20 s) and removes its folder.
func (s *Server) Close() error {
	var err error
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(stopTimeout):
			s.cmd.Process.Kill()
			<-s.exited
			err = errors.New("mariadbd did not stop within 20s: killed")
		}
	}
	if rerr := os.RemoveAll(s.dir); rerr != nil && err == nil {
		err = rerr
	}
	return err
}

func (s *Server) logTail() string {
	b, _ := os.ReadFile(s.logPath())
	return tail(b, 2000)
}

func tail(b []byte, n int) string {
	b = bytes.TrimSpace(b)
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.TrimSpace(string(b))
}

// freePort asks the kernel for a free loopback port. Another process may take it before the
// server binds it; start-up then fails with the server's log saying so.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Signal sends sig to the server's process: a test freezes the server with SIGSTOP and thaws
// it with SIGCONT (a stall no timeline planned).
func (s *Server) Signal(sig os.Signal) error { return s.cmd.Process.Signal(sig) }
