package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
)

// DefaultToxiproxyAddr is toxiproxy's own API address, where its clients look by default.
const DefaultToxiproxyAddr = "127.0.0.1:8474"

// ToxiproxyVersion is what GET /version answers: the toxiproxy release whose API this is.
const ToxiproxyVersion = "2.5.0"

// The toxiproxy API's bodies are bounded: a proxy or a toxic is a few hundred bytes; a
// populate's array is bounded like a config file.
const (
	maxToxiproxyBody    = 64 << 10
	maxToxiproxyPopBody = 1 << 20
)

// toxiproxy's refusals of a proxy (api.go), each answered with its status.
var (
	errProxyNotFound      = errors.New("proxy not found")
	errProxyAlreadyExists = errors.New("proxy already exists")
	errMissingField       = errors.New("missing required field")
)

// tpError is toxiproxy's error body (api.go: ApiError).
type tpError struct {
	Message    string `json:"error"`
	StatusCode int    `json:"status"`
}

// tpProxy is a proxy with its toxics as toxiproxy writes it (api.go: proxyToxics).
type tpProxy struct {
	Name     string `json:"name"`
	Listen   string `json:"listen"`
	Upstream string `json:"upstream"`
	Enabled  bool   `json:"enabled"`
	// Logger is toxiproxy's: v2.5.0 writes its proxy's exported *zerolog.Logger, which
	// encodes as {}. Clients ignore it; it is here to be byte for byte what they get.
	Logger struct{}  `json:"Logger"`
	Toxics []tpToxic `json:"toxics"`
}

// tpToxic is a toxic as toxiproxy writes it (toxics/toxic.go: ToxicWrapper), the attributes
// first, the toxicity a float32.
type tpToxic struct {
	Attributes toxicAttrs `json:"attributes"`
	Name       string     `json:"name"`
	Type       string     `json:"type"`
	Stream     string     `json:"stream"`
	Toxicity   float32    `json:"toxicity"`
}

// ToxiproxyHandler returns toxiproxy's HTTP API (api.go of Shopify/toxiproxy v2.5.0) over
// the proxy's nodes, a proxy being a node:
//
//	GET    /proxies                          every proxy with its toxics, a map by name
//	POST   /proxies                          create one: {name, listen, upstream, enabled}; 201
//	POST   /populate                         create or replace many: an array; 201 {"proxies": [...]}
//	GET    /proxies/{proxy}                  one proxy with its toxics
//	POST   /proxies/{proxy}                  update listen, upstream, enabled (PATCH too)
//	DELETE /proxies/{proxy}                  remove it; 204
//	GET    /proxies/{proxy}/toxics           its toxics, upstream's then downstream's
//	POST   /proxies/{proxy}/toxics           add one: {name, type, stream, toxicity, attributes}
//	GET    /proxies/{proxy}/toxics/{toxic}   one toxic
//	POST   /proxies/{proxy}/toxics/{toxic}   update its attributes and toxicity (PATCH too)
//	DELETE /proxies/{proxy}/toxics/{toxic}   remove it; 204
//	POST   /reset                            every proxy enabled, every toxic removed; 204
//	GET    /version                          ToxiproxyVersion, as text
//
// The bodies, statuses and error bodies ({"error": msg, "status": code}, written as
// toxiproxy writes them) are toxiproxy's, and so are its defaults (a new proxy enabled, a
// new toxic downstream with toxicity 1 named "<type>_<stream>") and its refusal of
// browsers (a User-Agent starting "Mozilla/" gets 403). What failsim checks on top is
// answered with 400 and failsim's message: names as checkName allows them, numeric ports,
// listen addresses on loopback unless Config.AllowNonLoopback (an empty listen is
// 127.0.0.1:0), attributes in range. A request from a web page (an Origin header) gets 403
// too. Bodies are bounded (64 KiB, a populate 1 MiB; 413 beyond).
//
// A token, cleaned as CleanToken does, is then required as "Authorization: Bearer TOKEN" (a
// 401 closes the connection); an empty one requires none. ServeToxiproxy decides which.
func (p *Proxy) ToxiproxyHandler(token string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /proxies", p.tpProxyIndex)
	mux.HandleFunc("POST /proxies", p.tpProxyCreate)
	mux.HandleFunc("POST /populate", p.tpPopulate)
	mux.HandleFunc("GET /proxies/{proxy}", p.tpProxyShow)
	mux.HandleFunc("POST /proxies/{proxy}", p.tpProxyUpdate)
	mux.HandleFunc("PATCH /proxies/{proxy}", p.tpProxyUpdate)
	mux.HandleFunc("DELETE /proxies/{proxy}", p.tpProxyDelete)
	mux.HandleFunc("GET /proxies/{proxy}/toxics", p.tpToxicIndex)
	mux.HandleFunc("POST /proxies/{proxy}/toxics", p.tpToxicCreate)
	mux.HandleFunc("GET /proxies/{proxy}/toxics/{toxic}", p.tpToxicShow)
	mux.HandleFunc("POST /proxies/{proxy}/toxics/{toxic}", p.tpToxicUpdate)
	mux.HandleFunc("PATCH /proxies/{proxy}/toxics/{toxic}", p.tpToxicUpdate)
	mux.HandleFunc("DELETE /proxies/{proxy}/toxics/{toxic}", p.tpToxicDelete)
	mux.HandleFunc("POST /reset", p.tpReset)
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain;charset=utf-8")
		io.WriteString(w, ToxiproxyVersion)
	})
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.UserAgent(), "Mozilla/") || r.Header.Get("Origin") != "" {
			http.Error(w, "User agent not allowed", http.StatusForbidden)
			return
		}
		if _, pattern := mux.Handler(r); pattern == "" {
			tpNoRoute(w, r, mux)
			return
		}
		mux.ServeHTTP(w, r)
	})
	return withToken(token, api, func(w http.ResponseWriter) {
		tpWriteError(w, http.StatusUnauthorized, "missing or wrong control token")
	})
}

