package proxy

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// fakeListener is a listener that says it is on addr and accepts nothing: ServeToxiproxy's
// checks of a non-loopback address without binding one.
type fakeListener struct {
	addr   net.Addr
	closed bool
}

func (l *fakeListener) Accept() (net.Conn, error) { return nil, net.ErrClosed }
func (l *fakeListener) Close() error              { l.closed = true; return nil }
func (l *fakeListener) Addr() net.Addr            { return l.addr }

func TestServeToxiproxyOffLoopback(t *testing.T) {
	any4 := &net.TCPAddr{IP: net.IPv4zero, Port: 8474}
	for _, tc := range []struct {
		anyAddress bool
		token      string
	}{{false, ""}, {false, "tok"}, {true, ""}} {
		p := empty(t)
		p.anyAddress = tc.anyAddress
		ln := &fakeListener{addr: any4}
		err := p.ServeToxiproxy(context.Background(), ln, tc.token)
		want := "toxiproxy API on 0.0.0.0:8474: not a loopback address: it needs AllowNonLoopback and a token"
		if err == nil || err.Error() != want || !ln.closed {
			t.Errorf("%+v: %v (listener closed %v), want %s", tc, err, ln.closed, want)
		}
	}
	p := empty(t)
	if err := p.ServeToxiproxy(context.Background(), &fakeListener{addr: any4}, "bad token"); err == nil {
		t.Error("a token with a space inside was taken")
	}
}

func TestToxiproxyHandlerToken(t *testing.T) {
	p := empty(t)
	h := p.ToxiproxyHandler(" tok\n")
	for _, tc := range []struct {
		auth string
		code int
	}{{"", 401}, {"Bearer wrong", 401}, {"Bearer tok", 200}} {
		req := httptest.NewRequest("GET", "/proxies", nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.code {
			t.Errorf("%q: %d, want %d", tc.auth, rec.Code, tc.code)
		}
		if tc.code == 401 && (rec.Body.String() != `{"error":"missing or wrong control token","status":401}`+"\n" || rec.Header().Get("Connection") != "close") {
			t.Errorf("%q: %q %v", tc.auth, rec.Body.String(), rec.Header())
		}
	}
}

// TestServeToxiproxyOnLoopback: on loopback, no token is asked even when one is given.
func TestServeToxiproxyOnLoopback(t *testing.T) {
	p := empty(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.ServeToxiproxy(ctx, ln, "tok") }()
	hc := &http.Client{}
	resp, err := hc.Get("http://" + ln.Addr().String() + "/version")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	hc.CloseIdleConnections()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("version on loopback with a token configured: %d", resp.StatusCode)
	}
}

func TestToxiproxyBodyBounds(t *testing.T) {
	p := empty(t)
	h := p.ToxiproxyHandler("")
	for _, tc := range []struct {
		path  string
		size  int
		code  int
		limit string
	}{
		{"/proxies", 64<<10 + 1, 413, "65536"},
		{"/populate", 1<<20 + 1, 413, "1048576"},
		{"/populate", 64<<10 + 1, 400, ""}, // within a populate's bound: decoded, and bad
	} {
		body := `{"name":"` + strings.Repeat("a", tc.size) + `"}`
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", tc.path, strings.NewReader(body)))
		if rec.Code != tc.code || (tc.limit != "" && !strings.Contains(rec.Body.String(), "request body larger than "+tc.limit+" bytes")) {
			t.Errorf("%s with %d bytes: %d %s", tc.path, len(body), rec.Code, rec.Body.String())
		}
	}
	if len(p.Nodes()) != 0 {
		t.Fatal("a refused body created a proxy")
	}
}

// serve sends one request to h and returns the status and body.
func serve(h http.Handler, method, path, body string) (int, string) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader(body)))
	return rec.Code, rec.Body.String()
}

