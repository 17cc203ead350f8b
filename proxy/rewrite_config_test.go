package proxy

import (
	"slices"
	"strings"
	"testing"
)

func TestParseConfigRewriteTopology(t *testing.T) {
	fc, err := ParseConfig("p.conf", strings.NewReader(`node db1 127.0.0.1:4001 127.0.0.1:3306 rewrite-topology topology-alias 127.0.0.1:5001 topology-alias db1.example:3306
node db2 127.0.0.1:4002 127.0.0.1:3307 freeze after 10 bytes rewrite-topology
node db3 127.0.0.1:4003 127.0.0.1:3308 delay 10ms
`))
	if err != nil {
		t.Fatal(err)
	}
	n := fc.Nodes
	if !n[0].RewriteTopology || !slices.Equal(n[0].TopologyAliases, []string{"127.0.0.1:5001", "db1.example:3306"}) ||
		!n[1].RewriteTopology || n[1].Mode.String() != "freeze after 10 bytes" || n[2].RewriteTopology || n[2].TopologyAliases != nil {
		t.Errorf("parsed %+v", n)
	}
	for _, tc := range []struct{ in, want string }{
		{"node db1 127.0.0.1:0 127.0.0.1:1 rewrite-topology rewrite-topology", "p.conf:1: node db1: rewrite-topology given twice"},
		{"node db1 127.0.0.1:0 127.0.0.1:1 rewrite-topology topology-alias", "p.conf:1: node db1: topology-alias wants an ADDR, e.g. topology-alias db1.example:3306"},
		{"node db1 127.0.0.1:0 127.0.0.1:1 topology-alias db1", `p.conf:1: node db1: topology alias "db1": address db1: missing port in address`},
		{"node db1 127.0.0.1:0 127.0.0.1:1 rewrite-topology explode", `p.conf:1: node db1: unknown fault "explode"`},
	} {
		if _, err := ParseConfig("p.conf", strings.NewReader(tc.in)); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %s", tc.in, err, tc.want)
		}
	}
}
