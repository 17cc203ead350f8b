package livereplay

import (
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/fence"
)

// Compare agrees on the same decisions within one tick, and says where they differ.
func TestCompare(t *testing.T) {
	start := time.Date(1970, 1, 1, 3, 0, 0, 0, time.UTC)
	s := time.Second
	fo := Decision{At: 100 * s, Kind: fence.KindFailover, Node: "db1", Other: "db2"}
	late := fo
	late.At = 111 * s
	for _, c := range []struct {
		name            string
		simulated, live []Decision
		ok              bool
		lines           string
	}{
		{"none", nil, nil, true, "agree   no failover and no failed node"},
		{"same, within a tick", []Decision{fo}, []Decision{{At: 109 * s, Kind: fence.KindFailover, Node: "db1", Other: "db2"}}, true, "agree   03:01:40 failover db1 -> db2 (live +9.0s)"},
		{"later than a tick", []Decision{fo}, []Decision{late}, false, "DIFFER  simulated 03:01:40 failover db1 -> db2; live 03:01:51 failover db1 -> db2"},
		{"other candidate", []Decision{fo}, []Decision{{At: 100 * s, Kind: fence.KindNoCandidate, Node: "db1"}}, false, "DIFFER  simulated 03:01:40 failover db1 -> db2; live 03:01:40 failover of db1, no replica eligible"},
		{"missing live", []Decision{fo}, nil, false, "DIFFER  simulated 03:01:40 failover db1 -> db2; live: nothing"},
		{"extra live", nil, []Decision{{At: 5 * s, Kind: fence.KindNodeFailed, Node: "db3"}}, false, "DIFFER  live 03:00:05 db3 failed; simulated: nothing"},
	} {
		lines, ok := Compare(start, c.simulated, c.live)
		if ok != c.ok || strings.Join(lines, "\n") != c.lines {
			t.Errorf("%s: %v %q, want %v %q", c.name, ok, lines, c.ok, c.lines)
		}
	}
}
