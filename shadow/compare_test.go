package shadow

import (
	"slices"
	"testing"
	"time"

	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
)

func failover(at time.Duration, node, to int) Decision {
	return Decision{At: at, Kind: fence.KindFailover, Node: node, To: to, Condition: statemap.QueryResultsTimeout}
}

func failed(at time.Duration, node int) Decision {
	return Decision{At: at, Kind: fence.KindNodeFailed, Node: node, To: -1, Condition: statemap.SocketIOError}
}

func noCandidate(at time.Duration, node int) Decision {
	return Decision{At: at, Kind: fence.KindNoCandidate, Node: node, To: -1, Condition: statemap.SocketIOError}
}

// TestCompare pins the comparison on exact streams.
func TestCompare(t *testing.T) {
	s := time.Second
	sh := func(d Decision) Divergence { return Divergence{Shadow: "x", Side: ShadowOnly, Decision: d} }
	lv := func(d Decision) Divergence { return Divergence{Shadow: "x", Side: LiveOnly, Decision: d} }
	cases := []struct {
		name         string
		live, shadow []Decision
		want         []Divergence
	}{
		{"both empty", nil, nil, nil},
		{"the same", []Decision{failed(10*s, 1), failover(20*s, 0, 1)}, []Decision{failed(10*s, 1), failover(20*s, 0, 1)}, nil},
		{"the same at one time in another order", []Decision{failed(10*s, 1), failed(10*s, 2)}, []Decision{failed(10*s, 2), failed(10*s, 1)}, nil},
		{"the shadow alone fails over", nil, []Decision{failover(20*s, 0, 1)}, []Divergence{sh(failover(20*s, 0, 1))}},
		{"the live engine alone fails over", []Decision{failover(20*s, 0, 1)}, nil, []Divergence{lv(failover(20*s, 0, 1))}},
		{"earlier in the shadow", []Decision{failover(50*s, 0, 1)}, []Decision{failover(20*s, 0, 1)},
			[]Divergence{sh(failover(20*s, 0, 1)), lv(failover(50*s, 0, 1))}},
		{"another replica promoted", []Decision{failover(20*s, 0, 2)}, []Decision{failover(20*s, 0, 1)},
			[]Divergence{sh(failover(20*s, 0, 1)), lv(failover(20*s, 0, 2))}},
		{"a failover where the live engine found no candidate", []Decision{noCandidate(20*s, 0)}, []Decision{failover(20*s, 0, 1)},
			[]Divergence{sh(failover(20*s, 0, 1)), lv(noCandidate(20*s, 0))}},
		{"each matched once", []Decision{failed(10*s, 1)}, []Decision{failed(10*s, 1), failed(10*s, 1)}, []Divergence{sh(failed(10*s, 1))}},
		{"a failure the live engine did not make, and a common one", []Decision{failed(10*s, 1)}, []Decision{failed(10*s, 2), failed(10*s, 1)},
			[]Divergence{sh(failed(10*s, 2))}},
		{"the cause does not count", []Decision{{At: s, Kind: fence.KindNodeFailed, Node: 1, To: -1, Condition: statemap.SocketIOError}},
			[]Decision{{At: s, Kind: fence.KindNodeFailed, Node: 1, To: -1, Condition: statemap.QueryResultsTimeout, Ticks: 3, Threshold: 3}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Compare("x", c.live, c.shadow)
			if !slices.Equal(got, c.want) {
				t.Errorf("Compare =\n  %v\nwant\n  %v", got, c.want)
			}
			// Swapped, every side turns.
			back := Compare("x", c.shadow, c.live)
			if len(back) != len(got) {
				t.Errorf("swapped: %d divergences, want %d", len(back), len(got))
			}
			for _, d := range back {
				if !slices.ContainsFunc(got, func(g Divergence) bool { return g.Decision == d.Decision && g.Side != d.Side }) {
					t.Errorf("swapped: %v has no twin on the other side", d)
				}
			}
		})
	}
}

// TestDescribe pins the words of a divergence.
func TestDescribe(t *testing.T) {
	names := []string{"db1", "db2", "db3"}
	d := failover(740*time.Second, 0, 1)
	d.Ticks, d.Threshold = 8, 8
	cases := []struct {
		d    Divergence
		want string
	}{
		{Divergence{Shadow: "aggressive", Side: ShadowOnly, Decision: d},
			"shadow aggressive would have failed master db1 over to db2 (query_results_timeout for 8 ticks, threshold 8); the live engine did not"},
		{Divergence{Shadow: "lenient", Side: LiveOnly, Decision: failed(0, 2)},
			"shadow lenient would not have: the live engine failed db3 (socket_io_error)"},
		{Divergence{Shadow: "x", Side: ShadowOnly, Decision: noCandidate(0, 0)},
			"shadow x would have failed master db1 with no replica to promote (socket_io_error); the live engine did not"},
		{Divergence{Shadow: "x", Side: ShadowOnly, Decision: Decision{Kind: fence.KindNodeFailed, Node: 1, To: -1, Condition: statemap.HostIsDown, Host: true}},
			"shadow x would have failed db2 (host failure: its host did not answer the coordinator's ping); the live engine did not"},
	}
	for _, c := range cases {
		if got := c.d.Describe(names); got != c.want {
			t.Errorf("Describe =\n  %s\nwant\n  %s", got, c.want)
		}
	}
}
