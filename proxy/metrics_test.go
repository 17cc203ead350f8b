package proxy

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/failsim/failsim/internal/fakemysql"
)

// scrapeMetrics GETs /metrics from the control API over HTTP, as Prometheus does, and parses
// the answer with the library's own text parser.
func scrapeMetrics(t *testing.T, p *Proxy) map[string]*dto.MetricFamily {
	t.Helper()
	srv := httptest.NewServer(p.Handler(""))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET /metrics: %s\n%s", resp.Status, b)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q, want the text format", ct)
	}
	tp := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := tp.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the text parser rejects the scrape: %v", err)
	}
	return fams
}

// seriesOf returns a family's series as "k=v,k=v" (labels sorted by name) to value, and fails
// the test if the family is missing, has another type or other label names.
func seriesOf(t *testing.T, fams map[string]*dto.MetricFamily, name string, typ dto.MetricType, labels ...string) map[string]float64 {
	t.Helper()
	fam, ok := fams[name]
	if !ok {
		t.Errorf("no family %s", name)
		return nil
	}
	if fam.GetType() != typ {
		t.Errorf("%s is a %v, want %v", name, fam.GetType(), typ)
	}
	sort.Strings(labels)
	out := map[string]float64{}
	for _, m := range fam.GetMetric() {
		var names, ls []string
		for _, l := range m.GetLabel() {
			names = append(names, l.GetName())
			ls = append(ls, l.GetName()+"="+l.GetValue())
		}
		sort.Strings(names)
		sort.Strings(ls)
		if !slices.Equal(names, labels) {
			t.Errorf("%s has labels %v, want %v", name, names, labels)
		}
		out[strings.Join(ls, ",")] = m.GetGauge().GetValue() + m.GetCounter().GetValue()
	}
	return out
}

