package monitor

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/shadow"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// counter is the value of the counter name with labels on reg; ok false when it has no such
// series.
func counter(t *testing.T, reg prometheus.Gatherer, name string, labels map[string]string) (float64, bool) {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			if len(m.GetLabel()) != len(labels) {
				continue
			}
			for _, l := range m.GetLabel() {
				if labels[l.GetName()] != l.GetValue() {
					continue series
				}
			}
			return m.GetCounter().GetValue(), true
		}
	}
	return 0, false
}

// divergenceLines are the log's shadow divergence lines, parsed.
func divergenceLines(t *testing.T, log string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if _, ok := m["shadow"]; ok {
			out = append(out, m)
		}
	}
	return out
}

// TestRuntimeShadowsMatchReplay drives the EBS stall through the runtime on a mock clock with
// the aggressive statemap and the live defaults as shadows: the live engine rides the stall
// out (no failover), the runtime tells exactly the divergences a replay --shadow tells (the
// aggressive failover of db1 at 21:12:20), one warn line each naming the shadow, node, time and
// cause, and the metrics count the shadow's decision and the divergence.
func TestRuntimeShadowsMatchReplay(t *testing.T) {
	tl, sm, err := timeline.LoadFile("../testdata/incidents/ebs-stall.timeline", "")
	if err != nil {
		t.Fatal(err)
	}
	agg, err := statemap.Load("../conf/examples/aggressive.properties")
	if err != nil {
		t.Fatal(err)
	}
	specs := []shadow.Spec{{Name: "aggressive", Map: agg}, {Name: "same", Map: sm}}
	want := shadow.NewTally(len(specs))
	if _, err := sim.ReplayShadows(context.Background(), tl, sm, specs, want); err != nil {
		t.Fatal(err)
	}
	if len(want.Divergences) != 1 {
		t.Fatalf("the replay tells %d divergences, want the aggressive failover: %v", len(want.Divergences), want.Divergences)
	}

	probers := make([]*predicted, len(tl.Nodes))
	nodes := make([]Node, len(tl.Nodes))
	for i, n := range tl.Nodes {
		probers[i] = &predicted{timeout: tl.Timeout}
		nodes[i] = Node{Name: n.Name, Role: n.Role, Prober: probers[i]}
	}
	metrics := NewMetrics(tl.Names())
	var got []shadow.Divergence
	var gotAt []time.Time
	sh := &Shadows{Specs: specs, Metrics: NewShadowMetrics(metrics.Registry(), []string{"aggressive", "same"}),
		OnDivergence: func(d shadow.Divergence, at time.Time) { got, gotAt = append(got, d), append(gotAt, at) }}
	var log bytes.Buffer
	mock := clock.NewMock()
	r, err := New(Config{
		Nodes: nodes, Map: sm, Policy: tl.Policy, Interval: tl.Interval, Clock: mock, Log: zerolog.New(&log),
		Shadows: sh,
	}, timelineScript(tl, func(i int, f fault.Fault) { probers[i].set(f) }))
	if err != nil {
		t.Fatal(err)
	}
	t0 := mock.Now()
	runMock(t, r, mock)

	if r.Engine().Node(0).Failed || r.Engine().Master() != 0 {
		t.Errorf("the live engine failed db1 over: a shadow must change nothing")
	}
	if !slices.Equal(got, want.Divergences) {
		t.Errorf("the runtime told\n  %v\nthe replay\n  %v", got, want.Divergences)
	}
	if len(gotAt) == 1 && !gotAt[0].Equal(t0.Add(want.Divergences[0].At)) {
		t.Errorf("divergence at %v, want t0+%v", gotAt[0], want.Divergences[0].At)
	}
	lines := divergenceLines(t, log.String())
	if len(lines) != 1 {
		t.Fatalf("%d divergence lines in the log, want 1:\n%s", len(lines), log.String())
	}
	l := lines[0]
	for k, v := range map[string]string{"level": "warn", "shadow": "aggressive", "node": "db1", "kind": "failover", "side": "shadow-only",
		"to": "db2", "cause": "query_results_timeout for 8 ticks, threshold 8", "at": t0.Add(740 * time.Second).Format(time.RFC3339Nano)} {
		if l[k] != v {
			t.Errorf("log line's %s = %v, want %q: %v", k, l[k], v, l)
		}
	}
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"failsim_shadow_divergence_total", map[string]string{"shadow": "aggressive"}, 1},
		{"failsim_shadow_divergence_total", map[string]string{"shadow": "same"}, 0},
		{"failsim_shadow_decisions_total", map[string]string{"shadow": "aggressive", "kind": "failover", "node": "db1"}, 1},
	} {
		v, ok := counter(t, metrics.Registry(), c.name, c.labels)
		if !ok || v != c.want {
			t.Errorf("%s%v = %v (series there: %v), want %v", c.name, c.labels, v, ok, c.want)
		}
	}
	if _, ok := counter(t, metrics.Registry(), "failsim_shadow_decisions_total", map[string]string{"shadow": "same", "kind": "failover", "node": "db1"}); ok {
		t.Errorf("the shadow under the live map has a failover series: it decided none")
	}
}
