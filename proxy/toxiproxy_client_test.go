package proxy_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"reflect"
	"sync"
	"testing"
	"time"

	tclient "github.com/Shopify/toxiproxy/v2/client"

	"github.com/failsim/failsim/proxy"
)

// toxiproxyServer starts a proxy with no nodes and its toxiproxy API on a free loopback
// port, both stopped at cleanup; it returns the proxy and the API's address.
func toxiproxyServer(t *testing.T) (*proxy.Proxy, string) {
	t.Helper()
	p, err := proxy.New(proxy.Config{AllowNoNodes: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- p.ServeToxiproxy(ctx, ln, "") }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Error(err)
		}
		p.Close()
		// toxiproxy's client uses http.DefaultClient: its idle connections would outlive
		// the test.
		http.DefaultClient.CloseIdleConnections()
	})
	return p, ln.Addr().String()
}

// echoServer is an upstream that writes back what it reads.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
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
			go func() { defer wg.Done(); io.Copy(c, c); c.Close() }()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}

// freeAddr returns a loopback address no one listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// wantErr fails the test unless err's text is want.
func wantErr(t *testing.T, what string, err error, want string) {
	t.Helper()
	if err == nil || err.Error() != want {
		t.Errorf("%s: error %v, want %q", what, err, want)
	}
}

