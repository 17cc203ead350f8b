package monitor

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// families is one scrape, parsed by the Prometheus library's own text parser.
type families map[string]*dto.MetricFamily

// get GETs url over HTTP as Prometheus does and returns the text-format body. It does not
// touch t, so it may run on the runtime's loop.
func get(url string) ([]byte, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s\n%s", url, resp.Status, b)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		return nil, fmt.Errorf("GET %s: Content-Type %q, want the text format", url, ct)
	}
	return b, nil
}

// parse parses a scrape with the library's own text parser.
func parse(t *testing.T, body []byte, err error) families {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("the text parser rejects the scrape: %v", err)
	}
	return fams
}

// scrape GETs url and parses the answer.
func scrape(t *testing.T, url string) families {
	t.Helper()
	b, err := get(url)
	return parse(t, b, err)
}

// series returns the family's series as "k=v,k=v" (labels sorted by name) to value.
func (f families) series(name string) map[string]float64 {
	fam, ok := f[name]
	if !ok {
		return nil
	}
	out := map[string]float64{}
	for _, m := range fam.GetMetric() {
		var ls []string
		for _, l := range m.GetLabel() {
			ls = append(ls, l.GetName()+"="+l.GetValue())
		}
		sort.Strings(ls)
		var v float64
		switch {
		case m.Gauge != nil:
			v = m.Gauge.GetValue()
		case m.Counter != nil:
			v = m.Counter.GetValue()
		default:
			v = m.GetUntyped().GetValue()
		}
		out[strings.Join(ls, ",")] = v
	}
	return out
}

// familyWant is what a family must hold: its type, its label names (sorted), and series
// ("k=v,..." with labels sorted by name) with their values; with exact, only those series (and
// with none, the family may be absent).
type familyWant struct {
	typ    dto.MetricType
	labels []string
	exact  bool
	series map[string]float64
}

// checkFamilies asserts every family of want against a scrape taken when.

func checkFamilies(t *testing.T, when string, got families, want map[string]familyWant) {
	t.Helper()
	for name, w := range want {
		fam, ok := got[name]
		if !ok {
			if w.exact && len(w.series) == 0 {
				continue
			}
			t.Errorf("%s: no family %s", when, name)
			continue
		}
		if fam.GetType() != w.typ {
			t.Errorf("%s: %s is a %v, want %v", when, name, fam.GetType(), w.typ)
		}
		for _, m := range fam.GetMetric() {
			var ls []string
			for _, l := range m.GetLabel() {
				ls = append(ls, l.GetName())
			}
			sort.Strings(ls)
			if !slices.Equal(ls, w.labels) {
				t.Errorf("%s: %s has labels %v, want %v", when, name, ls, w.labels)
				break
			}
		}
		s := got.series(name)
		for k, v := range w.series {
			if g, ok := s[k]; !ok {
				t.Errorf("%s: no series %s{%s}; have %v", when, name, k, s)
			} else if g != v {
				t.Errorf("%s: %s{%s} = %v, want %v", when, name, k, g, v)
			}
		}
		if w.exact && len(s) != len(w.series) {
			t.Errorf("%s: %s has series %v, want exactly %v", when, name, s, w.series)
		}
	}
}

// atInstant calls fn once, at the first instant at or after at.
type atInstant struct {
	at   time.Duration
	fn   func()
	done bool
}

func (a *atInstant) Event(act.Event) {}
func (a *atInstant) Instant(at time.Duration, _ fence.View) {
	if !a.done && at >= a.at {
		a.done = true
		a.fn()
	}
}

// states returns the five datasource-state series of node, 1 for state.
func states(node, state string) map[string]float64 {
	out := map[string]float64{}
	for _, s := range []string{"unknown", "online", "stopped", "timeout", "suspect"} {
		v := 0.0
		if s == state {
			v = 1
		}
		out["node="+node+",state="+s] = v
	}
	return out
}