// ServeToxiproxy serves ToxiproxyHandler on ln until ctx is done, with ServeControl's bounds,
// then returns nil; it returns early with an error if ln fails. On loopback it asks no
// token, whatever token is, since toxiproxy's clients send none. Anywhere else it serves only
// with Config.AllowNonLoopback and a token, which every call must then bear; otherwise it
// closes ln and returns an error at once.
func (p *Proxy) ServeToxiproxy(ctx context.Context, ln net.Listener, token string) error {
	clean, err := CleanToken(token)
	if err != nil {
		ln.Close()
		return err
	}
	if a, ok := ln.Addr().(*net.TCPAddr); !ok || a.IP.IsLoopback() {
		clean = ""
	} else if !p.anyAddress || clean == "" {
		ln.Close()
		return fmt.Errorf("toxiproxy API on %s: not a loopback address: it needs AllowNonLoopback and a token", a)
	}
	return p.serveBounded(ctx, ln, p.ToxiproxyHandler(clean), "toxiproxy")
}

// tpNoRoute answers a request no route takes as toxiproxy's router (gorilla/mux) does: 405
// with no body if the path exists for another method, else 404 "404 page not found".
func tpNoRoute(w http.ResponseWriter, r *http.Request, mux *http.ServeMux) {
	h, _ := mux.Handler(r)
	rec := &statusRecorder{header: http.Header{}}
	h.ServeHTTP(rec, r)
	if rec.code == http.StatusMethodNotAllowed {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	http.NotFound(w, r)
}

// tpWriteJSON writes v as toxiproxy does: compact, no newline.
func tpWriteJSON(w http.ResponseWriter, code int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		tpWriteError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(data)
}

// tpWriteError writes an error as toxiproxy's apiError does, through http.Error.
func tpWriteError(w http.ResponseWriter, code int, msg string) {
	data, _ := json.Marshal(tpError{msg, code})
	w.Header().Set("Content-Type", "application/json")
	http.Error(w, string(data), code)
}

// tpFail answers err with its status (tpStatus).
func tpFail(w http.ResponseWriter, err error) {
	code, msg := tpStatus(err)
	tpWriteError(w, code, msg)
}

// tpStatus returns the status and message toxiproxy answers err with: toxiproxy's errors
// with theirs, a failure to bind with 500 and the system's message (toxiproxy's "listen tcp
// ...: bind: address already in use"), the rest of failsim's checks with 400.
func tpStatus(err error) (int, string) {
	code := http.StatusBadRequest
	msg := err.Error()
	var op *net.OpError
	var tooBig *http.MaxBytesError
	switch {
	case errors.Is(err, errProxyNotFound), errors.Is(err, ErrNodeNotFound):
		code, msg = http.StatusNotFound, errProxyNotFound.Error()
	case errors.Is(err, ErrToxicNotFound):
		code, msg = http.StatusNotFound, "toxic not found"
	case errors.Is(err, errProxyAlreadyExists), errors.Is(err, ErrNodeExists):
		code, msg = http.StatusConflict, errProxyAlreadyExists.Error()
	case errors.Is(err, ErrToxicExists):
		code, msg = http.StatusConflict, "toxic already exists"
	case errors.Is(err, ErrModeStandsAlone):
		code = http.StatusConflict
	case errors.As(err, &tooBig):
		code, msg = http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than %d bytes", tooBig.Limit)
	case errors.As(err, &op):
		code, msg = http.StatusInternalServerError, op.Error()
	case errors.Is(err, errClosed):
		code = http.StatusInternalServerError
	}
	return code, msg
}

// readBody reads the request's body, at most limit bytes.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	return io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
}