// TestToxiproxyClient drives failsim's toxiproxy API with toxiproxy's own Go client,
// unchanged: proxies created, listed, populated, disabled, enabled and deleted; every toxic
// type added, read, updated and removed; a reset; the version.
func TestToxiproxyClient(t *testing.T) {
	_, addr := toxiproxyServer(t)
	c := tclient.NewClient(addr)
	up := echoServer(t)

	proxies, err := c.Proxies()
	if err != nil || len(proxies) != 0 {
		t.Fatalf("Proxies on a new server: %v %v", proxies, err)
	}
	_, err = c.CreateProxy("", "", "")
	wantErr(t, "create without a name", err, "Create: HTTP 400: missing required field: name")
	_, err = c.CreateProxy("db", "", "")
	wantErr(t, "create without an upstream", err, "Create: HTTP 400: missing required field: upstream")

	listen := freeAddr(t)
	db, err := c.CreateProxy("db", "localhost:"+port(listen), up)
	if err != nil {
		t.Fatal(err)
	}
	if db.Name != "db" || db.Listen != listen || db.Upstream != up || !db.Enabled || len(db.ActiveToxics) != 0 {
		t.Fatalf("created %+v, want db on %s to %s, enabled, no toxics", db, listen, up)
	}
	echoes(t, listen, "through the new proxy")
	_, err = c.CreateProxy("db", "127.0.0.1:0", up)
	wantErr(t, "a second db", err, "Create: HTTP 409: proxy already exists")
	_, err = c.CreateProxy("other", listen, up)
	wantErr(t, "a port in use", err, "Create: HTTP 500: listen tcp "+listen+": bind: address already in use")

	// Populate: one new, one disabled, db kept as it is because nothing about it changed.
	oneAddr := freeAddr(t)
	made, err := c.Populate([]tclient.Proxy{
		{Name: "one", Listen: oneAddr, Upstream: up, Enabled: true},
		{Name: "two", Listen: "127.0.0.1:0", Upstream: up, Enabled: false},
		{Name: "db", Listen: listen, Upstream: up, Enabled: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(made) != 3 || made[0].Name != "one" || made[1].Name != "two" || made[1].Enabled || made[2].Listen != listen {
		t.Fatalf("populated %+v", made)
	}
	echoes(t, oneAddr, "through a populated proxy")
	_, err = c.Populate([]tclient.Proxy{{Name: "three", Listen: "127.0.0.1:0", Upstream: up}, {Upstream: up}})
	wantErr(t, "populate without a name", err, "Populate: HTTP 400: missing required field: name at proxy 2")
	if _, err := c.Proxy("three"); err == nil {
		t.Error("a populate that failed created a proxy")
	}
	proxies, err = c.Proxies()
	if err != nil || len(proxies) != 3 || proxies["two"] == nil || proxies["two"].Enabled {
		t.Fatalf("Proxies: %v %v", proxies, err)
	}
	// A populate that changes a proxy replaces it: its toxics go.
	one := proxies["one"]
	if _, err := one.AddToxic("", "latency", "", 1, nil); err != nil {
		t.Fatal(err)
	}
	up2 := echoServer(t)
	if _, err := c.Populate([]tclient.Proxy{{Name: "one", Listen: oneAddr, Upstream: up2, Enabled: true}}); err != nil {
		t.Fatal(err)
	}
	if one, err = c.Proxy("one"); err != nil || one.Upstream != up2 || len(one.ActiveToxics) != 0 {
		t.Fatalf("one replaced: %+v %v", one, err)
	}
	echoes(t, oneAddr, "through the replaced proxy")

	// Every toxic type: added, read back, updated, removed.
	for _, tc := range toxicCases {
		t.Run(tc.typ, func(t *testing.T) {
			tx, err := db.AddToxic("", tc.typ, tc.stream, -1, tc.attrs)
			if err != nil {
				t.Fatal(err)
			}
			stream := tc.stream
			if stream == "" {
				stream = "downstream"
			}
			name := tc.typ + "_" + stream
			if tx.Name != name || tx.Type != tc.typ || tx.Stream != stream || tx.Toxicity != 1 || !sameAttrs(tx.Attributes, tc.want) {
				t.Fatalf("added %+v, want %s %s toxicity 1 %v", tx, name, stream, tc.want)
			}
			_, err = db.AddToxic(name, tc.typ, tc.stream, 1, tc.attrs)
			wantErr(t, "the same name twice", err, "AddToxic: HTTP 409: toxic already exists")
			ts, err := db.Toxics()
			if err != nil || len(ts) != 1 || ts[0].Name != name || !sameAttrs(ts[0].Attributes, tc.want) {
				t.Fatalf("Toxics: %+v %v", ts, err)
			}
			tx, err = db.UpdateToxic(name, 0.5, tc.update)
			if err != nil {
				t.Fatal(err)
			}
			if tx.Toxicity != 0.5 || !sameAttrs(tx.Attributes, tc.updated) || tx.Stream != stream {
				t.Fatalf("updated %+v, want toxicity 0.5 %v", tx, tc.updated)
			}
			tx, err = db.UpdateToxic(name, -1, nil) // -1: toxicity absent, kept
			if err != nil || tx.Toxicity != 0.5 || !sameAttrs(tx.Attributes, tc.updated) {
				t.Fatalf("an empty update: %+v %v", tx, err)
			}
			if err := db.RemoveToxic(name); err != nil {
				t.Fatal(err)
			}
			wantErr(t, "a second remove", db.RemoveToxic(name), "RemoveToxic: HTTP 404: toxic not found")
			if ts, err := db.Toxics(); err != nil || len(ts) != 0 {
				t.Fatalf("after remove: %+v %v", ts, err)
			}
		})
	}
	_, err = db.AddToxic("", "latency", "sideways", 1, nil)
	wantErr(t, "a bad stream", err, "AddToxic: HTTP 400: stream was invalid, can be either upstream or downstream")
	_, err = db.AddToxic("", "explode", "", 1, nil)
	wantErr(t, "a bad type", err, "AddToxic: HTTP 400: invalid toxic type")
	_, err = db.UpdateToxic("nothing", 1, nil)
	wantErr(t, "update of a missing toxic", err, "UpdateToxic: HTTP 404: toxic not found")

	// Down and up again (toxiproxy's enabled), then a reset.
	if err := db.Disable(); err != nil || db.Enabled {
		t.Fatalf("disable: %v, enabled %v", err, db.Enabled)
	}
	if conn, err := net.DialTimeout("tcp", listen, time.Second); err == nil {
		conn.Close()
		t.Fatal("a disabled proxy accepts")
	}
	if err := db.Enable(); err != nil || db.Listen != listen {
		t.Fatalf("enable: %v, on %s", err, db.Listen)
	}
	echoes(t, listen, "through the proxy enabled again")
	if _, err := db.AddToxic("lat", "latency", "upstream", 1, tclient.Attributes{"latency": 5}); err != nil {
		t.Fatal(err)
	}
	if err := db.Disable(); err != nil {
		t.Fatal(err)
	}
	if err := c.ResetState(); err != nil {
		t.Fatal(err)
	}
	proxies, err = c.Proxies()
	if err != nil {
		t.Fatal(err)
	}
	for name, px := range proxies {
		if !px.Enabled || len(px.ActiveToxics) != 0 {
			t.Errorf("after reset, %s: enabled %v, toxics %+v", name, px.Enabled, px.ActiveToxics)
		}
	}

	// The client has no call for /version: a plain GET, as toxiproxy's own test does.
	resp, err := http.Get("http://" + addr + "/version")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != proxy.ToxiproxyVersion || resp.Header.Get("Content-Type") != "text/plain;charset=utf-8" {
		t.Errorf("version: %q %s", body, resp.Header.Get("Content-Type"))
	}

	if err := db.Delete(); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "a second delete", db.Delete(), "Delete: HTTP 404: proxy not found")
	if conn, err := net.DialTimeout("tcp", listen, time.Second); err == nil {
		conn.Close()
		t.Fatal("a deleted proxy accepts")
	}
	_, err = c.Proxy("db")
	wantErr(t, "a deleted proxy", err, "Proxy: HTTP 404: proxy not found")
}

// toxicCases are every toxic type with the attributes the client sends, what comes back,
// an update and what it leaves (attributes decoded over the old ones).
var toxicCases = []struct {
	typ, stream                  string
	attrs, want, update, updated tclient.Attributes
}{
	{"latency", "", tclient.Attributes{"latency": 100, "jitter": 10}, tclient.Attributes{"latency": 100, "jitter": 10},
		tclient.Attributes{"latency": 1000}, tclient.Attributes{"latency": 1000, "jitter": 10}},
	{"bandwidth", "upstream", tclient.Attributes{"rate": 50}, tclient.Attributes{"rate": 50},
		tclient.Attributes{"rate": 20}, tclient.Attributes{"rate": 20}},
	{"slow_close", "", tclient.Attributes{"delay": 200}, tclient.Attributes{"delay": 200},
		tclient.Attributes{"delay": 300}, tclient.Attributes{"delay": 300}},
	{"timeout", "", tclient.Attributes{"timeout": 1000}, tclient.Attributes{"timeout": 1000},
		tclient.Attributes{"timeout": 0}, tclient.Attributes{"timeout": 0}},
	{"reset_peer", "upstream", tclient.Attributes{"timeout": 100}, tclient.Attributes{"timeout": 100},
		tclient.Attributes{}, tclient.Attributes{"timeout": 100}},
	{"slicer", "", tclient.Attributes{"average_size": 64, "size_variation": 16, "delay": 10}, tclient.Attributes{"average_size": 64, "size_variation": 16, "delay": 10},
		tclient.Attributes{"delay": 20}, tclient.Attributes{"average_size": 64, "size_variation": 16, "delay": 20}},
	{"limit_data", "", tclient.Attributes{"bytes": 4096}, tclient.Attributes{"bytes": 4096},
		tclient.Attributes{"bytes": 10}, tclient.Attributes{"bytes": 10}},
	{"slow", "", tclient.Attributes{"delay": 50}, tclient.Attributes{"delay": 50},
		tclient.Attributes{"delay": 70}, tclient.Attributes{"delay": 70}},
	{"delay", "", tclient.Attributes{"delay": 50}, tclient.Attributes{"delay": 50},
		tclient.Attributes{"delay": 60}, tclient.Attributes{"delay": 60}},
	{"error", "", tclient.Attributes{"code": 1040}, tclient.Attributes{"code": 1040},
		tclient.Attributes{"code": 1045}, tclient.Attributes{"code": 1045}},
	{"freeze", "", nil, tclient.Attributes{}, nil, tclient.Attributes{}},
	{"stall", "", nil, tclient.Attributes{}, nil, tclient.Attributes{}},
	{"close", "", nil, tclient.Attributes{}, nil, tclient.Attributes{}},
	{"reset", "", nil, tclient.Attributes{}, nil, tclient.Attributes{}},
	{"refuse", "", nil, tclient.Attributes{}, nil, tclient.Attributes{}},
	{"blackhole", "", nil, tclient.Attributes{}, nil, tclient.Attributes{}},
}

// sameAttrs compares attributes as the client decodes them (numbers as float64).
func sameAttrs(got, want tclient.Attributes) bool {
	w := tclient.Attributes{}
	for k, v := range want {
		w[k] = float64(v.(int))
	}
	if got == nil {
		got = tclient.Attributes{}
	}
	return reflect.DeepEqual(got, w)
}

func port(addr string) string {
	_, p, _ := net.SplitHostPort(addr)
	return p
}

// echoes sends msg through addr and reads it back.
func echoes(t *testing.T, addr, msg string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write([]byte(msg)); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(conn, got); err != nil {
		t.Fatalf("through %s: %v", addr, err)
	}
	if string(got) != msg {
		t.Fatalf("through %s: %q, want %q", addr, got, msg)
	}
}

// TestToxiproxyClientToxicActs sends real traffic through a proxy toxiproxy's client made:
// limit_data closes the stream after its bytes, removing it lets everything through, and a
// disable closes the open connection.
func TestToxiproxyClientToxicActs(t *testing.T) {
	_, addr := toxiproxyServer(t)
	c := tclient.NewClient(addr)
	db, err := c.CreateProxy("db", "127.0.0.1:0", echoServer(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddToxic("cap", "limit_data", "downstream", 1, tclient.Attributes{"bytes": 10}); err != nil {
		t.Fatal(err)
	}
	conn, err := net.DialTimeout("tcp", db.Listen, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write([]byte("twenty bytes, echoed")); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(conn)
	if err != nil {
		t.Fatalf("after %q: %v, want the stream closed", got, err)
	}
	if string(got) != "twenty byt" {
		t.Fatalf("through limit_data 10: %q, want the first 10 bytes", got)
	}

	if err := db.RemoveToxic("cap"); err != nil {
		t.Fatal(err)
	}
	echoes(t, db.Listen, "twenty bytes, echoed")

	open, err := net.DialTimeout("tcp", db.Listen, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	open.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := open.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(open, make([]byte, 5)); err != nil {
		t.Fatal(err)
	}
	if err := db.Disable(); err != nil {
		t.Fatal(err)
	}
	if n, err := open.Read(make([]byte, 1)); err == nil || isTimeout(err) {
		t.Fatalf("a connection through a disabled proxy: read %d, %v; want it closed", n, err)
	}
}

// isTimeout reports whether err is a deadline.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
