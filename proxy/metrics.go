package proxy

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/failsim/failsim/fault"
)

// writeMetrics writes every node's counters in the Prometheus text exposition format
// (version 0.0.4). It reads the same atomics as the JSON status, so the two never disagree,
// and nothing on the data path does more than an atomic add.
func (p *Proxy) writeMetrics(w io.Writer) {
	nodes := p.Nodes()
	family := func(name, typ, help string, rows func(emit func(labels string, v uint64))) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
		rows(func(labels string, v uint64) { fmt.Fprintf(w, "%s{%s} %d\n", name, labels, v) })
	}
	node := func(n *Node) string { return `node="` + escapeLabel(n.name) + `"` }
	family("failsim_proxy_connections_accepted_total", "counter", "Client connections accepted by the node.",
		func(emit func(string, uint64)) {
			for _, n := range nodes {
				emit(node(n), n.stats.accepted.Load())
			}
		})
	family("failsim_proxy_connections_faulted_total", "counter", "Client connections on which at least one fault acted.",
		func(emit func(string, uint64)) {
			for _, n := range nodes {
				emit(node(n), n.stats.faulted.Load())
			}
		})
	family("failsim_proxy_faults_injected_total", "counter",
		"Fault injections: a connection reset or closed, an ERR sent, a command held or delayed, a direction frozen.",
		func(emit func(string, uint64)) {
			for _, n := range nodes {
				for _, k := range wireKinds() {
					emit(node(n)+`,fault="`+k.String()+`"`, n.stats.faults[k].Load())
				}
			}
		})
	family("failsim_proxy_bytes_total", "counter", "Bytes forwarded: up is client to server, down is server to client.",
		func(emit func(string, uint64)) {
			for _, n := range nodes {
				emit(node(n)+`,direction="up"`, n.stats.bytesUp.Load())
				emit(node(n)+`,direction="down"`, n.stats.bytesDown.Load())
			}
		})
	family("failsim_proxy_open_connections", "gauge", "Client connections open now.",
		func(emit func(string, uint64)) {
			for _, n := range nodes {
				emit(node(n), uint64(max(0, n.stats.open.Load())))
			}
		})
	family("failsim_proxy_mode", "gauge", "1 for the node's current fault, 0 for the others; mode holds the full mode.",
		func(emit func(string, uint64)) {
			for _, n := range nodes {
				m := n.Mode()
				for _, k := range wireKinds() {
					v, mode := uint64(0), ""
					if k == m.Fault.Kind {
						v, mode = 1, m.String()
					}
					emit(node(n)+`,fault="`+k.String()+`",mode="`+escapeLabel(mode)+`"`, v)
				}
			}
		})
}

// wireKinds returns the faults a proxy can make real, in table order.
func wireKinds() []fault.Kind {
	var ks []fault.Kind
	for _, k := range fault.Kinds() {
		if k.Wire() {
			ks = append(ks, k)
		}
	}
	return ks
}

// escapeLabel escapes a label value for the text format.
func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

// metricsHandler serves writeMetrics.
func (p *Proxy) metricsHandler(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	p.writeMetrics(w)
}
