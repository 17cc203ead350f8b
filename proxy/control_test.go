package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/internal/fakemysql"
)

func TestControlAPI(t *testing.T) {
	p, n := start(t, fake(t, fakemysql.Config{}), "heal")
	srv := httptest.NewServer(p.Handler("s3cret"))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hc := &http.Client{Timeout: 5 * time.Second}
	c := &Client{Addr: srv.URL, Token: "s3cret", HTTP: hc}

	newRaw(mustDial(t, n.Addr())).login(t)
	st, err := c.SetMode(ctx, "db", "freeze after 10 bytes")
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode != "freeze after 10 bytes" || st.Accepted != 1 || st.Open != 1 || st.BytesDown == 0 {
		t.Errorf("status after set: %+v", st)
	}
	nodes, err := c.Nodes(ctx)
	if err != nil || len(nodes) != 1 || nodes[0].Name != "db" || nodes[0].Upstream == "" {
		t.Fatalf("nodes: %+v %v", nodes, err)
	}
	if got := n.Mode().String(); got != "freeze after 10 bytes" {
		t.Errorf("node mode %q", got)
	}
	for _, tc := range []struct{ node, mode, want string }{
		{"db", "explode", `unknown fault "explode"`},
		{"db", "hostdown", "simulator-only"},
		{"db", "freeze p 0.5", "takes no probability"},
		{"nope", "heal", `no node "nope"`},
	} {
		_, err := c.SetMode(ctx, tc.node, tc.mode)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !IsAPIError(err) {
			t.Errorf("set %s %s: %v, want %q", tc.node, tc.mode, err, tc.want)
		}
	}
	if _, err := c.Node(ctx, "nope"); err == nil {
		t.Error("status of an unknown node succeeded")
	}

	bad := &Client{Addr: srv.URL, Token: "wrong", HTTP: hc}
	if _, err := bad.Nodes(ctx); err == nil || !strings.Contains(err.Error(), "control token") {
		t.Errorf("wrong token: %v", err)
	}
	req, _ := http.NewRequest("GET", srv.URL+"/metrics", nil)
	if resp, err := hc.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("metrics without token: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`failsim_proxy_connections_accepted_total{node="db"} 1`,
		`failsim_proxy_open_connections{node="db"} 1`,
		`failsim_proxy_mode{fault="freeze",mode="freeze after 10 bytes",node="db"} 1`,
		`failsim_proxy_mode{fault="heal",mode="",node="db"} 0`,
		`failsim_proxy_faults_injected_total{fault="stall",node="db"} 0`,
		`# TYPE failsim_proxy_bytes_total counter`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %q:\n%s", want, body)
		}
	}
}

func TestParseModeRoundTrip(t *testing.T) {
	for _, s := range []string{"heal", "freeze", "slow 200ms", "error 1045", "freeze after 4096 bytes",
		"reset at command 3", "close p 0.1", "slow 50ms at command 2 p 0.5"} {
		m, err := parseModeString(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if m.String() != s {
			t.Errorf("%q reads back as %q", s, m.String())
		}
	}
	for _, s := range []string{"", "heal after 3 bytes", "freeze after 0 bytes", "freeze after 3",
		"reset at command 0", "reset at 2", "close p 2", "close p", "stall p 0.5",
		"freeze after 3 bytes at command 2", "unreachable", "slow"} {
		if _, err := parseModeString(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
	// A repeated argument is refused, never silently replaced by the last one.
	for s, want := range map[string]string{
		"reset p 0.5 p 0.7":                       `"p" given twice`,
		"freeze after 10 bytes after 20 bytes":    `"after" given twice`,
		"reset at command 2 at command 3":         `"at command" given twice`,
		"slow 1s at command 2 p 0.5 at command 2": `"at command" given twice`,
		"freeze at command 2 after 5 bytes":       `a mode takes one trigger: "after N bytes" or "at command K"`,
	} {
		if _, err := parseModeString(s); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", s, err, want)
		}
	}
}

// FuzzParseMode: no input panics, and a mode that parses writes itself back as words that
// parse to the same mode.
func FuzzParseMode(f *testing.F) {
	for _, s := range []string{"heal", "freeze after 4096 bytes", "slow 50ms at command 2 p 0.5",
		"reset p 0.5 p 0.7", "error 1045", "close p 1", "at command", "after 1 byte"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := parseModeString(s)
		if err != nil {
			return
		}
		back, err := parseModeString(m.String())
		if err != nil || back != m {
			t.Fatalf("%q parses as %+v, written %q, which reads back as %+v, %v", s, m, m.String(), back, err)
		}
	})
}

// FuzzDecodeSetMode: no body panics; a body accepted is valid JSON that encoding/json reads
// as the same request; and every request encoding/json writes is accepted as itself.
func FuzzDecodeSetMode(f *testing.F) {
	for _, s := range []string{`{"mode":"freeze"}`, ` {"mode": "slow 1s"} `, `{"mode":"a","mode":"b"}`,
		`{"mode":"x"} {}`, `{"mode":"x"}x`, `{"Mode":"x"}`, `{"mode":null}`, `{"mode":"\u00e9\n"}`, `[]`, ``} {
		f.Add([]byte(s), "stall")
	}
	f.Fuzz(func(t *testing.T, body []byte, mode string) {
		if req, err := decodeSetMode(bytes.NewReader(body)); err == nil {
			var std SetModeRequest
			if !json.Valid(body) || json.Unmarshal(body, &std) != nil || std != req {
				t.Fatalf("%q accepted as %+v; encoding/json reads %+v", body, req, std)
			}
		}
		enc, _ := json.Marshal(SetModeRequest{Mode: mode})
		req, err := decodeSetMode(bytes.NewReader(enc))
		if err != nil {
			t.Fatalf("%s refused: %v", enc, err)
		}
		var std SetModeRequest
		json.Unmarshal(enc, &std)
		if req != std {
			t.Fatalf("%s read as %+v, encoding/json reads %+v", enc, req, std)
		}
	})
}