// tpToxicOf writes t as toxiproxy does.
func tpToxicOf(t Toxic) tpToxic {
	return tpToxic{Attributes: attrsFor(t.Fault), Name: t.Name, Type: t.Type, Stream: t.Stream.String(), Toxicity: float32(t.Toxicity)}
}

// tpToxics writes a node's toxics, [] when it has none.
func tpToxics(n *Node) []tpToxic {
	ts := n.Toxics()
	out := make([]tpToxic, 0, len(ts))
	for _, t := range ts {
		out = append(out, tpToxicOf(t))
	}
	return out
}

// tpProxyOf writes n as toxiproxy writes a proxy with its toxics.
func tpProxyOf(n *Node) tpProxy {
	return tpProxy{Name: n.Name(), Listen: n.Addr(), Upstream: n.Upstream(), Enabled: n.Enabled(), Toxics: tpToxics(n)}
}

// node returns the request's {proxy}, or answers 404.
func (p *Proxy) tpNode(w http.ResponseWriter, r *http.Request) (*Node, bool) {
	n, ok := p.Node(r.PathValue("proxy"))
	if !ok {
		tpFail(w, errProxyNotFound)
	}
	return n, ok
}

func (p *Proxy) tpProxyIndex(w http.ResponseWriter, _ *http.Request) {
	all := map[string]tpProxy{}
	for _, n := range p.Nodes() {
		all[n.Name()] = tpProxyOf(n)
	}
	tpWriteJSON(w, http.StatusOK, all)
}

// tpProxyBody is a proxy in a request body (toxiproxy's Proxy: name, listen, upstream,
// enabled). Its type name is toxiproxy's, which encoding/json names in its errors.
type tpProxyBody = struct {
	Name     string `json:"name"`
	Listen   string `json:"listen"`
	Upstream string `json:"upstream"`
	Enabled  bool   `json:"enabled"`
}

// nodeConfig turns a proxy's body into a node, checked as AddNode checks one.
func (p *Proxy) tpNodeConfig(b tpProxyBody) (NodeConfig, error) {
	nc := NodeConfig{Name: b.Name, Listen: b.Listen, Upstream: b.Upstream, Disabled: !b.Enabled}
	if nc.Listen == "" {
		nc.Listen = "127.0.0.1:0" // toxiproxy: any free port, on every interface
	}
	if err := checkName(nc.Name); err != nil {
		return nc, err
	}
	if err := nc.validate(); err != nil {
		return nc, fmt.Errorf("proxy %s: %w", nc.Name, err)
	}
	if !p.anyAddress {
		if err := nc.CheckLoopback(); err != nil {
			return nc, fmt.Errorf("proxy %s: %w", nc.Name, err)
		}
	}
	return nc, nil
}

