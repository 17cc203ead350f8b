package proxy

import (
	"errors"
	"io"
	"net"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// echoes writes msg on c and reads it back.
func echoes(c net.Conn, msg string) error {
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte(msg)); err != nil {
		return err
	}
	buf := make([]byte, len(msg))
	if _, err := io.ReadFull(c, buf); err != nil {
		return err
	}
	if string(buf) != msg {
		return errors.New("echo: got " + string(buf))
	}
	return nil
}

// empty starts a proxy with no nodes.
func empty(t testing.TB) *Proxy {
	t.Helper()
	p, err := New(Config{AllowNoNodes: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestNoNodesNeedsAllowNoNodes(t *testing.T) {
	if _, err := New(Config{}); err == nil || err.Error() != "no nodes" {
		t.Fatalf("New with no nodes: %v, want no nodes", err)
	}
	p := empty(t)
	if ns := p.Nodes(); len(ns) != 0 {
		t.Fatalf("nodes: %d", len(ns))
	}
}

func TestAddRemoveNode(t *testing.T) {
	p := empty(t)
	up := echo(t)
	n, err := p.AddNode(NodeConfig{Name: "b", Listen: "127.0.0.1:0", Upstream: up})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.AddNode(NodeConfig{Name: "a", Listen: "127.0.0.1:0", Upstream: up}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.AddNode(NodeConfig{Name: "b", Listen: "127.0.0.1:0", Upstream: up}); !errors.Is(err, ErrNodeExists) {
		t.Fatalf("second b: %v, want ErrNodeExists", err)
	}
	if got := names(p); got != "a,b" {
		t.Fatalf("nodes %s, want a,b (sorted)", got)
	}
	c := mustDial(t, n.Addr())
	if err := echoes(c, "hello"); err != nil {
		t.Fatal(err)
	}
	addr := n.Addr()
	if err := p.RemoveNode("b"); err != nil {
		t.Fatal(err)
	}
	if err := p.RemoveNode("b"); !errors.Is(err, ErrNodeNotFound) {
		t.Fatalf("second remove: %v, want ErrNodeNotFound", err)
	}
	if err := echoes(c, "after the change"); err == nil {
		t.Fatal("a connection through a removed node still works")
	}
	if _, err := dial(t, addr); err == nil {
		t.Fatal("a removed node's port still accepts")
	}
	if got := names(p); got != "a" {
		t.Fatalf("nodes %s, want a", got)
	}
}

func TestAddNodeRefuses(t *testing.T) {
	p := empty(t)
	for _, tc := range []struct {
		nc   NodeConfig
		want string
	}{
		{NodeConfig{Name: "a b", Listen: "127.0.0.1:0", Upstream: "127.0.0.1:1"}, `node name "a b": want UTF-8 text with no whitespace, control character or '/'`},
		{NodeConfig{Name: "a", Listen: "0.0.0.0:0", Upstream: "127.0.0.1:1"}, `node a: listen address "0.0.0.0:0" is not a loopback address: every host that reaches it would reach the database`},
		{NodeConfig{Name: "a", Listen: "127.0.0.1:0", Upstream: "127.0.0.1:0"}, `node a: upstream address "127.0.0.1:0": port "0" is not a number from 1 to 65535`},
	} {
		if _, err := p.AddNode(tc.nc); err == nil || err.Error() != tc.want {
			t.Errorf("AddNode(%+v): %v, want %s", tc.nc, err, tc.want)
		}
	}
	if len(p.Nodes()) != 0 {
		t.Fatal("a refused node was added")
	}
	// A port in use: the node is not added.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if _, err := p.AddNode(NodeConfig{Name: "a", Listen: ln.Addr().String(), Upstream: "127.0.0.1:1"}); err == nil {
		t.Fatal("AddNode on a port in use succeeded")
	}
	if _, ok := p.Node("a"); ok {
		t.Fatal("a node that could not bind was added")
	}
	p.Close()
	if _, err := p.AddNode(NodeConfig{Name: "a", Listen: "127.0.0.1:0", Upstream: "127.0.0.1:1"}); !errors.Is(err, errClosed) {
		t.Fatalf("AddNode after Close: %v", err)
	}
}

func TestSetEnabled(t *testing.T) {
	p := empty(t)
	n, err := p.AddNode(NodeConfig{Name: "db", Listen: "127.0.0.1:0", Upstream: echo(t)})
	if err != nil {
		t.Fatal(err)
	}
	addr := n.Addr()
	c := mustDial(t, addr)
	if err := echoes(c, "first"); err != nil {
		t.Fatal(err)
	}
	if err := n.SetEnabled(false); err != nil {
		t.Fatal(err)
	}
	if n.Enabled() {
		t.Fatal("Enabled after SetEnabled(false)")
	}
	// Every connection was closed when SetEnabled returned, and the port refuses.
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil || isTimeout(err) {
		t.Fatalf("read on a connection through a disabled node: %v, want closed", err)
	}
	if _, err := dial(t, addr); err == nil {
		t.Fatal("a disabled node accepts")
	}
	if st := n.Status(); st.Open != 0 {
		t.Fatalf("open connections while down: %d", st.Open)
	}
	// A mode set while down is kept, and applied when the node comes back.
	set(t, n, "close")
	if err := n.SetEnabled(false); err != nil {
		t.Fatal("a second disable:", err)
	}
	if err := n.SetEnabled(true); err != nil {
		t.Fatal(err)
	}
	if n.Addr() != addr {
		t.Fatalf("enabled on %s, was %s", n.Addr(), addr)
	}
	c2 := mustDial(t, addr)
	if err := echoes(c2, "second"); err == nil {
		t.Fatal("close set while down did not act once up")
	}
	set(t, n, "heal")
	if err := echoes(mustDial(t, addr), "three"); err != nil {
		t.Fatal(err)
	}
}

func TestDisabledFromStart(t *testing.T) {
	p := empty(t)
	n, err := p.AddNode(NodeConfig{Name: "db", Listen: "127.0.0.1:0", Upstream: echo(t), Disabled: true})
	if err != nil {
		t.Fatal(err)
	}
	if n.Enabled() {
		t.Fatal("a node added disabled is enabled")
	}
	if err := n.SetEnabled(true); err != nil {
		t.Fatal(err)
	}
	if err := echoes(mustDial(t, n.Addr()), "up again"); err != nil {
		t.Fatalf("through %s: %v", n.Addr(), err)
	}
}

func TestUpdate(t *testing.T) {
	p := empty(t)
	up1, up2 := echo(t), echo(t)
	n, err := p.AddNode(NodeConfig{Name: "db", Listen: "127.0.0.1:0", Upstream: up1})
	if err != nil {
		t.Fatal(err)
	}
	old := n.Addr()
	// The same addresses: nothing happens to the open connection.
	c := mustDial(t, old)
	if err := echoes(c, "same addresses"); err != nil {
		t.Fatal(err)
	}
	if err := n.Update(old, up1, true); err != nil {
		t.Fatal(err)
	}
	if err := echoes(c, "once again"); err != nil {
		t.Fatal("an update with the same addresses closed the connection:", err)
	}
	// A new upstream: the connection closes, new ones reach the new server.
	if err := n.Update(old, up2, true); err != nil {
		t.Fatal(err)
	}
	if err := echoes(c, "after the change"); err == nil {
		t.Fatal("a connection survived an upstream change")
	}
	if n.Upstream() != up2 || n.Addr() != old {
		t.Fatalf("after update: %s -> %s", n.Addr(), n.Upstream())
	}
	if err := echoes(mustDial(t, old), "the new upstream"); err != nil {
		t.Fatal(err)
	}
	// A new listen address, disabled: down with the new address.
	if err := n.Update("127.0.0.1:0", up2, false); err != nil {
		t.Fatal(err)
	}
	if n.Enabled() || n.Addr() != "127.0.0.1:0" {
		t.Fatalf("after a disabled update: enabled %v on %s", n.Enabled(), n.Addr())
	}
	if err := n.SetEnabled(true); err != nil {
		t.Fatal(err)
	}
	if n.Addr() == "127.0.0.1:0" {
		t.Fatal("port 0 was not resolved")
	}
	if err := echoes(mustDial(t, n.Addr()), "moved"); err != nil {
		t.Fatal(err)
	}
	if err := n.Update("0.0.0.0:0", up2, true); err == nil {
		t.Fatal("an update to a non-loopback listen address passed")
	}
}

// TestNodesChangeConcurrently adds, updates and removes nodes while others read the node
// table and the statuses (go test -race checks the locking).
func TestNodesChangeConcurrently(t *testing.T) {
	p := empty(t)
	up := echo(t)
	h := p.Handler("")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, n := range p.Nodes() {
				_ = n.Status()
			}
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/metrics", nil))
		}
	}()
	for i := range 20 {
		name := "n" + fmtInt(i%3)
		n, err := p.AddNode(NodeConfig{Name: name, Listen: "127.0.0.1:0", Upstream: up})
		if errors.Is(err, ErrNodeExists) {
			if err := p.RemoveNode(name); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Update("127.0.0.1:0", up, i%2 == 0); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
}

func names(p *Proxy) string {
	s := ""
	for i, n := range p.Nodes() {
		if i > 0 {
			s += ","
		}
		s += n.Name()
	}
	return s
}

// TestAddNodeRewrites: Config.RewriteTopology reaches the nodes added at run time.
func TestAddNodeRewrites(t *testing.T) {
	for _, all := range []bool{false, true} {
		p, err := New(Config{AllowNoNodes: true, RewriteTopology: all})
		if err != nil {
			t.Fatal(err)
		}
		n, err := p.AddNode(NodeConfig{Name: "db", Listen: "127.0.0.1:0", Upstream: "127.0.0.1:1"})
		if err != nil {
			t.Fatal(err)
		}
		if n.rewrite != all || (n.newRewriter() != nil) != all {
			t.Errorf("RewriteTopology %v: the added node rewrites: %v", all, n.rewrite)
		}
		p.Close()
	}
}
