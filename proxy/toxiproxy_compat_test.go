package proxy_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/failsim/failsim/proxy"
)

// toxiproxyRouter is real toxiproxy's API (v2.5.0, api.go): its server and its handlers on
// its routes, as ApiServer.Listen builds them (without the logging middlewares, which
// change no reply, and the browser check, which is unexported).
func toxiproxyRouter(s *toxiproxy.ApiServer) http.Handler {
	r := mux.NewRouter()
	r.HandleFunc("/reset", s.ResetState).Methods("POST")
	r.HandleFunc("/proxies", s.ProxyIndex).Methods("GET")
	r.HandleFunc("/proxies", s.ProxyCreate).Methods("POST")
	r.HandleFunc("/populate", s.Populate).Methods("POST")
	r.HandleFunc("/proxies/{proxy}", s.ProxyShow).Methods("GET")
	r.HandleFunc("/proxies/{proxy}", s.ProxyUpdate).Methods("POST")
	r.HandleFunc("/proxies/{proxy}", s.ProxyDelete).Methods("DELETE")
	r.HandleFunc("/proxies/{proxy}/toxics", s.ToxicIndex).Methods("GET")
	r.HandleFunc("/proxies/{proxy}/toxics", s.ToxicCreate).Methods("POST")
	r.HandleFunc("/proxies/{proxy}/toxics/{toxic}", s.ToxicShow).Methods("GET")
	r.HandleFunc("/proxies/{proxy}/toxics/{toxic}", s.ToxicUpdate).Methods("POST")
	r.HandleFunc("/proxies/{proxy}/toxics/{toxic}", s.ToxicDelete).Methods("DELETE")
	r.HandleFunc("/version", s.Version).Methods("GET")
	return r
}

// compatStep is one request.
type compatStep struct{ method, path, body string }

// reply is what a client sees of one response.
type reply struct {
	status      int
	contentType string
	body        string
}

func (r reply) String() string { return fmt.Sprintf("%d %s %s", r.status, r.contentType, r.body) }

