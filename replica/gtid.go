package replica

import (
	"fmt"
	"strconv"
	"strings"
)

// Domain is the GTID domain whose sequence number is a position.
const Domain = 0

// Position returns the sequence number of domain Domain in a MariaDB GTID position such as
// "0-1-80" or "0-3-120,1-2-7" (gtid_binlog_pos, gtid_slave_pos, Gtid_IO_Pos); 0 for an empty
// position or one without that domain. Malformed text is an error.
func Position(s string) (int64, error) {
	var pos int64
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	for _, g := range strings.Split(s, ",") {
		parts := strings.Split(strings.TrimSpace(g), "-")
		if len(parts) != 3 {
			return 0, fmt.Errorf("GTID %q: want DOMAIN-SERVER-SEQUENCE", g)
		}
		var n [3]uint64
		for i, p := range parts {
			v, err := strconv.ParseUint(p, 10, 64)
			if err != nil {
				return 0, fmt.Errorf("GTID %q: %q is not a number", g, p)
			}
			n[i] = v
		}
		if n[0] > 1<<32-1 || n[1] > 1<<32-1 || n[2] > 1<<63-1 {
			return 0, fmt.Errorf("GTID %q: out of range", g)
		}
		if n[0] == Domain {
			pos = max(pos, int64(n[2]))
		}
	}
	return pos, nil
}