func nodes(v map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for n, x := range v {
		out["node="+n] = x
	}
	return out
}

// TestMetrics runs a known incident through the runtime on a mock clock and scrapes the
// metrics over HTTP twice: during it (an alarm aging, one failover) and at its end (the alarm
// healed, a second master lost with no candidate).
func TestMetrics(t *testing.T) {
	tl, err := timeline.Parse("m.timeline", []byte(`cluster db1:master db2:replica db3:replica db4:replica
00:00:20 db4 blackhole   # an alarm that ages, then heals
00:00:40 db1 refuse      # failover to db2
00:00:50 db3 refuse      # a replica failed
00:01:00 db2 refuse      # the new master dies: db3 is failed, db4 has no ok last probe
00:01:05 db4 heal
00:01:15 cluster end
`))
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"db1", "db2", "db3", "db4"}
	probers := make([]*predicted, len(names))
	ns := make([]Node, len(names))
	for i, n := range tl.Nodes {
		probers[i] = &predicted{timeout: 5 * time.Second}
		ns[i] = Node{Name: n.Name, Role: n.Role, Prober: probers[i]}
	}
	m := NewMetrics(names)
	srv := httptest.NewServer(m)
	defer srv.Close()
	var body []byte
	var getErr error
	mid := &atInstant{at: 45 * time.Second, fn: func() { body, getErr = get(srv.URL + "/metrics") }}
	mock := clock.NewMock()
	r, err := New(Config{Nodes: ns, Clock: mock, Observers: []drive.Observer{m, mid},
		OnProbe: func(_ time.Duration, i int, res Result) { m.Probed(i, res.Condition) }},
		timelineScript(tl, func(i int, f fault.Fault) { probers[i].set(f) }))
	if err != nil {
		t.Fatal(err)
	}
	runMock(t, r, mock)
	if !mid.done {
		t.Fatal("no scrape at 00:00:45")
	}
	during := parse(t, body, getErr)
	end := scrape(t, srv.URL+"/metrics")

	gauge, counter := dto.MetricType_GAUGE, dto.MetricType_COUNTER
	state := func(s ...string) map[string]float64 {
		out := map[string]float64{}
		for i, n := range names {
			for k, v := range states(n, s[i]) {
				out[k] = v
			}
		}
		return out
	}
	checkFamilies(t, "at 00:00:45", during, map[string]familyWant{
		"failsim_datasource_state": {gauge, []string{"node", "state"}, true, state("stopped", "online", "online", "timeout")},
		"failsim_node_failed":      {gauge, []string{"node"}, true, nodes(map[string]float64{"db1": 1, "db2": 0, "db3": 0, "db4": 0})},
		"failsim_node_master":      {gauge, []string{"node"}, true, nodes(map[string]float64{"db1": 0, "db2": 1, "db3": 0, "db4": 0})},
		"failsim_probes_total": {counter, []string{"condition", "node"}, false, map[string]float64{
			"condition=ok,node=db1": 14, "condition=socket_io_error,node=db1": 2,
			"condition=ok,node=db4": 7, "condition=socket_connect_timeout,node=db4": 4}},
		"failsim_alarms_active": {gauge, []string{"node"}, true, nodes(map[string]float64{"db1": 0, "db2": 0, "db3": 0, "db4": 1})},
		"failsim_alarm_ticks": {gauge, []string{"condition", "node", "threshold"}, true, map[string]float64{
			"condition=socket_connect_timeout,node=db4,threshold=8": 2}},
		"failsim_failovers_total":    {counter, []string{"from", "to"}, true, map[string]float64{"from=db1,to=db2": 1}},
		"failsim_no_candidate_total": {counter, []string{"node"}, true, nodes(map[string]float64{"db1": 0, "db2": 0, "db3": 0, "db4": 0})},
	})
	checkFamilies(t, "at the end", end, map[string]familyWant{
		"failsim_datasource_state": {gauge, []string{"node", "state"}, true, state("stopped", "stopped", "stopped", "online")},
		"failsim_node_failed":      {gauge, []string{"node"}, true, nodes(map[string]float64{"db1": 1, "db2": 1, "db3": 1, "db4": 0})},
		"failsim_node_master":      {gauge, []string{"node"}, true, nodes(map[string]float64{"db1": 0, "db2": 0, "db3": 0, "db4": 0})},
		"failsim_probes_total": {counter, []string{"condition", "node"}, false, map[string]float64{
			"condition=ok,node=db1": 14, "condition=socket_io_error,node=db1": 12,
			"condition=socket_io_error,node=db3": 9, "condition=ok,node=db4": 11}},
		"failsim_alarms_active": {gauge, []string{"node"}, true, nodes(map[string]float64{"db1": 0, "db2": 0, "db3": 0, "db4": 0})},
		// The healed alarm's series is gone, not left at its last count.
		"failsim_alarm_ticks": {gauge, []string{"condition", "node", "threshold"}, true, nil},
		// A master lost with no candidate is not a failover.
		"failsim_failovers_total":    {counter, []string{"from", "to"}, true, map[string]float64{"from=db1,to=db2": 1}},
		"failsim_no_candidate_total": {counter, []string{"node"}, true, nodes(map[string]float64{"db1": 0, "db2": 1, "db3": 0, "db4": 0})},
	})
	if _, ok := end["failsim_alarm_ticks"]; ok {
		t.Errorf("at the end: failsim_alarm_ticks still has series %v", end.series("failsim_alarm_ticks"))
	}
	for _, f := range []string{"go_goroutines", "go_memstats_alloc_bytes", "go_gc_duration_seconds",
		"process_cpu_seconds_total", "process_start_time_seconds", "process_open_fds"} {
		if _, ok := end[f]; !ok {
			t.Errorf("no %s: the Go and process collectors must be on the registry", f)
		}
	}
}

