package proxy

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rs/zerolog"

	"github.com/failsim/failsim/fault"
)

// The proxy's series' descriptions, shared by every Proxy and never written.
var (
	descAccepted = prometheus.NewDesc("failsim_proxy_connections_accepted_total",
		"Client connections accepted by the node.", []string{"node"}, nil)
	descFaulted = prometheus.NewDesc("failsim_proxy_connections_faulted_total",
		"Client connections on which at least one fault acted.", []string{"node"}, nil)
	descFaults = prometheus.NewDesc("failsim_proxy_faults_injected_total",
		"Fault injections: a connection reset or closed, an ERR sent, a command held or delayed, a direction frozen, a set-up held.",
		[]string{"node", "fault"}, nil)
	descBytes = prometheus.NewDesc("failsim_proxy_bytes_total",
		"Bytes forwarded: up is client to server, down is server to client.", []string{"node", "direction"}, nil)
	descOpen = prometheus.NewDesc("failsim_proxy_open_connections",
		"Client connections open now.", []string{"node"}, nil)
	descHandshake = prometheus.NewDesc("failsim_proxy_handshake_timeouts_total",
		"Client connections closed because the client did not answer the server's greeting within the handshake timeout.", []string{"node"}, nil)
	descRewrites = prometheus.NewDesc("failsim_proxy_topology_rewrites_total",
		"Values (an address, a host, a port) rewritten in replies that report topology (NodeConfig.RewriteTopology).", []string{"node"}, nil)
	descMode = prometheus.NewDesc("failsim_proxy_mode",
		"1 for the node's current fault, 0 for the others; mode holds the full mode.", []string{"node", "fault", "mode"}, nil)
)

// Describe implements prometheus.Collector: a Proxy is a collector of its nodes' series, so
// that a process can put them on a registry of its own. Two Proxies cannot share a registry.
func (p *Proxy) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descAccepted, descFaulted, descFaults, descBytes, descOpen, descHandshake, descRewrites, descMode} {
		ch <- d
	}
}

// Collect implements prometheus.Collector. It reads, at scrape time, the same atomics as the
// JSON status, so the two never disagree, and nothing on the data path does more than an
// atomic add. Nodes come sorted by name; every wire fault has its series from the start.
func (p *Proxy) Collect(ch chan<- prometheus.Metric) {
	send := func(d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
		s, err := prometheus.NewConstMetric(d, t, v, labels...)
		if err != nil { // a node name that is not UTF-8: the scrape reports it
			s = prometheus.NewInvalidMetric(d, err)
		}
		ch <- s
	}
	kinds := wireKinds()
	for _, n := range p.Nodes() {
		s := &n.stats
		send(descAccepted, prometheus.CounterValue, float64(s.accepted.Load()), n.name)
		send(descFaulted, prometheus.CounterValue, float64(s.faulted.Load()), n.name)
		for _, k := range kinds {
			send(descFaults, prometheus.CounterValue, float64(s.faults[k].Load()), n.name, k.String())
		}
		send(descBytes, prometheus.CounterValue, float64(s.bytesUp.Load()), n.name, "up")
		send(descBytes, prometheus.CounterValue, float64(s.bytesDown.Load()), n.name, "down")
		send(descOpen, prometheus.GaugeValue, float64(max(0, s.open.Load())), n.name)
		send(descHandshake, prometheus.CounterValue, float64(s.handshakeTimeouts.Load()), n.name)
		send(descRewrites, prometheus.CounterValue, float64(s.rewrites.Load()), n.name)
		m, chain := n.modeAndChain()
		for _, k := range kinds {
			v, mode := 0.0, ""
			if k == m.Fault.Kind && len(chain) <= 1 {
				v, mode = 1, m.String()
			}
			for _, t := range chain {
				if t.Fault.Kind == k && (len(chain) > 1 || m.Fault.Kind == fault.Heal) {
					v, mode = 1, describe(m, chain)
				}
			}
			send(descMode, prometheus.GaugeValue, v, n.name, k.String(), mode)
		}
	}
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

// newRegistry returns the proxy's registry: its series, the Go collector and the process
// collector. Each Proxy has its own, so proxies in one process (tests make many) never collide.
func (p *Proxy) newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(p, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// metricsHandler serves the proxy's registry in the format the scraper asks for (the text
// format by default).
func (p *Proxy) metricsHandler(w http.ResponseWriter, r *http.Request) {
	promhttp.HandlerFor(p.registry, promhttp.HandlerOpts{ErrorLog: promLog{p.log}}).ServeHTTP(w, r)
}

// promLog logs promhttp's gathering and serving errors as warnings.
type promLog struct{ log zerolog.Logger }

func (l promLog) Println(v ...any) { l.log.Warn().Msg(strings.TrimSuffix(fmt.Sprintln(v...), "\n")) }
