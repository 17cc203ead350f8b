package monitor

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/internal/liveservers"
	"github.com/failsim/failsim/proxy"
	"github.com/failsim/failsim/shadow"
	"github.com/failsim/failsim/statemap"
)

// TestShadowOnMariaDB: the live runtime probes a real MariaDB through failsim's proxy, ten
// times faster than real time, under the shipped defaults, with the aggressive statemap as a
// shadow. The master's storage stalls (the proxy holds every query) from 00:30 to the end: the
// live defaults ride it out (a query_results_timeout is slow, not dead), and the aggressive
// shadow would have failed db1 over: one divergence, logged and counted. Without MariaDB it
// skips, and fails under CI=true.
func TestShadowOnMariaDB(t *testing.T) {
	s := liveservers.MariaDB(t)
	px, err := proxy.New(proxy.Config{Log: zerolog.Nop(), Nodes: []proxy.NodeConfig{
		{Name: "db1", Listen: "127.0.0.1:0", Upstream: s.Addr},
		{Name: "db2", Listen: "127.0.0.1:0", Upstream: s.Addr},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	const speed = 10
	const budget = 5 * time.Second / speed // the EBS stall's checker, timeout=5s, in real time
	names := []string{"db1", "db2"}
	nodes := make([]Node, len(names))
	for i, name := range names {
		n, _ := px.Node(name)
		c, err := NewChecker(CheckerConfig{DSN: s.DSN(n.Addr()), Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		nodes[i] = Node{Name: name, Role: fence.Replica, Prober: c}
	}
	nodes[0].Role = fence.Master
	agg, err := statemap.Load("../conf/examples/aggressive.properties")
	if err != nil {
		t.Fatal(err)
	}
	stall, err := fault.Parse([]string{"stall"})
	if err != nil {
		t.Fatal(err)
	}
	metrics := NewMetrics(names)
	var got []shadow.Divergence
	sh := &Shadows{Specs: []shadow.Spec{{Name: "aggressive", Map: agg}}, Metrics: NewShadowMetrics(metrics.Registry(), []string{"aggressive"}),
		OnDivergence: func(d shadow.Divergence, _ time.Time) { got = append(got, d) }}
	var log bytes.Buffer
	const stallAt = 30 * time.Second
	// The alarm is raised at the first timed-out probe (5 s after the stall's first probe
	// starts) and expires 8 ticks later: 80 s, and a tick's phase, after it.
	const end = stallAt + 3*time.Minute
	r, err := New(Config{Nodes: nodes, Map: statemap.Default(), Interval: 3 * time.Second, Speed: speed, Log: zerolog.New(&log), Shadows: sh},
		Script{
			Actions: []act.Action{{At: stallAt, Kind: act.SetFault, Node: 0, Fault: stall}},
			Inject: func(i int, f fault.Fault) {
				if err := px.SetMode(names[i], proxy.Mode{Fault: f}); err != nil {
					t.Errorf("set %s's fault: %v", names[i], err)
				}
			},
			End: end,
		})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	e := r.Engine()
	if e.Node(0).Failed || e.Master() != 0 {
		t.Fatalf("the live defaults failed db1 over: want the stall ridden out")
	}
	if st := e.Node(0).State; st != statemap.Timeout {
		t.Errorf("db1 is %s at the end, want timeout: the stall did not reach the checker", st)
	}
	if len(got) != 1 {
		t.Fatalf("%d divergences, want the aggressive failover: %v\n%s", len(got), got, log.String())
	}
	d := got[0]
	if d.Shadow != "aggressive" || d.Side != shadow.ShadowOnly || d.Kind != fence.KindFailover || d.Node != 0 || d.To != 1 ||
		d.Condition != statemap.QueryResultsTimeout || d.Threshold != 8 || d.At <= stallAt {
		t.Errorf("divergence %+v: want the aggressive shadow's failover of db1 to db2 by query_results_timeout after 8 ticks, after the stall", d)
	}
	lines := divergenceLines(t, log.String())
	if len(lines) != 1 || lines[0]["shadow"] != "aggressive" || lines[0]["node"] != "db1" || lines[0]["kind"] != "failover" {
		t.Errorf("divergence lines in the log: %v, want one of the aggressive shadow's failover of db1", lines)
	}
	if v, ok := counter(t, metrics.Registry(), "failsim_shadow_divergence_total", map[string]string{"shadow": "aggressive"}); !ok || v != 1 {
		t.Errorf("failsim_shadow_divergence_total{shadow=aggressive} = %v (there: %v), want 1", v, ok)
	}
	if v, ok := counter(t, metrics.Registry(), "failsim_shadow_decisions_total", map[string]string{"shadow": "aggressive", "kind": "failover", "node": "db1"}); !ok || v != 1 {
		t.Errorf("failsim_shadow_decisions_total{aggressive,failover,db1} = %v (there: %v), want 1", v, ok)
	}
}
