package monitor

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
)

// Metrics is an observer that keeps a run's Prometheus metrics. It is a prometheus.Collector:
// it keeps the engine's view as of the last instant and turns it into series only when it is
// scraped, so a series exists exactly while what it describes does. Series:
//
//	failsim_datasource_state{node,state}    gauge: 1 for the node's current state, else 0
//	failsim_node_failed{node}               gauge: 1 while the node is out of service
//	failsim_node_master{node}               gauge: 1 for the current master
//	failsim_probes_total{node,condition}    counter: probes by the condition they ended in
//	                                        (ok always, another condition from its first probe)
//	failsim_alarms_active{node}             gauge: alarms the node has now
//	failsim_alarm_ticks{node,condition,threshold} gauge: each active alarm's count of ticks; the
//	                                        series goes when the alarm heals, expires or is
//	                                        cleared, and starts again at 0 when raised anew
//	failsim_failovers_total{from,to}        counter: promotions, from the failed master to the
//	                                        replica promoted; a pair appears at its first failover
//	failsim_no_candidate_total{node}        counter: masters failed with no replica eligible to
//	                                        promote (0 for every node from the start)
//
// NewMetrics puts it on a registry of its own beside the Go and process collectors, and
// ServeHTTP serves that registry; the zero Metrics is not usable. It is safe for concurrent
// use: the runtime's loop writes, scrapes read.
type Metrics struct {
	reg     *prometheus.Registry
	handler http.Handler

	mu          sync.Mutex
	names       []string
	state       []statemap.State
	failed      []bool
	master      int
	probes      [][statemap.NumConditions]uint64
	alarms      [][]fence.AlarmView
	failovers   map[[2]string]uint64
	noCandidate []uint64
}

// The series' descriptions, shared by every Metrics and never written.
var (
	descState = prometheus.NewDesc("failsim_datasource_state",
		"1 for the node's current datasource state as the manager shows it, else 0.", []string{"node", "state"}, nil)
	descFailed = prometheus.NewDesc("failsim_node_failed",
		"1 while the node is failed (out of service).", []string{"node"}, nil)
	descMaster = prometheus.NewDesc("failsim_node_master",
		"1 for the node that is master now.", []string{"node"}, nil)
	descProbes = prometheus.NewDesc("failsim_probes_total",
		"Probes by the condition they ended in.", []string{"node", "condition"}, nil)
	descAlarms = prometheus.NewDesc("failsim_alarms_active",
		"Alarms the node has now.", []string{"node"}, nil)
	descAlarmTicks = prometheus.NewDesc("failsim_alarm_ticks",
		"An active alarm's count of timekeeper ticks; the series goes with the alarm.", []string{"node", "condition", "threshold"}, nil)
	descFailovers = prometheus.NewDesc("failsim_failovers_total",
		"Failovers: the failed master and the replica promoted in its place.", []string{"from", "to"}, nil)
	descNoCandidate = prometheus.NewDesc("failsim_no_candidate_total",
		"Masters failed with no replica eligible to promote, by the failed master.", []string{"node"}, nil)
)

// NewMetrics returns the metrics of the named nodes, in the cluster's order, every series at
// its start value, registered on a new registry beside the Go and process collectors.
func NewMetrics(nodes []string) *Metrics {
	m := &Metrics{names: nodes, state: make([]statemap.State, len(nodes)),
		failed: make([]bool, len(nodes)), master: -1, probes: make([][statemap.NumConditions]uint64, len(nodes)),
		alarms: make([][]fence.AlarmView, len(nodes)), failovers: map[[2]string]uint64{},
		noCandidate: make([]uint64, len(nodes))}
	m.reg = prometheus.NewRegistry()
	m.reg.MustRegister(m, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
	return m
}

// Registry returns the registry ServeHTTP serves: these metrics, the Go collector and the
// process collector. Register a process's other collectors on it to serve them at the same
// address.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// ServeHTTP serves the registry in the format the scraper asks for (the text format by
// default).
func (m *Metrics) ServeHTTP(w http.ResponseWriter, r *http.Request) { m.handler.ServeHTTP(w, r) }

// Probed counts node i's finished probe; call it from Config.OnProbe.
func (m *Metrics) Probed(i int, c statemap.Condition) {
	if c == statemap.Undefined {
		return
	}
	m.mu.Lock()
	m.probes[i][c]++
	m.mu.Unlock()
}

// Event implements drive.Observer.
func (m *Metrics) Event(ev act.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	known := func(i int) bool { return i < len(m.names) }
	switch ev := ev.(type) {
	case *fence.StateChanged:
		if known(ev.Node) {
			m.state[ev.Node] = ev.To
		}
	case *fence.Failover:
		if known(ev.Node) && known(ev.To) {
			m.failovers[[2]string{m.names[ev.Node], m.names[ev.To]}]++
		}
	case *fence.NoCandidate:
		if known(ev.Node) {
			m.noCandidate[ev.Node]++
		}
	}
}

// Instant implements drive.Observer: it copies roles and alarms from the engine.
func (m *Metrics) Instant(_ time.Duration, e fence.View) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.master = e.Master()
	for i := 0; i < e.Len() && i < len(m.names); i++ {
		m.failed[i] = e.Node(i).Failed
		m.alarms[i] = e.Alarms(m.alarms[i][:0], i)
	}
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descState, descFailed, descMaster, descProbes, descAlarms,
		descAlarmTicks, descFailovers, descNoCandidate} {
		ch <- d
	}
}

// Collect implements prometheus.Collector: it sends every series as of the last instant.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	defer m.mu.Unlock()
	send := func(d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
		s, err := prometheus.NewConstMetric(d, t, v, labels...)
		if err != nil { // a node name that is not UTF-8: the scrape reports it
			s = prometheus.NewInvalidMetric(d, err)
		}
		ch <- s
	}
	for i, n := range m.names {
		for s := statemap.Unknown; s <= statemap.Suspect; s++ {
			send(descState, prometheus.GaugeValue, b2f(m.state[i] == s), n, s.String())
		}
		send(descFailed, prometheus.GaugeValue, b2f(m.failed[i]), n)
		send(descMaster, prometheus.GaugeValue, b2f(m.master == i), n)
		for c, v := range m.probes[i] {
			if v > 0 || statemap.Condition(c) == statemap.OK {
				send(descProbes, prometheus.CounterValue, float64(v), n, statemap.Condition(c).String())
			}
		}
		send(descAlarms, prometheus.GaugeValue, float64(len(m.alarms[i])), n)
		for _, a := range m.alarms[i] {
			send(descAlarmTicks, prometheus.GaugeValue, float64(a.Count), n, a.Condition.String(), strconv.Itoa(a.Threshold))
		}
		send(descNoCandidate, prometheus.CounterValue, float64(m.noCandidate[i]), n)
	}
	for k, v := range m.failovers {
		send(descFailovers, prometheus.CounterValue, float64(v), k[0], k[1])
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
