package proxy

import (
	"context"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"testing"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// The peers failsim is measured and compared against, each in this process on loopback: real
// toxiproxy (its server package, without its HTTP API) and the simplest proxy there is.

// cleaner is what the peers' helpers need of a testing.TB, so that a child process of the
// benchmarks (process_bench_test.go), which has no test, can run them too.
type cleaner interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// startToxiproxy runs real toxiproxy v2.5.0 in process, one proxy in front of upstream on a
// free loopback port, configured through its own Go API (what its HTTP handlers call). The
// proxy stops at cleanup, closing its connections.
func startToxiproxy(t cleaner, upstream string) *toxiproxy.Proxy {
	t.Helper()
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	p := toxiproxy.NewProxy(server, "db", "127.0.0.1:0", upstream)
	if err := server.Collection.Add(p, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Collection.Clear() })
	return p
}

// addToxiproxyToxic adds a toxic to a toxiproxy proxy from the JSON its API takes, e.g.
// {"type": "latency", "attributes": {"latency": 100}}.
func addToxiproxyToxic(t testing.TB, p *toxiproxy.Proxy, js string) {
	t.Helper()
	if _, err := p.Toxics.AddToxicJson(strings.NewReader(js)); err != nil {
		t.Fatalf("toxiproxy: add toxic %s: %v", js, err)
	}
}

// removeToxiproxyToxic removes a toxic by name, as its API's DELETE does.
func removeToxiproxyToxic(t testing.TB, p *toxiproxy.Proxy, name string) {
	t.Helper()
	if err := p.Toxics.RemoveToxic(context.Background(), name); err != nil {
		t.Fatalf("toxiproxy: remove toxic %s: %v", name, err)
	}
}

// startCopyProxy runs the simplest TCP proxy: per client a dial and two io.Copy, a FIN passed
// on as a FIN. It is the benchmarks' reference for what a user-space proxy costs (on Linux
// io.Copy between two TCP sockets splices, both ways). It returns its address; cleanup closes
// everything and waits.
func startCopyProxy(t cleaner, upstream string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
		wg    sync.WaitGroup // the pipes
	)
	accepting := make(chan struct{})
	go func() {
		defer close(accepting)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", upstream)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, up)
			mu.Unlock()
			pipe := func(dst, src net.Conn) {
				defer wg.Done()
				io.Copy(dst, src)
				dst.(*net.TCPConn).CloseWrite()
			}
			wg.Add(2)
			go pipe(up, c)
			go pipe(c, up)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-accepting
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}

// byteServer accepts connections and, per connection, sends an endless stream of random bytes
// (down) or reads and discards what it is sent (up). hangUp closes every connection it holds
// (a FIN after the bytes already sent), so a proxy in front of it ends its connection the way
// it ends one whose server leaves; cleanup closes the listener.
func byteServer(t testing.TB, down bool) (addr string, hangUp func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
		wg    sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				if !down {
					io.Copy(io.Discard, c)
					return
				}
				buf := make([]byte, 64<<10)
				rand.NewChaCha8([32]byte{1}).Read(buf)
				for {
					if _, err := c.Write(buf); err != nil {
						return
					}
				}
			}()
		}
	}()
	hangUp = func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}
	t.Cleanup(func() { ln.Close(); hangUp(); wg.Wait() })
	return ln.Addr().String(), hangUp
}
