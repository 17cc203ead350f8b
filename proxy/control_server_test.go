package proxy

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/internal/fakemysql"
)

// call sends one raw HTTP request on a fresh connection and returns the response, its JSON
// error body if any, and the connection (still open, for the caller to check).
func call(t *testing.T, addr, method, path, token, body string) (*http.Response, ErrorBody, net.Conn) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, wait)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	req, _ := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if err := req.Write(c); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var eb ErrorBody
	if resp.StatusCode != http.StatusOK {
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s %s: %d with Content-Type %q: %s", method, path, resp.StatusCode, ct, data)
		}
		if err := json.Unmarshal(data, &eb); err != nil || eb.Error == "" {
			t.Errorf("%s %s: %d with a body that is not {\"error\": ...}: %q", method, path, resp.StatusCode, data)
		}
	}
	return resp, eb, c
}

// serveControl runs ServeControl on a loopback port until the test ends.
func serveControl(t *testing.T, p *Proxy, token string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.ServeControl(ctx, ln, token) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeControl: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("ServeControl did not stop within 20 s of its context")
		}
	})
	return ln.Addr().String()
}

// TestControlErrorsAreJSON: every refusal is {"error": ...}, including the router's own 404
// and 405; query parameters and loose bodies are refused; a 401 closes the connection.
func TestControlErrorsAreJSON(t *testing.T) {
	p, _ := start(t, fake(t, fakemysql.Config{}), "heal")
	addr := serveControl(t, p, "s3cret")
	for _, tc := range []struct {
		method, path, body string
		code               int
		want               string
	}{
		{"GET", "/v2/nodes", "", 404, `no such path "/v2/nodes"`},
		{"GET", "/", "", 404, `no such path "/"`},
		{"GET", "/v1/nodes/nope", "", 404, `no node "nope"`},
		{"DELETE", "/v1/nodes/db", "", 405, "DELETE /v1/nodes/db: method not allowed; allowed: GET, HEAD"},
		{"GET", "/v1/nodes/db/mode", "", 405, "GET /v1/nodes/db/mode: method not allowed; allowed: PUT"},
		{"GET", "/v1/nodes?verbose=1", "", 400, `/v1/nodes takes no query parameters, got "verbose=1"`},
		{"GET", "/v1/nodes/db?x=1&x=2", "", 400, `/v1/nodes/db takes no query parameters, got "x=1&x=2"`},
		{"PUT", "/v1/nodes/db/mode?mode=stall", `{"mode":"freeze"}`, 400, "takes no query parameters"},
		{"PUT", "/v1/nodes/db/mode", `{"mode":"freeze"} trailing`, 400, "body: want {\"mode\": \"...\"}: more after the JSON object"},
		{"PUT", "/v1/nodes/db/mode", `{"mode":"freeze"}{"mode":"heal"}`, 400, "more after the JSON object"},
		{"PUT", "/v1/nodes/db/mode", `{"mode":"freeze","mode":"heal"}`, 400, `"mode" given twice`},
		{"PUT", "/v1/nodes/db/mode", `{"mode":"freeze","force":true}`, 400, `unknown field "force"`},
		{"PUT", "/v1/nodes/db/mode", `{"Mode":"freeze"}`, 400, `unknown field "Mode"`},
		{"PUT", "/v1/nodes/db/mode", `{"mode":7}`, 400, `"mode" is not a string`},
		{"PUT", "/v1/nodes/db/mode", `{}`, 400, `no "mode"`},
		{"PUT", "/v1/nodes/db/mode", `{"mode":"freeze"`, 400, "unexpected EOF"},
		{"PUT", "/v1/nodes/db/mode", `["freeze"]`, 400, "not a JSON object"},
		{"PUT", "/v1/nodes/db/mode", ``, 400, "unexpected EOF"},
		{"PUT", "/v1/nodes/db/mode", `{"mode":"reset p 0.5 p 0.7"}`, 400, `"p" given twice`},
		{"PUT", "/v1/nodes/db/mode", `{"mode":"` + strings.Repeat("x", maxBodyBytes) + `"}`, 413, "body: larger than 4096 bytes"},
	} {
		resp, eb, _ := call(t, addr, tc.method, tc.path, "s3cret", tc.body)
		if resp.StatusCode != tc.code || !strings.Contains(eb.Error, tc.want) {
			t.Errorf("%s %s %.40q: %d %q, want %d %q", tc.method, tc.path, tc.body, resp.StatusCode, eb.Error, tc.code, tc.want)
		}
		if tc.code == 405 && resp.Header.Get("Allow") == "" {
			t.Errorf("%s %s: 405 without Allow", tc.method, tc.path)
		}
	}
	if n, _ := p.Node("db"); n.Mode().String() != "heal" {
		t.Errorf("a refused call changed the mode to %s", n.Mode())
	}
	resp, _, _ := call(t, addr, "PUT", "/v1/nodes/db/mode", "s3cret", " {\"mode\": \"stall\"}\n")
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a good body with surrounding whitespace: %d", resp.StatusCode)
	}

	// 401 for a missing or wrong token, also for paths that do not exist; then the
	// connection closes.
	for _, token := range []string{"", "wrong", "s3cret2"} {
		for _, path := range []string{"/v1/nodes", "/nope"} {
			resp, eb, c := call(t, addr, "GET", path, token, "")
			if resp.StatusCode != http.StatusUnauthorized || eb.Error != "missing or wrong control token" {
				t.Errorf("token %q, %s: %d %q", token, path, resp.StatusCode, eb.Error)
			}
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			if k, err := c.Read(make([]byte, 1)); k != 0 || !errors.Is(err, io.EOF) {
				t.Errorf("token %q, %s: after the 401 the connection gave %d bytes, %v; want EOF", token, path, k, err)
			}
		}
	}
}

