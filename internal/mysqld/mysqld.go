// Package mysqld starts failsim-mysqld, the MySQL-protocol server of `failsim replay --live`
// without --mysql, as a child process, and stops it. The server (go-mysql-server, package
// internal/embedded) lives in a program of its own because Go runs every linked package's
// initialisation at start: linked into failsim, it would cost every command, `--version`
// included, about three times the CPU and twice the memory. This package links none of it.
//
// The program is found beside failsim's executable (os.Executable), where `go build -o DIR/
// ./cmd/failsim ./cmd/failsim-mysqld` puts both. Failing that it is built from failsim's
// checkout (the source directory failsim was built from, else the module around the current
// directory) with the go command, into the user's cache directory
// (os.UserCacheDir()/failsim/mysqld-HASH/failsim-mysqld, HASH naming the checkout), under a
// lock, and rebuilt there only when the go command finds it stale. So Go is still all a live
// replay needs.
//
// The child runs in a process group of its own (a terminal's Ctrl-C goes to failsim, which
// stops it), and serves until its standard input ends: failsim closes it in Close, and the
// kernel closes it when failsim exits, however it exits, so the server never outlives failsim.
package mysqld

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/rs/zerolog"
)

// Program is the server program's file name.
const Program = "failsim-mysqld"

// module is failsim's module path, by which a checkout is recognised.
const module = "github.com/failsim/failsim"

// Hello is the one line of JSON the program prints on stdout once it serves.
type Hello struct {
	Addr     string `json:"addr"`     // "127.0.0.1:PORT"
	User     string `json:"user"`     // the probe user: SELECT only
	Password string `json:"password"` // the probe user's, random per server
}

// helloTimeout bounds the wait for the program's Hello; stopTimeout the wait for it to exit
// once its standard input is closed, after which it is killed.
const (
	helloTimeout = 60 * time.Second
	stopTimeout  = 10 * time.Second
)

// NotFoundError says that the program is not beside failsim's executable and could not be
// built; Hint is what to run instead.
type NotFoundError struct {
	Err  error
	Hint string
}

func (e *NotFoundError) Error() string { return e.Err.Error() }
func (e *NotFoundError) Unwrap() error { return e.Err }

// Server is a running failsim-mysqld. Close stops it.
type Server struct {
	Hello
	Path string // the program that runs

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *tail
	exited chan struct{} // closed when the child has exited; then wait is set
	wait   error
	once   sync.Once
	err    error // Close's result
}

// Start finds or builds the program (Locate), starts it and waits for its address. ctx bounds
// the start only; the server runs until Close.
func Start(ctx context.Context, log zerolog.Logger) (*Server, error) {
	path, err := Locate(ctx, log)
	if err != nil {
		return nil, err
	}
	return start(ctx, path)
}

// start runs the program at path and waits for its Hello.
func start(ctx context.Context, path string) (*Server, error) {
	cmd := exec.Command(path)
	cmd.SysProcAttr = ownGroup()
	cmd.WaitDelay = time.Second // a grandchild holding its stdout does not hold Wait
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	hello := &firstLine{line: make(chan string, 1)}
	s := &Server{Path: path, cmd: cmd, stdin: stdin, stderr: &tail{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = hello, s.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	go func() {
		s.wait = cmd.Wait()
		close(s.exited)
	}()
	timer := time.NewTimer(helloTimeout)
	defer timer.Stop()
	var line string
	select {
	case line = <-hello.line:
	case <-s.exited:
		return nil, fmt.Errorf("%s exited before it served: %v%s", path, s.wait, s.stderr.words())
	case <-ctx.Done():
		s.kill()
		return nil, ctx.Err()
	case <-timer.C:
		s.kill()
		return nil, fmt.Errorf("%s printed no address within %s%s", path, helloTimeout, s.stderr.words())
	}
	if err := json.Unmarshal([]byte(line), &s.Hello); err != nil || s.Addr == "" {
		s.kill()
		return nil, fmt.Errorf("%s printed %q, not its address", path, line)
	}
	return s, nil
}

// DSN returns the probe user's go-sql-driver/mysql DSN for addr (the server's own address when
// addr is "").
func (s *Server) DSN(addr string) string {
	if addr == "" {
		addr = s.Addr
	}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = s.User, s.Password, "tcp", addr
	return cfg.FormatDSN()
}

// Close closes the program's standard input, which stops it, and waits for it to exit (killing
// it after 10 s). It is safe to call more than once; later calls return the first one's result.
func (s *Server) Close() error {
	s.once.Do(func() {
		s.stdin.Close()
		select {
		case <-s.exited:
		case <-time.After(stopTimeout):
			killGroup(s.cmd.Process)
			<-s.exited
			s.err = fmt.Errorf("%s did not stop within %s of its input's end: killed%s", s.Path, stopTimeout, s.stderr.words())
			return
		}
		if s.wait != nil {
			s.err = fmt.Errorf("%s: %v%s", s.Path, s.wait, s.stderr.words())
		}
	})
	return s.err
}

func (s *Server) kill() {
	killGroup(s.cmd.Process)
	<-s.exited
}

// Locate returns the program's path: beside failsim's executable if it is there, else built
// from failsim's checkout into the user's cache directory (see the package doc). It logs a
// warning before a first build, which can take minutes with an empty build cache.
func Locate(ctx context.Context, log zerolog.Logger) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", &NotFoundError{Err: fmt.Errorf("find failsim's executable: %w", err), Hint: buildHint("", "")}
	}
	return locate(ctx, log, exe, checkout())
}

