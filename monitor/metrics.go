package monitor

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
)

// Metrics is an observer that keeps a run's Prometheus metrics and serves them in the text
// exposition format (version 0.0.4), written by hand as the proxy's are, so the module needs
// no metrics library. Series, nodes in the cluster's order:
//
//	failsim_datasource_state{node,state}    gauge: 1 for the node's current state, else 0
//	failsim_node_failed{node}               gauge: 1 while the node is out of service
//	failsim_node_master{node}               gauge: 1 for the current master
//	failsim_probes_total{node,condition}    counter: probes by the condition they ended in
//	failsim_alarms_active{node}             gauge: alarms the node has now
//	failsim_alarm_ticks{node,condition,threshold} gauge: each active alarm's count of ticks; the
//	                                        series goes when the alarm heals, expires or is
//	                                        cleared, and starts again at 0 when raised anew
//	failsim_failovers_total{from,to}        counter: failovers; to="" when no replica was eligible
//
// It is safe for concurrent use: the runtime's loop writes, the HTTP handler reads.
type Metrics struct {
	mu        sync.Mutex
	names     []string
	index     map[string]int
	state     []statemap.State
	failed    []bool
	master    int
	probes    [][statemap.NumConditions]uint64
	alarms    [][]fence.AlarmView
	failovers map[[2]string]uint64
	foOrder   [][2]string
}

// NewMetrics returns the metrics of the named nodes, every series at its start value.
func NewMetrics(nodes []string) *Metrics {
	m := &Metrics{names: nodes, index: map[string]int{}, state: make([]statemap.State, len(nodes)),
		failed: make([]bool, len(nodes)), master: -1, probes: make([][statemap.NumConditions]uint64, len(nodes)),
		alarms: make([][]fence.AlarmView, len(nodes)), failovers: map[[2]string]uint64{}}
	for i, n := range nodes {
		m.index[n] = i
	}
	return m
}

// Probed counts node i's finished probe; call it from Config.OnProbe.
func (m *Metrics) Probed(i int, c statemap.Condition) {
	if c == statemap.Undefined {
		return
	}
	m.mu.Lock()
	m.probes[i][c]++
	m.mu.Unlock()
}

// Event implements sim.Observer.
func (m *Metrics) Event(ev fence.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch ev.Kind {
	case fence.StateChanged:
		if i, ok := m.index[ev.Node]; ok {
			m.state[i] = ev.To
		}
	case fence.Failover, fence.NoCandidate:
		k := [2]string{ev.Node, ev.Other}
		if _, ok := m.failovers[k]; !ok {
			m.foOrder = append(m.foOrder, k)
		}
		m.failovers[k]++
	}
}

// Instant implements sim.Observer: it copies roles and alarms from the engine.
func (m *Metrics) Instant(_ time.Duration, e *fence.Engine) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.master = e.Master()
	for i := 0; i < e.Len() && i < len(m.names); i++ {
		m.failed[i] = e.Node(i).Failed
		m.alarms[i] = e.Alarms(m.alarms[i][:0], i)
	}
}

// WriteTo writes every series in the text exposition format.
func (m *Metrics) WriteTo(w io.Writer) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	family := func(name, typ, help string) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
	}
	node := func(i int) string { return `node="` + escapeLabel(m.names[i]) + `"` }
	family("failsim_datasource_state", "gauge", "1 for the node's current datasource state as the manager shows it, else 0.")
	for i := range m.names {
		for s := statemap.Unknown; s <= statemap.Suspect; s++ {
			fmt.Fprintf(&b, "failsim_datasource_state{%s,state=%q} %d\n", node(i), s.String(), b2i(m.state[i] == s))
		}
	}
	family("failsim_node_failed", "gauge", "1 while the node is failed (out of service).")
	for i := range m.names {
		fmt.Fprintf(&b, "failsim_node_failed{%s} %d\n", node(i), b2i(m.failed[i]))
	}
	family("failsim_node_master", "gauge", "1 for the node that is master now.")
	for i := range m.names {
		fmt.Fprintf(&b, "failsim_node_master{%s} %d\n", node(i), b2i(m.master == i))
	}
	family("failsim_probes_total", "counter", "Probes by the condition they ended in.")
	for i := range m.names {
		for c, n := range m.probes[i] {
			if n > 0 || statemap.Condition(c) == statemap.OK {
				fmt.Fprintf(&b, "failsim_probes_total{%s,condition=%q} %d\n", node(i), statemap.Condition(c).String(), n)
			}
		}
	}
	family("failsim_alarms_active", "gauge", "Alarms the node has now.")
	for i := range m.names {
		fmt.Fprintf(&b, "failsim_alarms_active{%s} %d\n", node(i), len(m.alarms[i]))
	}
	family("failsim_alarm_ticks", "gauge", "An active alarm's count of timekeeper ticks; the series goes with the alarm.")
	for i := range m.names {
		for _, a := range m.alarms[i] {
			fmt.Fprintf(&b, "failsim_alarm_ticks{%s,condition=%q,threshold=\"%d\"} %d\n", node(i), a.Condition.String(), a.Threshold, a.Count)
		}
	}
	family("failsim_failovers_total", "counter", "Failovers: the failed master and the replica promoted (to is empty when none was eligible).")
	for _, k := range m.foOrder {
		fmt.Fprintf(&b, "failsim_failovers_total{from=\"%s\",to=\"%s\"} %d\n", escapeLabel(k[0]), escapeLabel(k[1]), m.failovers[k])
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

// ServeHTTP serves the metrics.
func (m *Metrics) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	m.WriteTo(w)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// escapeLabel escapes a label value for the text format.
func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}