// TestControlTokenWhitespace: surrounding whitespace is not part of a token, on either side;
// a token of whitespace only is no token.
func TestControlTokenWhitespace(t *testing.T) {
	p, _ := start(t, fake(t, fakemysql.Config{}), "heal")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	hc := &http.Client{Timeout: 10 * time.Second}
	srv := httptest.NewServer(p.Handler(" s3cret\n"))
	defer srv.Close()
	for _, token := range []string{"s3cret", " s3cret", "s3cret\n"} {
		if _, err := (&Client{Addr: srv.URL, Token: token, HTTP: hc}).Nodes(ctx); err != nil {
			t.Errorf("token %q: %v", token, err)
		}
	}
	if _, err := (&Client{Addr: srv.URL, HTTP: hc}).Nodes(ctx); err == nil {
		t.Error("no token was accepted")
	}
	open := httptest.NewServer(p.Handler(" \t"))
	defer open.Close()
	if _, err := (&Client{Addr: open.URL, HTTP: hc}).Nodes(ctx); err != nil {
		t.Errorf("a whitespace token should be no token: %v", err)
	}
	bad := httptest.NewServer(p.Handler("s3 cret"))
	defer bad.Close()
	for _, token := range []string{"", "s3 cret", "s3"} {
		if _, err := (&Client{Addr: bad.URL, Token: token, HTTP: hc}).Nodes(ctx); err == nil {
			t.Errorf("a token CleanToken refuses matched %q", token)
		}
	}
}

// offLoopback is a loopback listener that claims a public address.
type offLoopback struct{ net.Listener }

func (offLoopback) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 7480} }

func TestServeControlRefusesOpenPublicAPI(t *testing.T) {
	p, _ := start(t, fake(t, fakemysql.Config{}), "heal")
	for _, token := range []string{"", "  \n"} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		err = p.ServeControl(context.Background(), offLoopback{ln}, token)
		if err == nil || err.Error() != "control API on 192.0.2.1:7480: not a loopback address, and no control token" {
			t.Errorf("token %q: %v", token, err)
		}
		if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
			t.Errorf("the listener was left open: %v", err)
		}
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	if err := p.ServeControl(context.Background(), ln, "a\x00b"); err == nil {
		t.Error("a token with a NUL was served")
	}
}

// TestServeControlBounds: idle and slow connections are closed after the header timeout;
// past the cap the oldest idle connections are evicted, and a caller with a request still
// gets through.
func TestServeControlBounds(t *testing.T) {
	p, _ := start(t, fake(t, fakemysql.Config{}), "heal")
	addr := serveControl(t, p, "s3cret")

	silent, err := net.DialTimeout("tcp", addr, wait)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	slow, err := net.DialTimeout("tcp", addr, wait)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	slow.Write([]byte("GET /v1/nodes HTTP/1.1\r\nHost: x\r\n")) // and never the end of the header

	// A flood of idle connections: the server holds at most maxControlConns of them.
	const flood = 4 * maxControlConns
	conns := make([]net.Conn, 0, flood)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range flood {
		c, err := net.DialTimeout("tcp", addr, wait)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := &Client{Addr: addr, Token: "s3cret", HTTP: &http.Client{Timeout: 10 * time.Second}}
	if _, err := c.Nodes(ctx); err != nil {
		t.Fatalf("an authenticated call during the flood: %v", err)
	}
	closed := 0
	for _, fc := range conns {
		fc.SetReadDeadline(time.Now().Add(silence))
		if _, err := fc.Read(make([]byte, 1)); !isTimeout(err) {
			closed++
		}
	}
	if closed < flood-maxControlConns {
		t.Errorf("the server closed %d of %d idle connections, want at least %d", closed, flood, flood-maxControlConns)
	}

	// The first two were evicted by the flood long ago, or closed by the header timeout.
	for name, c := range map[string]net.Conn{"silent": silent, "slow": slow} {
		c.SetReadDeadline(time.Now().Add(controlReadHeaderTimeout + 15*time.Second))
		if _, err := io.ReadAll(c); isTimeout(err) {
			t.Errorf("%s connection: still open %v after its header was due", name, controlReadHeaderTimeout+15*time.Second)
		}
	}
}

// TestServeControlHeaderTimeout: a connection that never sends a whole header is closed
// within the header timeout (and a margin), though nothing else pushes it out.
func TestServeControlHeaderTimeout(t *testing.T) {
	p, _ := start(t, fake(t, fakemysql.Config{}), "heal")
	addr := serveControl(t, p, "")
	firsts := []string{"", "GET /v1/nodes HTTP/1.1\r\n"}
	conns := make([]net.Conn, len(firsts))
	for i, first := range firsts {
		c, err := net.DialTimeout("tcp", addr, wait)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write([]byte(first))
		c.SetReadDeadline(time.Now().Add(controlReadHeaderTimeout + 15*time.Second))
		conns[i] = c
	}
	for i, c := range conns {
		if _, err := io.ReadAll(c); isTimeout(err) {
			t.Errorf("sent %q: still open %v later", firsts[i], controlReadHeaderTimeout+15*time.Second)
		}
	}
}