// locate finds the program beside exe or builds it from the checkout src ("" if unknown).
func locate(ctx context.Context, log zerolog.Logger, exe, src string) (string, error) {
	beside := filepath.Join(filepath.Dir(exe), Program)
	if fi, err := os.Stat(beside); err == nil && fi.Mode().IsRegular() {
		return beside, nil
	}
	if src == "" {
		return "", &NotFoundError{Err: fmt.Errorf("no %s beside %s, and failsim's checkout to build it from is unknown", Program, exe), Hint: buildHint("", filepath.Dir(exe))}
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", &NotFoundError{Err: fmt.Errorf("no %s beside %s, and no go command to build it from %s", Program, exe, src), Hint: buildHint(src, filepath.Dir(exe))}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", &NotFoundError{Err: fmt.Errorf("no %s beside %s, and no cache directory to build it into: %w", Program, exe, err), Hint: buildHint(src, filepath.Dir(exe))}
	}
	sum := sha256.Sum256([]byte(src))
	dir := filepath.Join(cache, "failsim", "mysqld-"+hex.EncodeToString(sum[:6]))
	target := filepath.Join(dir, Program)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", &NotFoundError{Err: fmt.Errorf("build %s: %w", Program, err), Hint: buildHint(src, filepath.Dir(exe))}
	}
	unlock, err := lock(filepath.Join(dir, "lock"))
	if err != nil {
		return "", &NotFoundError{Err: fmt.Errorf("build %s: %w", Program, err), Hint: buildHint(src, filepath.Dir(exe))}
	}
	defer unlock()
	if _, err := os.Stat(target); err != nil {
		log.Warn().Str("from", src).Str("into", target).Msgf("no %s beside failsim: building it with the go command (once; minutes with an empty build cache)", Program)
	} else {
		log.Info().Str("from", src).Str("into", target).Msgf("no %s beside failsim: the go command rebuilds it if stale", Program)
	}
	build := exec.CommandContext(ctx, goCmd, "build", "-o", target, "./cmd/"+Program)
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", &NotFoundError{Err: fmt.Errorf("no %s beside %s, and building it from %s failed: %v%s", Program, exe, src, err, words(out)), Hint: buildHint(src, filepath.Dir(exe))}
	}
	return target, nil
}

// buildHint is the command that puts the program beside failsim's executable in dir.
func buildHint(src, dir string) string {
	cmd := "go build -o " + filepath.Join(dir, Program) + " ./cmd/" + Program
	if dir == "" {
		cmd = "go build -o DIR/" + Program + " ./cmd/" + Program
	}
	if src == "" {
		return "in failsim's checkout, put it beside failsim: " + cmd + "; or give --mysql DSN"
	}
	return "put it beside failsim: cd " + src + " && " + cmd + "; or give --mysql DSN"
}

// checkout returns the directory of the failsim checkout this program was built from, else
// the failsim module around the current directory, else "".
func checkout() string {
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		// file is CHECKOUT/internal/mysqld/mysqld.go (not absolute under -trimpath).
		if dir := filepath.Dir(filepath.Dir(filepath.Dir(file))); isCheckout(dir) {
			return dir
		}
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if isCheckout(dir) {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// isCheckout says whether dir holds failsim's module with the program's source.
func isCheckout(dir string) bool {
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	first, _, _ := strings.Cut(string(mod), "\n")
	if strings.TrimSpace(first) != "module "+module {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, "cmd", Program, "main.go"))
	return err == nil
}

// firstLine is the child's stdout: it hands on the first line and drops the rest.
type firstLine struct {
	mu   sync.Mutex
	buf  []byte
	sent bool
	line chan string
}

func (w *firstLine) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sent {
		return len(b), nil
	}
	w.buf = append(w.buf, b...)
	if i := strings.IndexByte(string(w.buf), '\n'); i >= 0 {
		w.line <- string(w.buf[:i])
		w.sent, w.buf = true, nil
	} else if len(w.buf) > 4096 {
		w.line <- string(w.buf[:4096])
		w.sent, w.buf = true, nil
	}
	return len(b), nil
}

// tail keeps the last 4 KiB the child wrote on stderr, for the error that explains its end.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if n := len(t.buf) - 4096; n > 0 {
		t.buf = append(t.buf[:0], t.buf[n:]...)
	}
	return len(b), nil
}

// words is what the child said on stderr, as the end of an error message ("" if nothing).
func (t *tail) words() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return words(t.buf)
}

func words(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if s == "" {
		return ""
	}
	if len(s) > 1000 {
		s = "..." + s[len(s)-1000:]
	}
	return ": " + s
}