// TestMetricsRegistries: every Metrics has a registry of its own, so two in one process do not
// collide, and a collector registered on one is served by that one only.
func TestMetricsRegistries(t *testing.T) {
	a, b := NewMetrics([]string{"db1"}), NewMetrics([]string{"db1"})
	a.Probed(0, statemap.OK)
	if err := a.Registry().Register(extraCollector{prometheus.NewDesc("failsim_extra", "A test series.", nil, nil)}); err != nil {
		t.Fatal(err)
	}
	sa, sb := httptest.NewServer(a), httptest.NewServer(b)
	defer sa.Close()
	defer sb.Close()
	fa, fb := scrape(t, sa.URL), scrape(t, sb.URL)
	if got := fa.series("failsim_probes_total")["condition=ok,node=db1"]; got != 1 {
		t.Errorf("a counted %v ok probes, want 1", got)
	}
	if got := fb.series("failsim_probes_total")["condition=ok,node=db1"]; got != 0 {
		t.Errorf("b counted %v ok probes, want 0", got)
	}
	if _, ok := fa["failsim_extra"]; !ok {
		t.Error("a collector registered on a's registry is not served by a")
	}
	if _, ok := fb["failsim_extra"]; ok {
		t.Error("a collector registered on a's registry is served by b")
	}
}

// TestMetricsBadNodeName: a node name that is not UTF-8 fails the scrape with a message, and
// does not bring the process down.
func TestMetricsBadNodeName(t *testing.T) {
	srv := httptest.NewServer(NewMetrics([]string{"db\xff"}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(body), "UTF-8") {
		t.Errorf("scrape with a bad node name: %s\n%s", resp.Status, body)
	}
}

// extraCollector serves one constant series.
type extraCollector struct{ d *prometheus.Desc }

func (c extraCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.d }
func (c extraCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(c.d, prometheus.GaugeValue, 1)
}