// TestToxiproxyPatch: later toxiproxy releases update with PATCH; failsim takes it as v2.5.0's
// POST.
func TestToxiproxyPatch(t *testing.T) {
	p := empty(t)
	h := p.ToxiproxyHandler("")
	up := echo(t)
	if code, body := serve(h, "POST", "/proxies", `{"name":"db","listen":"127.0.0.1:0","upstream":"`+up+`"}`); code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	if code, body := serve(h, "POST", "/proxies/db/toxics", `{"type":"latency","attributes":{"latency":5,"jitter":1}}`); code != 200 {
		t.Fatalf("add: %d %s", code, body)
	}
	code, body := serve(h, "PATCH", "/proxies/db/toxics/latency_downstream", `{"attributes":{"latency":7}}`)
	if want := `{"attributes":{"latency":7,"jitter":1},"name":"latency_downstream","type":"latency","stream":"downstream","toxicity":1}`; code != 200 || body != want {
		t.Fatalf("PATCH toxic: %d %s, want %s", code, body, want)
	}
	if code, body := serve(h, "PATCH", "/proxies/db", `{"enabled":false}`); code != 200 || !strings.Contains(body, `"enabled":false`) {
		t.Fatalf("PATCH proxy: %d %s", code, body)
	}
	if n, _ := p.Node("db"); n.Enabled() {
		t.Fatal("PATCH enabled false left the node up")
	}
}

// TestToxiproxyResetCannotListen: a reset that cannot bring a proxy back (its port taken
// meanwhile) answers 500 with the system's message, as toxiproxy does.
func TestToxiproxyResetCannotListen(t *testing.T) {
	p := empty(t)
	h := p.ToxiproxyHandler("")
	n, err := p.AddNode(NodeConfig{Name: "db", Listen: "127.0.0.1:0", Upstream: "127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	addr := n.Addr()
	if err := n.SetEnabled(false); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, body := serve(h, "POST", "/reset", "")
	want := `{"error":"listen tcp ` + addr + `: bind: address already in use","status":500}` + "\n"
	if code != 500 || body != want {
		t.Fatalf("reset: %d %q, want 500 %q", code, body, want)
	}
	if n.Enabled() {
		t.Fatal("a node that could not listen is enabled")
	}
}

// FuzzToxiproxyAPI sends arbitrary bodies to the calls that read one, on a proxy with one
// node: nothing panics, every answer is one of the call's statuses, and a reset brings the
// node back to no toxics, enabled.
func FuzzToxiproxyAPI(f *testing.F) {
	for _, s := range []string{
		`{"type":"latency","attributes":{"latency":100,"jitter":10}}`,
		`{"type":"slicer","stream":"upstream","toxicity":0.5,"attributes":{"average_size":8}}`,
		`{"type":"freeze"}`,
		`{"attributes":{"latency":5},"toxicity":0.1}`,
		`{"enabled":false}`,
		`{"listen":"127.0.0.1:0","upstream":"127.0.0.1:2"}`,
		`{"name":5}`,
		``,
	} {
		f.Add([]byte(s))
	}
	p := empty(f)
	h := p.ToxiproxyHandler("")
	if code, body := serve(h, "POST", "/proxies", `{"name":"db","listen":"127.0.0.1:0","upstream":"127.0.0.1:1"}`); code != 201 {
		f.Fatalf("create: %d %s", code, body)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		check := func(method, path string, ok ...int) {
			code, reply := serve(h, method, path, string(body))
			for _, c := range ok {
				if code == c {
					return
				}
			}
			t.Fatalf("%s %s %q: %d %s", method, path, body, code, reply)
		}
		check("POST", "/proxies/db/toxics", 200, 400, 409)
		for _, tx := range mustNode(t, p).Toxics() {
			check("POST", "/proxies/db/toxics/"+tx.Name, 200, 400)
		}
		check("POST", "/proxies/db", 200, 400, 500)
		check("POST", "/populate", 201, 400, 500)
		if code, reply := serve(h, "POST", "/reset", ""); code == 500 {
			// The body moved db to a port it cannot bind again (one below 1024, one
			// taken): move it back, and reset again.
			if err := mustNode(t, p).Update("127.0.0.1:0", "127.0.0.1:1", true); err != nil {
				t.Fatal(err)
			}
			if code, reply := serve(h, "POST", "/reset", ""); code != 204 {
				t.Fatalf("reset: %d %s", code, reply)
			}
		} else if code != 204 {
			t.Fatalf("reset: %d %s", code, reply)
		}
		n := mustNode(t, p)
		if len(n.Toxics()) != 0 || !n.Enabled() {
			t.Fatalf("after reset: %d toxics, enabled %v", len(n.Toxics()), n.Enabled())
		}
		for _, m := range p.Nodes() { // what a populate made
			if m.Name() != "db" {
				p.RemoveNode(m.Name())
			}
		}
	})
}

// mustNode returns the fuzzed proxy's node db.
func mustNode(t *testing.T, p *Proxy) *Node {
	t.Helper()
	n, ok := p.Node("db")
	if !ok {
		t.Fatal("node db is gone")
	}
	return n
}
