package main

import (
	"strings"
	"testing"

	"github.com/failsim/failsim/timeline"
)

// A --mysql value is NODE=DSN only when what comes before its first "=" cannot be the start
// of a DSN: a password or a parameter with "=" stays a DSN.
func TestNodeDSN(t *testing.T) {
	for _, c := range []struct {
		v, node, dsn string
		ok           bool
	}{
		{"db1=probe@tcp(127.0.0.1:3306)/", "db1", "probe@tcp(127.0.0.1:3306)/", true},
		{"db-1.east=probe:pw=x@tcp(h:1)/", "db-1.east", "probe:pw=x@tcp(h:1)/", true},
		{"probe@tcp(127.0.0.1:3306)/?timeout=2s", "", "probe@tcp(127.0.0.1:3306)/?timeout=2s", false},
		{"probe:pa=ss@tcp(127.0.0.1:3306)/", "", "probe:pa=ss@tcp(127.0.0.1:3306)/", false},
		{"=probe@tcp(h:1)/", "", "=probe@tcp(h:1)/", false},
		{"probe@tcp(h:1)/", "", "probe@tcp(h:1)/", false},
	} {
		node, dsn, ok := nodeDSN(c.v)
		if node != c.node || dsn != c.dsn || ok != c.ok {
			t.Errorf("nodeDSN(%q) = %q, %q, %v; want %q, %q, %v", c.v, node, dsn, ok, c.node, c.dsn, c.ok)
		}
	}
}

// FuzzLiveServers: no --mysql values panic the reading of them, a value read as NODE=DSN
// splits at its first "=", and a per-node answer has one DSN for every node.
func FuzzLiveServers(f *testing.F) {
	tl, err := timeline.Parse("w.timeline", []byte("cluster db1:master db2:replica\nworkload writes=5/s\n00:00:10 cluster end\n"))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"db1=probe@tcp(h:1)/\x00db2=probe@tcp(h:2)/", "probe@tcp(h:1)/", "db1=a\x00db1=b", "x=y\x00probe@tcp(h:1)/", "db9=\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		values := strings.Split(s, "\x00")
		for _, v := range values {
			if node, dsn, ok := nodeDSN(v); ok && node+"="+dsn != v {
				t.Fatalf("nodeDSN(%q) = %q, %q", v, node, dsn)
			}
		}
		got, err := liveServers(values, tl)
		if err == nil && len(got.perNode) != len(tl.Nodes) {
			t.Fatalf("liveServers(%q) = %+v with no error: want a DSN for each of %d nodes", values, got, len(tl.Nodes))
		}
	})
}
