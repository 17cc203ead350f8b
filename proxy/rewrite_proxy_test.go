package proxy

import (
	"bytes"
	"io"
	"net"
	"slices"
	"strconv"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// scripted serves one connection: it writes each exchange's server bytes after reading its
// client bytes, then closes. It returns its address.
func scripted(t *testing.T, xs []exchange) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		for _, x := range xs {
			c.SetDeadline(time.Now().Add(5 * time.Second))
			if _, err := io.ReadFull(c, make([]byte, len(x.client))); err != nil {
				return
			}
			if _, err := c.Write(x.server); err != nil {
				return
			}
		}
	}()
	return ln.Addr().String()
}

// through runs the exchanges' client side through addr and returns every byte it received.
func through(t *testing.T, addr string, xs []exchange) []byte {
	t.Helper()
	c := mustDial(t, addr)
	var got []byte
	for _, x := range xs {
		if _, err := c.Write(x.client); err != nil {
			t.Fatal(err)
		}
		// read at least what the server sent (a rewrite may lengthen it), then a little more
		buf := make([]byte, 64<<10)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		for n := 0; n < len(x.server); {
			k, err := c.Read(buf)
			if err != nil {
				t.Fatalf("read: %v after %d bytes", err, len(got))
			}
			got = append(got, buf[:k]...)
			n += k
		}
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	rest, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("read to the end: %v", err)
	}
	return append(got, rest...)
}

// rewriteSession is a session with topology replies and others, the server's rows naming
// replica the address of the other node's server.
func rewriteSession(replica string) []exchange {
	host, port, _ := net.SplitHostPort(replica)
	return append(loginExchanges(testCaps),
		exchange{client: query("SELECT 1"), server: result(false, 0, []string{"1"}, []string{"1"})},
		exchange{client: query("SELECT @@hostname, @@port"), server: result(false, 0, []string{"@@hostname", "@@port"}, []string{"realhost", "3306"})},
		exchange{client: query("SHOW SLAVE HOSTS"), server: result(false, 0, []string{"Server_id", "Host", "Port", "Master_id"}, []string{"2", host, port, "1"})},
		exchange{client: query("SELECT Host, Port FROM t"), server: result(false, 0, []string{"Host", "Port"}, []string{host, port})},
	)
}

// Through a real proxy, a rewriting node rewrites its server's name and port to its own and a
// replica's address to the proxy node in front of that replica; the rest passes untouched.
func TestProxyRewritesTopology(t *testing.T) {
	const replicaReal = "127.0.0.1:1" // never dialled: the other node is only named
	xs := rewriteSession(replicaReal)
	up := scripted(t, xs)
	p, err := New(Config{Seed: 1, Nodes: []NodeConfig{
		{Name: "db1", Listen: "127.0.0.1:0", Upstream: up, RewriteTopology: true},
		{Name: "db2", Listen: "127.0.0.1:0", Upstream: replicaReal},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	db1, _ := p.Node("db1")
	db2, _ := p.Node("db2")
	got := through(t, db1.Addr(), xs)
	rows := decodeRows(t, afterLogin(got))
	_, port1, _ := net.SplitHostPort(db1.Addr())
	_, port2, _ := net.SplitHostPort(db2.Addr())
	for _, want := range [][]string{{"127.0.0.1", port1}, {"2", "127.0.0.1", port2, "1"}, {"127.0.0.1", "1"}, {"1"}} {
		if !slices.ContainsFunc(rows, func(r []string) bool { return slices.Equal(r, want) }) {
			t.Errorf("rows %q: want %q among them", rows, want)
		}
	}
	if n := db1.Status().TopologyRewrites; n != 3 {
		t.Errorf("TopologyRewrites %d, want 3 (hostname, port, the replica's port)", n)
	}
	got2 := seriesOf(t, scrapeMetrics(t, p), "failsim_proxy_topology_rewrites_total", dto.MetricType_COUNTER, "node")
	if v, ok := got2["node=db2"]; got2["node=db1"] != 3 || !ok || v != 0 {
		t.Errorf("failsim_proxy_topology_rewrites_total %v, want db1 3 and db2 0", got2)
	}
}

// A session with no topology reply reaches the client byte for byte, with rewriting on (the
// bytes copied through the rewriter) as with it off (spliced).
func TestProxyRewritePassesOtherBytes(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 3<<20)
	xs := append(loginExchanges(testCaps|capDeprecateEOF),
		exchange{client: query("SELECT * FROM t"), server: result(true, 0, []string{"Host", "Port", "blob"}, []string{"127.0.0.1", "1", string(big)})},
		exchange{client: pkt(0, []byte{rwComPing}), server: okPacket(1, 0)},
		exchange{client: query("SELECT @@version"), server: result(true, 0, []string{"@@version"}, []string{"10.11.6"})},
	)
	var want []byte
	for _, x := range xs {
		want = append(want, x.server...)
	}
	var fr serverFramer
	fr.scan(want) // the proxy clears CLIENT_COMPRESS and CLIENT_SSL in the greeting, rewriting or not
	for _, rewrite := range []bool{false, true} {
		up := scripted(t, xs)
		p, err := New(Config{Seed: 1, Nodes: []NodeConfig{{Name: "db1", Listen: "127.0.0.1:0", Upstream: up, RewriteTopology: rewrite},
			{Name: "db2", Listen: "127.0.0.1:0", Upstream: "127.0.0.1:1"}}})
		if err != nil {
			t.Fatal(err)
		}
		n, _ := p.Node("db1")
		got := through(t, n.Addr(), xs)
		p.Close()
		if !bytes.Equal(got, want) {
			t.Errorf("rewrite %v: %d bytes received, want the server's %d unchanged", rewrite, len(got), len(want))
		}
		if st := n.Status(); st.TopologyRewrites != 0 || st.BytesDown != uint64(len(want)) {
			t.Errorf("rewrite %v: %d rewrites, %d bytes down, want 0 and %s", rewrite, st.TopologyRewrites, st.BytesDown, strconv.Itoa(len(want)))
		}
	}
}