func (p *Proxy) tpProxyCreate(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r, maxToxiproxyBody)
	if err != nil {
		tpFail(w, err)
		return
	}
	type Proxy tpProxyBody
	in := Proxy{Enabled: true}
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&in); err != nil {
		tpFail(w, badBody(err))
		return
	}
	switch {
	case in.Name == "":
		tpFail(w, fmt.Errorf("%w: name", errMissingField))
		return
	case in.Upstream == "":
		tpFail(w, fmt.Errorf("%w: upstream", errMissingField))
		return
	}
	nc, err := p.tpNodeConfig(tpProxyBody(in))
	if err != nil {
		tpFail(w, err)
		return
	}
	n, err := p.AddNode(nc)
	if err != nil {
		tpFail(w, err)
		return
	}
	tpWriteJSON(w, http.StatusCreated, tpProxyOf(n))
}

func (p *Proxy) tpPopulate(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r, maxToxiproxyPopBody)
	if err != nil {
		tpFail(w, err)
		return
	}
	ncs, err := p.tpDecodePopulate(body)
	var made []tpProxy
	if err == nil {
		made, err = p.populate(ncs)
	}
	type populated struct {
		*tpError `json:",omitempty"`
		Proxies  []tpProxy `json:"proxies"`
	}
	if err != nil {
		code, msg := tpStatus(err)
		tpWriteJSON(w, code, populated{&tpError{msg, code}, made})
		return
	}
	tpWriteJSON(w, http.StatusCreated, populated{nil, made})
}

// tpDecodePopulate reads a populate's array as toxiproxy's PopulateJson does (a missing
// enabled is true; every name and upstream given), then checks every entry as AddNode
// would, so that bad input creates nothing.
func (p *Proxy) tpDecodePopulate(body []byte) ([]NodeConfig, error) {
	type Proxy tpProxyBody
	var in []struct {
		Proxy
		Enabled *bool `json:"enabled"`
	}
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&in); err != nil {
		return nil, badBody(err)
	}
	for i, e := range in {
		switch {
		case e.Name == "":
			return nil, fmt.Errorf("%w: name at proxy %d", errMissingField, i+1)
		case e.Upstream == "":
			return nil, fmt.Errorf("%w: upstream at proxy %d", errMissingField, i+1)
		}
	}
	ncs := make([]NodeConfig, len(in))
	for i, e := range in {
		b := tpProxyBody(e.Proxy)
		b.Enabled = e.Enabled == nil || *e.Enabled
		nc, err := p.tpNodeConfig(b)
		if err != nil {
			return nil, fmt.Errorf("%w at proxy %d", err, i+1)
		}
		ncs[i] = nc
	}
	return ncs, nil
}

// populate creates or replaces each node in order, as toxiproxy's AddOrReplace does: a node
// of that name with the same listen and upstream stays as it is, toxics and all; another is
// removed and made anew. It stops at the first failure, returning the nodes made before it.
func (p *Proxy) populate(ncs []NodeConfig) ([]tpProxy, error) {
	var made []tpProxy
	for _, nc := range ncs {
		if old, ok := p.Node(nc.Name); ok {
			if old.Addr() == nc.Listen && old.Upstream() == nc.Upstream {
				made = append(made, tpProxyOf(old))
				continue
			}
			if err := p.RemoveNode(nc.Name); err != nil && !errors.Is(err, ErrNodeNotFound) {
				return made, err
			}
		}
		n, err := p.AddNode(nc)
		if err != nil {
			return made, err
		}
		made = append(made, tpProxyOf(n))
	}
	return made, nil
}

