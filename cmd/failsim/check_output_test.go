package main

import (
	"testing"
)

// TestParseShard: K/N and auto/N, K from JOB_COMPLETION_INDEX.
func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		flag, env     string
		traces        int
		shard, shards int
		err           string
	}{
		{"", "", 10, 0, 0, ""},
		{"0/1", "", 10, 0, 1, ""},
		{"3/4", "", 10, 3, 4, ""},
		{"auto/4", "2", 10, 2, 4, ""},
		{"auto/4", "4", 10, 0, 0, `--shard auto/4: JOB_COMPLETION_INDEX "4": want K from 0 to 3`},
		{"auto/4", "", 10, 0, 0, `--shard auto/4: JOB_COMPLETION_INDEX "": want K from 0 to 3`},
		{"4/4", "", 10, 0, 0, "--shard 4/4: want K from 0 to 3"},
		{"1/-2", "", 10, 0, 0, `--shard "1/-2": want K/N, N a whole number of shards from 1`},
		{"1/11", "", 10, 0, 0, "--shard 1/11: 11 shards of 10 traces: want at least one trace a shard"},
	} {
		t.Setenv("JOB_COMPLETION_INDEX", c.env)
		k, n, err := parseShard(c.flag, c.traces)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if k != c.shard || n != c.shards || msg != c.err {
			t.Errorf("--shard %q (JOB_COMPLETION_INDEX=%q): %d of %d, %q; want %d of %d, %q", c.flag, c.env, k, n, msg, c.shard, c.shards, c.err)
		}
	}
}

// FuzzParseShard: no --shard value makes the parser panic, and what it accepts is a shard of
// the run with at least one trace.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/4", "auto/4", "3/4", "4/4", "-1/4", "1/0", "x", "/", "1/", "/1", "9999999999999999999/2", "0/9999999999999999999"} {
		f.Add(s, 100)
	}
	f.Fuzz(func(t *testing.T, s string, traces int) {
		k, n, err := parseShard(s, traces)
		if err != nil || s == "" {
			return
		}
		if n < 1 || k < 0 || k >= n || n > traces {
			t.Fatalf("--shard %q of %d traces: accepted as %d of %d", s, traces, k, n)
		}
	})
}
