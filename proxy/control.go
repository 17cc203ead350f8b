package proxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// DefaultControlAddr is where the control API listens unless told otherwise.
const DefaultControlAddr = "127.0.0.1:7480"

// maxBodyBytes is the largest request body the control API reads.
const maxBodyBytes = 4096

// SetModeRequest is the body of PUT /v1/nodes/{name}/mode.
type SetModeRequest struct {
	Mode string `json:"mode"` // the mode in the words ParseMode reads, e.g. "freeze after 4096 bytes"
}

// NodeList is the body of GET /v1/nodes.
type NodeList struct {
	Nodes []NodeStatus `json:"nodes"` // sorted by name
}

// ErrorBody is the body of every failed call.
type ErrorBody struct {
	Error string `json:"error"`
}

// Handler returns the control plane:
//
//	GET /v1/nodes                 every node's status, sorted by name
//	GET /v1/nodes/{name}          one node's status
//	PUT /v1/nodes/{name}/mode     set the mode: {"mode": "freeze"}; answers the new status
//	GET /metrics                  Prometheus metrics
//
// Every failure is answered with an ErrorBody: 400 (a bad body, a bad mode, a query
// parameter), 401 (token), 404 (unknown node or path), 405 (method), 409 (the port cannot
// be re-bound), 413 (a body over 4 KiB). A body is exactly one JSON object with exactly one
// "mode" string: unknown or repeated fields and anything after the object are refused.
//
// A token, cleaned as CleanToken does, is then required on every call as "Authorization:
// Bearer TOKEN"; a 401 reply closes the connection. An empty token (or one of whitespace
// only) requires none; a token CleanToken refuses is matched by no call. ServeControl serves
// this handler with the bounds a server needs.
func (p *Proxy) Handler(token string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/nodes", func(w http.ResponseWriter, r *http.Request) {
		if !noQuery(w, r) {
			return
		}
		var l NodeList
		for _, n := range p.Nodes() {
			l.Nodes = append(l.Nodes, n.Status())
		}
		writeJSON(w, http.StatusOK, l)
	})
	mux.HandleFunc("GET /v1/nodes/{name}", func(w http.ResponseWriter, r *http.Request) {
		if !noQuery(w, r) {
			return
		}
		n, ok := p.Node(r.PathValue("name"))
		if !ok {
			writeError(w, http.StatusNotFound, fmt.Sprintf("no node %q", r.PathValue("name")))
			return
		}
		writeJSON(w, http.StatusOK, n.Status())
	})
	mux.HandleFunc("PUT /v1/nodes/{name}/mode", func(w http.ResponseWriter, r *http.Request) {
		if !noQuery(w, r) {
			return
		}
		n, ok := p.Node(r.PathValue("name"))
		if !ok {
			writeError(w, http.StatusNotFound, fmt.Sprintf("no node %q", r.PathValue("name")))
			return
		}
		req, err := decodeSetMode(http.MaxBytesReader(w, r.Body, maxBodyBytes))
		if err != nil {
			if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
				writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body: larger than %d bytes", maxBodyBytes))
				return
			}
			writeError(w, http.StatusBadRequest, `body: want {"mode": "..."}: `+err.Error())
			return
		}
		m, err := ParseMode(strings.Fields(req.Mode))
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		if err := n.SetMode(m); err != nil {
			writeError(w, http.StatusConflict, err.Error())
			return
		}
		writeJSON(w, http.StatusOK, n.Status())
	})
	mux.HandleFunc("GET /metrics", p.metricsHandler)
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern == "" {
			noRoute(w, r, mux)
			return
		}
		mux.ServeHTTP(w, r)
	})
	return withToken(token, api, func(w http.ResponseWriter) {
		writeError(w, http.StatusUnauthorized, "missing or wrong control token")
	})
}

// noRoute answers a request no route takes, in JSON: 405 if the path exists for another
// method (with the Allow header the mux computed), else 404.
func noRoute(w http.ResponseWriter, r *http.Request, mux *http.ServeMux) {
	h, _ := mux.Handler(r)
	rec := &statusRecorder{header: http.Header{}}
	h.ServeHTTP(rec, r)
	if rec.code == http.StatusMethodNotAllowed {
		allow := rec.header.Get("Allow")
		w.Header().Set("Allow", allow)
		writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s %s: method not allowed; allowed: %s", r.Method, r.URL.Path, allow))
		return
	}
	writeError(w, http.StatusNotFound, fmt.Sprintf("no such path %q: the API has /v1/nodes, /v1/nodes/{name}, /v1/nodes/{name}/mode and /metrics", r.URL.Path))
}

// statusRecorder keeps the status and headers a handler answers with, and drops the body.
type statusRecorder struct {
	header http.Header
	code   int
}

func (s *statusRecorder) Header() http.Header { return s.header }

func (s *statusRecorder) WriteHeader(code int) {
	if s.code == 0 {
		s.code = code
	}
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	s.WriteHeader(http.StatusOK)
	return len(b), nil
}

// noQuery refuses a request with query parameters: no call takes any, and a parameter given
// and silently ignored is worse than an error.
func noQuery(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.RawQuery == "" && !r.URL.ForceQuery {
		return true
	}
	writeError(w, http.StatusBadRequest, fmt.Sprintf("%s takes no query parameters, got %q", r.URL.Path, r.URL.RawQuery))
	return false
}

// decodeSetMode reads a SetModeRequest strictly: one JSON object holding "mode", a string,
// exactly once and nothing else, then the end of the body.
func decodeSetMode(body io.Reader) (SetModeRequest, error) {
	var req SetModeRequest
	dec := json.NewDecoder(body)
	if tok, err := dec.Token(); err != nil {
		return req, noEOF(err)
	} else if tok != json.Delim('{') {
		return req, errors.New("not a JSON object")
	}
	seen := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return req, noEOF(err)
		}
		key, _ := tok.(string)
		if key != "mode" {
			return req, fmt.Errorf("unknown field %q", key)
		}
		if seen {
			return req, errors.New(`"mode" given twice`)
		}
		seen = true
		tok, err = dec.Token()
		if err != nil {
			return req, noEOF(err)
		}
		mode, ok := tok.(string)
		if !ok {
			return req, errors.New(`"mode" is not a string`)
		}
		req.Mode = mode
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return req, noEOF(err)
	}
	if !seen {
		return req, errors.New(`no "mode"`)
	}
	if _, err := dec.Token(); err != io.EOF {
		return req, errors.New("more after the JSON object")
	}
	return req, nil
}

// noEOF turns the end of a body in the middle of a JSON value into an error that says so.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, ErrorBody{Error: msg})
}