func (p *Proxy) tpProxyShow(w http.ResponseWriter, r *http.Request) {
	if n, ok := p.tpNode(w, r); ok {
		tpWriteJSON(w, http.StatusOK, tpProxyOf(n))
	}
}

func (p *Proxy) tpProxyUpdate(w http.ResponseWriter, r *http.Request) {
	n, ok := p.tpNode(w, r)
	if !ok {
		return
	}
	body, err := readBody(w, r, maxToxiproxyBody)
	if err != nil {
		tpFail(w, err)
		return
	}
	// What the body leaves out stays as it is.
	type Proxy tpProxyBody
	in := Proxy{Listen: n.Addr(), Upstream: n.Upstream(), Enabled: n.Enabled()}
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&in); err != nil {
		tpFail(w, badBody(err))
		return
	}
	if in.Listen == "" {
		in.Listen = "127.0.0.1:0"
	}
	if err := n.Update(in.Listen, in.Upstream, in.Enabled); err != nil {
		tpFail(w, err)
		return
	}
	tpWriteJSON(w, http.StatusOK, tpProxyOf(n))
}

func (p *Proxy) tpProxyDelete(w http.ResponseWriter, r *http.Request) {
	if err := p.RemoveNode(r.PathValue("proxy")); err != nil {
		tpFail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (p *Proxy) tpToxicIndex(w http.ResponseWriter, r *http.Request) {
	if n, ok := p.tpNode(w, r); ok {
		tpWriteJSON(w, http.StatusOK, tpToxics(n))
	}
}

func (p *Proxy) tpToxicCreate(w http.ResponseWriter, r *http.Request) {
	n, ok := p.tpNode(w, r)
	if !ok {
		return
	}
	body, err := readBody(w, r, maxToxiproxyBody)
	if err != nil {
		tpFail(w, err)
		return
	}
	t, err := decodeNewToxic(body, func(name string) bool { _, ok := n.Toxic(name); return ok })
	if err != nil {
		tpFail(w, err)
		return
	}
	t, err = n.AddToxic(t)
	if err != nil {
		tpFail(w, err)
		return
	}
	tpWriteJSON(w, http.StatusOK, tpToxicOf(t))
}

func (p *Proxy) tpToxicShow(w http.ResponseWriter, r *http.Request) {
	n, ok := p.tpNode(w, r)
	if !ok {
		return
	}
	t, ok := n.Toxic(r.PathValue("toxic"))
	if !ok {
		tpFail(w, ErrToxicNotFound)
		return
	}
	tpWriteJSON(w, http.StatusOK, tpToxicOf(t))
}

func (p *Proxy) tpToxicUpdate(w http.ResponseWriter, r *http.Request) {
	n, ok := p.tpNode(w, r)
	if !ok {
		return
	}
	body, err := readBody(w, r, maxToxiproxyBody)
	if err != nil {
		tpFail(w, err)
		return
	}
	old, ok := n.Toxic(r.PathValue("toxic"))
	if !ok {
		tpFail(w, ErrToxicNotFound)
		return
	}
	t, err := decodeToxicUpdate(body, old)
	if err != nil {
		tpFail(w, err)
		return
	}
	t, err = n.UpdateToxic(old.Name, t)
	if err != nil {
		tpFail(w, err)
		return
	}
	tpWriteJSON(w, http.StatusOK, tpToxicOf(t))
}

func (p *Proxy) tpToxicDelete(w http.ResponseWriter, r *http.Request) {
	n, ok := p.tpNode(w, r)
	if !ok {
		return
	}
	if err := n.RemoveToxic(r.PathValue("toxic")); err != nil {
		tpFail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// tpReset enables every node and removes every toxic, in name order, as toxiproxy's
// ResetState does; it stops at a node that cannot listen again.
func (p *Proxy) tpReset(w http.ResponseWriter, _ *http.Request) {
	for _, n := range p.Nodes() {
		if err := n.SetEnabled(true); err != nil && !errors.Is(err, errClosed) {
			tpFail(w, err)
			return
		}
		n.ResetToxics()
	}
	w.WriteHeader(http.StatusNoContent)
}
