package monitor

import (
	"context"
	"strings"
	"testing"
	"time"


	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/proxy"
	"github.com/failsim/failsim/sim"
)

// TestConformanceFaults: for every fault a proxy can make on loopback, the real checker
// probing the real MariaDB through the proxy ends in exactly the condition the simulator's
// fault model predicts, within the predicted time +-500 ms.
func TestConformanceFaults(t *testing.T) {
	s := needMariaDB(t)
	px, err := proxy.New(proxy.Config{Nodes: []proxy.NodeConfig{{Name: "db1", Listen: "127.0.0.1:0", Upstream: s.Addr}}})
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	node, _ := px.Node("db1")
	const budget = 1500 * time.Millisecond
	c, err := NewChecker(CheckerConfig{DSN: s.DSN(node.Addr()), Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	faults := []string{"heal", "refuse", "reset", "close", "freeze", "blackhole", "stall",
		"slow 300ms", "slow 2s", "error 1040", "error 1045", "error 1130"}
	covered := map[fault.Kind]bool{}
	for _, spec := range faults {
		f, err := fault.Parse(strings.Fields(spec))
		if err != nil {
			t.Fatal(err)
		}
		covered[f.Kind] = true
		t.Run(spec, func(t *testing.T) {
			if err := px.SetMode("db1", proxy.Mode{Fault: f}); err != nil {
				t.Fatal(err)
			}
			defer px.SetMode("db1", proxy.Mode{})
			want := sim.Predict(f, budget)
			start := time.Now()
			r := c.Probe(context.Background())
			took := time.Since(start)
			if r.Condition != want.Condition {
				t.Errorf("%s: live probe ended %s in phase %s (%v) after %v; the simulator predicts %s", spec, r.Condition, r.Phase, r.Err, took, want.Condition)
			}
			if d := took - want.Took; d > 500*time.Millisecond || d < -500*time.Millisecond {
				t.Errorf("%s: live probe took %v; the simulator predicts %v (+-500ms)", spec, took, want.Took)
			}
			if took > budget+100*time.Millisecond {
				t.Errorf("%s: probe took %v, budget %v: want at most budget+100ms", spec, took, budget)
			}
		})
	}
	for _, k := range fault.Kinds() {
		if k.Wire() && !covered[k] {
			t.Errorf("wire fault %s has no conformance case", k)
		}
	}
}