// waitOpen waits until node n has want open connections.
func waitOpen(t *testing.T, n *Node, want int64) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for n.Status().Open != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d open connections, want %d", n.Name(), n.Status().Open, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestMetrics drives two nodes through a known sequence (db1: a login, then reset for an open
// and a new connection, then an armed freeze; db2: one open connection, healed) and scrapes
// the control API: every documented family is there with its labels and values, beside the
// Go and process collectors' families.
func TestMetrics(t *testing.T) {
	up := fake(t, fakemysql.Config{})
	p, err := New(Config{Nodes: []NodeConfig{
		{Name: "db1", Listen: "127.0.0.1:0", Upstream: up},
		{Name: "db2", Listen: "127.0.0.1:0", Upstream: up},
	}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	db1, _ := p.Node("db1")
	db2, _ := p.Node("db2")

	a := newRaw(mustDial(t, db1.Addr()))
	a.login(t)
	if err := a.ping(wait); err != nil {
		t.Fatal(err)
	}
	set(t, db1, "reset")
	if err := a.ping(wait); !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("open connection under reset: %v, want a reset", err)
	}
	if c, err := dial(t, db1.Addr()); err == nil {
		newRaw(c).read(wait)
	}
	waitOpen(t, db1, 0)
	set(t, db1, "freeze after 10 bytes")
	newRaw(mustDial(t, db2.Addr())).login(t)
	waitOpen(t, db2, 1)

	fams := scrapeMetrics(t, p)
	st1, st2 := db1.Status(), db2.Status()
	gauge, counter := dto.MetricType_GAUGE, dto.MetricType_COUNTER
	check := func(name string, got map[string]float64, want map[string]float64) {
		t.Helper()
		for k, v := range want {
			if g, ok := got[k]; !ok {
				t.Errorf("no series %s{%s}; have %v", name, k, got)
			} else if g != v {
				t.Errorf("%s{%s} = %v, want %v", name, k, g, v)
			}
		}
	}
	check("failsim_proxy_connections_accepted_total",
		seriesOf(t, fams, "failsim_proxy_connections_accepted_total", counter, "node"),
		map[string]float64{"node=db1": 2, "node=db2": 1})
	check("failsim_proxy_connections_faulted_total",
		seriesOf(t, fams, "failsim_proxy_connections_faulted_total", counter, "node"),
		map[string]float64{"node=db1": 2, "node=db2": 0})
	check("failsim_proxy_open_connections",
		seriesOf(t, fams, "failsim_proxy_open_connections", gauge, "node"),
		map[string]float64{"node=db1": 0, "node=db2": 1})
	bytes := seriesOf(t, fams, "failsim_proxy_bytes_total", counter, "node", "direction")
	check("failsim_proxy_bytes_total", bytes, map[string]float64{
		"direction=up,node=db1": float64(st1.BytesUp), "direction=down,node=db1": float64(st1.BytesDown),
		"direction=up,node=db2": float64(st2.BytesUp), "direction=down,node=db2": float64(st2.BytesDown),
	})
	if len(bytes) != 4 || bytes["direction=down,node=db2"] == 0 || bytes["direction=up,node=db1"] == 0 {
		t.Errorf("failsim_proxy_bytes_total: %v, want four series, a login's bytes counted", bytes)
	}

	// Every wire fault has a series on every node from the start.
	faults := seriesOf(t, fams, "failsim_proxy_faults_injected_total", counter, "node", "fault")
	modes := seriesOf(t, fams, "failsim_proxy_mode", gauge, "node", "fault", "mode")
	kinds := wireKinds()
	if len(faults) != 2*len(kinds) || len(modes) != 2*len(kinds) {
		t.Errorf("%d fault series and %d mode series, want %d each: %v %v", len(faults), len(modes), 2*len(kinds), faults, modes)
	}
	for _, k := range kinds {
		f := k.String()
		want1, want2 := 0.0, 0.0
		if f == "reset" {
			want1 = 2 // the open connection and the new one
		}
		check("failsim_proxy_faults_injected_total", faults,
			map[string]float64{"fault=" + f + ",node=db1": want1, "fault=" + f + ",node=db2": want2})
		m1, m2 := map[string]float64{"fault=" + f + ",mode=,node=db1": 0}, map[string]float64{"fault=" + f + ",mode=,node=db2": 0}
		if f == "freeze" {
			m1 = map[string]float64{"fault=freeze,mode=freeze after 10 bytes,node=db1": 1}
		}
		if f == "heal" {
			m2 = map[string]float64{"fault=heal,mode=heal,node=db2": 1}
		}
		check("failsim_proxy_mode", modes, m1)
		check("failsim_proxy_mode", modes, m2)
	}
	if float64(st1.Faults["reset"]) != faults["fault=reset,node=db1"] {
		t.Errorf("JSON status says %d resets, metrics %v", st1.Faults["reset"], faults["fault=reset,node=db1"])
	}

	for _, f := range []string{"go_goroutines", "go_memstats_alloc_bytes", "go_gc_duration_seconds",
		"process_cpu_seconds_total", "process_start_time_seconds", "process_open_fds"} {
		if _, ok := fams[f]; !ok {
			t.Errorf("no %s: the Go and process collectors must be on the registry", f)
		}
	}
}

// TestMetricsPerProxy: proxies in one process do not collide, each serves its own nodes only,
// and scraping again works (no registration is left behind by the first scrape).
func TestMetricsPerProxy(t *testing.T) {
	up := fake(t, fakemysql.Config{})
	pa, na := start(t, up, "heal")
	pb, _ := start(t, up, "stall")
	newRaw(mustDial(t, na.Addr())).login(t)
	for i := range 2 {
		a := seriesOf(t, scrapeMetrics(t, pa), "failsim_proxy_connections_accepted_total", dto.MetricType_COUNTER, "node")
		b := seriesOf(t, scrapeMetrics(t, pb), "failsim_proxy_connections_accepted_total", dto.MetricType_COUNTER, "node")
		if len(a) != 1 || a["node=db"] != 1 || len(b) != 1 || b["node=db"] != 0 {
			t.Errorf("scrape %d: accepted %v and %v, want 1 and 0", i+1, a, b)
		}
	}
	if m := seriesOf(t, scrapeMetrics(t, pb), "failsim_proxy_mode", dto.MetricType_GAUGE, "node", "fault", "mode"); m["fault=stall,mode=stall,node=db"] != 1 {
		t.Errorf("the second proxy's mode: %v", m)
	}
}

// TestUncontrollableNodeNameRefused: a name the control API's paths drop, and a link name
// that is not REPLICA<-SOURCE between two names, are refused at start; a real link is not.
func TestUncontrollableNodeNameRefused(t *testing.T) {
	for name, want := range map[string]string{
		".":        `node name ".": a URL path drops ".", so the control API could not reach it`,
		"..":       `node name "..": a URL path drops "..", so the control API could not reach it`,
		"db2<-":    `node name "db2<-": a name with "<-" is a replication link REPLICA<-SOURCE between two different names, e.g. db2<-db1`,
		"<-db1":    `node name "<-db1": a name with "<-" is a replication link REPLICA<-SOURCE between two different names, e.g. db2<-db1`,
		"db2<-db2": `node name "db2<-db2": a name with "<-" is a replication link REPLICA<-SOURCE between two different names, e.g. db2<-db1`,
		"a<-b<-c":  `node name "a<-b<-c": a name with "<-" is a replication link REPLICA<-SOURCE between two different names, e.g. db2<-db1`,
	} {
		cfg := Config{Nodes: []NodeConfig{{Name: name, Listen: "127.0.0.1:0", Upstream: "127.0.0.1:1"}}}
		if err := cfg.Validate(); err == nil || err.Error() != want {
			t.Errorf("node name %q: %v, want %s", name, err, want)
		}
		if _, err := New(cfg); err == nil {
			t.Errorf("node name %q: New started", name)
		}
	}
	for _, name := range []string{"db2<-db1", "a.b", "...", "db-1", "<"} {
		cfg := Config{Nodes: []NodeConfig{{Name: name, Listen: "127.0.0.1:0", Upstream: "127.0.0.1:1"}}}
		if err := cfg.Validate(); err != nil {
			t.Errorf("node name %q: %v", name, err)
		}
	}
}

// TestBadNodeNameRefused: a node name the metrics could not carry (not UTF-8), or that the
// control API's paths could not, is refused at start rather than breaking every scrape.
func TestBadNodeNameRefused(t *testing.T) {
	for _, name := range []string{"db\xff", "db 1", "db/1", "db\n1"} {
		_, err := New(Config{Nodes: []NodeConfig{{Name: name, Listen: "127.0.0.1:0", Upstream: "127.0.0.1:1"}}})
		if err == nil || !strings.Contains(err.Error(), "want UTF-8 text with no whitespace") {
			t.Errorf("node name %q: %v", name, err)
		}
	}
}
