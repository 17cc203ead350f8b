package proxy

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/failsim/failsim/internal/fakemysql"
)

// floodChildEnv, set to an upstream address, makes the test binary run floodChild instead
// of the tests.
const floodChildEnv = "FAILSIM_PROXY_TEST_FLOOD_CHILD"

// floodChildFDs is the child's descriptor limit, soft and hard: the common default that Go
// raises for its own process at start.
const floodChildFDs = 1024

// floodChild lowers its descriptor limit to 1,024, runs a proxy with one node in front of
// the upstream and its control API (token "s3cret"), prints "NODE-ADDR CONTROL-ADDR", and
// serves until its stdin closes.
func floodChild(upstream string) int {
	lim := syscall.Rlimit{Cur: floodChildFDs, Max: floodChildFDs}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		fmt.Fprintln(os.Stderr, "setrlimit:", err)
		return 2
	}
	p, err := New(Config{
		Nodes: []NodeConfig{{Name: "db", Listen: "127.0.0.1:0", Upstream: upstream}},
		Log:   zerolog.New(os.Stderr).Level(zerolog.WarnLevel),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer p.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	n, _ := p.Node("db")
	fmt.Printf("%s %s\n", n.Addr(), ln.Addr())
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	if err := p.ServeControl(ctx, ln, "s3cret"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// loginWithin logs in through addr and pings, all within d.
func loginWithin(addr string, d time.Duration) error {
	c, err := net.DialTimeout("tcp", addr, d)
	if err != nil {
		return err
	}
	defer c.Close()
	rc := newRaw(c.(*net.TCPConn))
	if _, _, err := rc.read(d); err != nil {
		return fmt.Errorf("greeting: %w", err)
	}
	if err := rc.write(1, make([]byte, 40)); err != nil {
		return err
	}
	if _, p, err := rc.read(d); err != nil || p[0] != 0 {
		return fmt.Errorf("login: %v %x", err, p)
	}
	return rc.ping(d)
}

// openFDs counts the descriptors process pid holds.
func openFDs(pid int) int {
	ents, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// TestControlFloodSparesDataPath floods the control port of a proxy whose process may hold
// 1,024 descriptors with thousands of idle connections: database clients still log in
// through the proxy meanwhile, an authenticated control call still gets through, the proxy
// holds a bounded number of descriptors, and the control API answers after the flood.
func TestControlFloodSparesDataPath(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	const (
		flooders  = 8
		perHolder = 500 // idle connections each flooder opens and holds
		floodDial = flooders * perHolder
	)
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) != nil || lim.Cur < flooders*perHolder+1000 {
		t.Skipf("the test process may hold %d descriptors; the flood needs %d", lim.Cur, flooders*perHolder+1000)
	}
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc")
	}
	upstream := fake(t, fakemysql.Config{})

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), floodChildEnv+"="+upstream)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1)
	exited := make(chan error, 1)
	go func() {
		br := bufio.NewReader(stdout)
		line, _ := br.ReadString('\n')
		lines <- line
		io.Copy(io.Discard, br) // Wait closes the pipe: read it to its end first
		exited <- cmd.Wait()
	}()
	stopChild := func() error {
		stdin.Close()
		select {
		case err := <-exited:
			return err
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-exited
			return fmt.Errorf("the child did not stop within 30 s of its stdin closing")
		}
	}
	defer func() {
		if err := stopChild(); err != nil {
			t.Errorf("child: %v", err)
		}
		if t.Failed() {
			t.Logf("child's stderr:\n%s", stderr.String())
		}
	}()
	var nodeAddr, controlAddr string
	select {
	case line := <-lines:
		if _, err := fmt.Sscan(line, &nodeAddr, &controlAddr); err != nil {
			t.Fatalf("child's first line %q: %v", line, err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the child did not start within 30 s")
	}

	// The flood: idle connections to the control port, as fast as they open, held open
	// (from this side) until the checks are done.
	var dialled atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range flooders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var conns []net.Conn
			defer func() {
				for _, c := range conns {
					c.Close()
				}
			}()
			for len(conns) < perHolder {
				select {
				case <-stop:
					return
				default:
				}
				c, err := net.DialTimeout("tcp", controlAddr, time.Second)
				if err != nil {
					continue
				}
				dialled.Add(1)
				conns = append(conns, c)
			}
			<-stop
		}()
	}
	floodOver := false
	endFlood := func() {
		if !floodOver {
			floodOver = true
			close(stop)
			wg.Wait()
		}
	}
	defer endFlood()
	for deadline := time.Now().Add(time.Minute); dialled.Load() < floodDial; {
		if time.Now().After(deadline) {
			t.Fatalf("the flood opened %d connections in a minute, want %d", dialled.Load(), floodDial)
		}
		time.Sleep(10 * time.Millisecond)
	}

	// During the flood: the child's descriptors stay bounded while it takes the flood in (a
	// second), then the data path works and an authenticated control call gets through.
	maxFDs := 0
	for range 100 {
		maxFDs = max(maxFDs, openFDs(cmd.Process.Pid))
		time.Sleep(10 * time.Millisecond)
	}
	if limit := maxControlConns + 100; maxFDs > limit {
		t.Errorf("the proxy held up to %d descriptors during the flood, want at most %d", maxFDs, limit)
	}
	// 5 s is far more than a login through the proxy takes, even on a loaded machine, and
	// less than a flood connection's header timeout, which would let a client in late.
	for i := range 10 {
		if err := loginWithin(nodeAddr, 5*time.Second); err != nil {
			t.Fatalf("database client %d during a flood of %d control connections: %v", i, dialled.Load(), err)
		}
	}
	c := &Client{Addr: controlAddr, Token: "s3cret", HTTP: &http.Client{Timeout: 10 * time.Second}}
	callWithin := func(d time.Duration) error {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		var err error
		for ctx.Err() == nil {
			var nodes []NodeStatus
			if nodes, err = c.Nodes(ctx); err == nil {
				if len(nodes) != 1 || nodes[0].Accepted < 10 {
					return fmt.Errorf("status %+v", nodes)
				}
				return nil
			}
			time.Sleep(50 * time.Millisecond)
		}
		return err
	}
	if err := callWithin(30 * time.Second); err != nil {
		t.Errorf("an authenticated control call during the flood: %v", err)
	}
	t.Logf("%d flood connections; the proxy held at most %d descriptors", dialled.Load(), maxFDs)

	endFlood()
	if err := callWithin(30 * time.Second); err != nil {
		t.Errorf("a control call after the flood: %v", err)
	}
	if err := loginWithin(nodeAddr, 10*time.Second); err != nil {
		t.Errorf("a database client after the flood: %v", err)
	}
	if s := stderr.String(); strings.Contains(s, "too many open files") {
		t.Errorf("the child ran out of descriptors:\n%s", firstLines(s, 5))
	}
}

// firstLines returns the first n lines of s.
func firstLines(s string, n int) string {
	lines := bytes.SplitN([]byte(s), []byte("\n"), n+1)
	return string(bytes.Join(lines[:min(n, len(lines))], []byte("\n")))
}