// play sends the steps to h in order.
func play(t *testing.T, h http.Handler, steps []compatStep) []reply {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	var out []reply
	for _, s := range steps {
		req, err := http.NewRequest(s.method, srv.URL+s.path, strings.NewReader(s.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("User-Agent", "toxiproxy-compat-test")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		out = append(out, reply{resp.StatusCode, resp.Header.Get("Content-Type"), string(body)})
	}
	return out
}

// TestToxiproxyAPIByteCompatible sends the same requests to real toxiproxy's API and to
// failsim's and compares what comes back: status, content type and body, byte for byte.
func TestToxiproxyAPIByteCompatible(t *testing.T) {
	a, b, d, e := freeAddr(t), freeAddr(t), freeAddr(t), freeAddr(t)
	steps := []compatStep{
		{"GET", "/proxies", ""},
		{"POST", "/proxies", ""},
		{"POST", "/proxies", "{"},
		{"POST", "/proxies", `{}`},
		{"POST", "/proxies", `{"name":"a"}`},
		{"POST", "/proxies", `{"name": 5}`},
		{"POST", "/proxies", `{"name":"a","listen":"` + a + `","upstream":"127.0.0.1:20001"}`},
		{"POST", "/proxies", `{"name":"a","listen":"` + b + `","upstream":"127.0.0.1:20001"}`},
		{"POST", "/proxies", `{"name":"b","listen":"` + a + `","upstream":"127.0.0.1:20001"}`},
		{"POST", "/proxies", `{"name":"c","listen":"` + b + `","upstream":"localhost:20002","enabled":false}`},
		{"GET", "/proxies", ""},
		{"GET", "/proxies/a", ""},
		{"GET", "/proxies/nope", ""},
		{"POST", "/proxies/a/toxics", `{"type":"latency","attributes":{"latency":100,"jitter":10}}`},
		{"POST", "/proxies/a/toxics", `{"type":"latency"}`},
		{"POST", "/proxies/a/toxics", `{"type":"latency","stream":"upstream","toxicity":0.3}`},
		{"POST", "/proxies/a/toxics", `{"type":"explode"}`},
		{"POST", "/proxies/a/toxics", `{"type":"latency","stream":"sideways"}`},
		{"POST", "/proxies/a/toxics", `{"type":"latency","name":"x","attributes":5}`},
		{"POST", "/proxies/a/toxics", `{"type":"latency","name":"x","attributes":{"latency":"slow"}}`},
		{"POST", "/proxies/a/toxics", `{"type":"latency","name":"x","toxicity":"all"}`},
		{"POST", "/proxies/a/toxics", ``},
		{"POST", "/proxies/a/toxics", `{"name":"bw","type":"bandwidth","attributes":{"rate":10}}`},
		{"POST", "/proxies/a/toxics", `{"name":"sc","type":"slow_close","stream":"upstream","attributes":{"delay":200}}`},
		{"POST", "/proxies/a/toxics", `{"name":"to","type":"timeout","attributes":{"timeout":1000}}`},
		{"POST", "/proxies/a/toxics", `{"name":"rp","type":"reset_peer","attributes":{"timeout":10}}`},
		{"POST", "/proxies/a/toxics", `{"name":"sl","type":"slicer","attributes":{"average_size":64,"size_variation":16,"delay":10}}`},
		{"POST", "/proxies/a/toxics", `{"name":"ld","type":"limit_data","toxicity":0.25,"attributes":{"bytes":4096},"unknown":1}`},
		{"POST", "/proxies/nope/toxics", `{"type":"latency"}`},
		{"GET", "/proxies/a/toxics", ""},
		{"GET", "/proxies/a/toxics/bw", ""},
		{"GET", "/proxies/a/toxics/nope", ""},
		{"GET", "/proxies/nope/toxics", ""},
		{"POST", "/proxies/a/toxics/latency_downstream", `{"attributes":{"latency":1000}}`},
		{"POST", "/proxies/a/toxics/latency_downstream", `{"toxicity":0.5}`},
		{"POST", "/proxies/a/toxics/latency_downstream", `{"attributes":null,"name":"renamed","type":"slicer"}`},
		{"POST", "/proxies/a/toxics/sl", `{"attributes":{"average_size":32}}`},
		{"POST", "/proxies/a/toxics/sl", `{"attributes":{"delay":"x"}}`},
		{"POST", "/proxies/a/toxics/nope", `{}`},
		{"DELETE", "/proxies/a/toxics/bw", ""},
		{"DELETE", "/proxies/a/toxics/bw", ""},
		{"GET", "/proxies/a", ""},
		{"POST", "/proxies/a", `{"enabled":false}`},
		{"POST", "/proxies/a", `{"enabled":true}`},
		{"POST", "/proxies/a", `{"upstream":"127.0.0.1:20009"}`},
		{"POST", "/proxies/a", `{"enabled":"yes"}`},
		{"POST", "/proxies/nope", `{}`},
		{"POST", "/populate", `[{"name":"d","listen":"` + d + `","upstream":"127.0.0.1:20004"},{"name":"e","listen":"` + e + `","upstream":"127.0.0.1:20005","enabled":false}]`},
		{"POST", "/populate", `[{"name":"f","upstream":"127.0.0.1:1"},{"listen":"127.0.0.1:0"}]`},
		{"POST", "/populate", `[{"name":"f"}]`},
		{"POST", "/populate", ``},
		{"POST", "/populate", `{}`},
		{"POST", "/populate", `[]`},
		{"POST", "/proxies/a", `{"enabled":false}`},
		{"POST", "/reset", ""},
		{"GET", "/proxies", ""},
		{"DELETE", "/proxies/a", ""},
		{"DELETE", "/proxies/a", ""},
		{"GET", "/proxies/a/toxics", ""},
		{"GET", "/nothing", ""},
		{"PUT", "/proxies", ""},
		{"DELETE", "/reset", ""},
		{"GET", "/version", ""},
	}

	ts := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	want := play(t, toxiproxyRouter(ts), steps)
	if err := ts.Collection.Clear(); err != nil {
		t.Fatal(err)
	}

	p, err := proxy.New(proxy.Config{AllowNoNodes: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	got := play(t, p.ToxiproxyHandler(""), steps)

	for i, s := range steps {
		w, g := want[i], got[i]
		if s.path == "/version" { // toxiproxy built without its release's ldflags says "git"
			w.body = strings.Replace(w.body, toxiproxy.Version, proxy.ToxiproxyVersion, 1)
		}
		if w != g {
			t.Errorf("step %d: %s %s %s\n toxiproxy: %s\n failsim:   %s", i, s.method, s.path, s.body, w, g)
		}
	}
}

// TestToxiproxyAPIRefusesBrowsers: toxiproxy answers a browser's User-Agent with 403, so that
// a web page cannot drive it; failsim also refuses any request with an Origin header.
func TestToxiproxyAPIRefusesBrowsers(t *testing.T) {
	p, err := proxy.New(proxy.Config{AllowNoNodes: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	h := p.ToxiproxyHandler("")
	for _, hdr := range []http.Header{
		{"User-Agent": {"Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0"}},
		{"User-Agent": {"curl/8"}, "Origin": {"http://evil.example"}},
	} {
		req := httptest.NewRequest("POST", "/proxies", strings.NewReader(`{"name":"a","upstream":"127.0.0.1:1"}`))
		req.Header = hdr
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusForbidden || rec.Body.String() != "User agent not allowed\n" {
			t.Errorf("%v: %d %q", hdr, rec.Code, rec.Body.String())
		}
	}
	if len(p.Nodes()) != 0 {
		t.Fatal("a refused request created a proxy")
	}
	req := httptest.NewRequest("GET", "/proxies", nil)
	req.Header.Set("User-Agent", "Wget/2.1")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Errorf("wget: %d", rec.Code)
	}
}
