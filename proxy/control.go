package proxy

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// DefaultControlAddr is where the control API listens unless told otherwise.
const DefaultControlAddr = "127.0.0.1:7480"

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
// A non-empty token is required on every call as "Authorization: Bearer TOKEN".
func (p *Proxy) Handler(token string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/nodes", func(w http.ResponseWriter, r *http.Request) {
		var l NodeList
		for _, n := range p.Nodes() {
			l.Nodes = append(l.Nodes, n.Status())
		}
		writeJSON(w, http.StatusOK, l)
	})
	mux.HandleFunc("GET /v1/nodes/{name}", func(w http.ResponseWriter, r *http.Request) {
		n, ok := p.Node(r.PathValue("name"))
		if !ok {
			writeError(w, http.StatusNotFound, fmt.Sprintf("no node %q", r.PathValue("name")))
			return
		}
		writeJSON(w, http.StatusOK, n.Status())
	})
	mux.HandleFunc("PUT /v1/nodes/{name}/mode", func(w http.ResponseWriter, r *http.Request) {
		n, ok := p.Node(r.PathValue("name"))
		if !ok {
			writeError(w, http.StatusNotFound, fmt.Sprintf("no node %q", r.PathValue("name")))
			return
		}
		var req SetModeRequest
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&req); err != nil {
			writeError(w, http.StatusBadRequest, "body: want {\"mode\": \"...\"}: "+err.Error())
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
	if token == "" {
		return mux
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			writeError(w, http.StatusUnauthorized, "missing or wrong control token")
			return
		}
		mux.ServeHTTP(w, r)
	})
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
