package livereplay

import (
	"fmt"
	"strings"
	"time"

	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// StateChange is a node's datasource state changing (fence.StateChanged), by name, with the
// probe's condition that changed it.
type StateChange struct {
	At        time.Duration
	Node      string
	From, To  statemap.State
	Condition statemap.Condition
}

// CompareStates judges each node's state changes live against the simulated ones: the same
// changes (from, to) in the same order, each within one tick of the simulated time, the
// tolerance of Compare. names are the nodes in cluster order. It returns one line per node
// ("agree ..." or "DIFFER ...", the changes in clock times from start, live ones with how far
// off; a differing node's with the condition of each change) and whether all agree. The
// conditions are not compared: a node stopped by socket_io_error live and by a refused
// connection's twin in the simulator changed the same way.
func CompareStates(start time.Time, names []string, simulated, live []StateChange) ([]string, bool) {
	ok := true
	var out []string
	for _, n := range names {
		s, l := of(simulated, n), of(live, n)
		same := len(s) == len(l)
		for i := 0; same && i < len(s); i++ {
			d := l[i].At - s[i].At
			same = s[i].From == l[i].From && s[i].To == l[i].To && d <= statemap.TickInterval && d >= -statemap.TickInterval
		}
		if same {
			var parts []string
			for i, c := range s {
				parts = append(parts, fmt.Sprintf("%s %s (live %+.1fs)", timeline.Clock(start, c.At), c.To, (l[i].At-c.At).Seconds()))
			}
			if len(parts) == 0 {
				parts = []string{"no change"}
			}
			out = append(out, fmt.Sprintf("agree   %s: %s", n, strings.Join(parts, ", ")))
			continue
		}
		ok = false
		out = append(out, fmt.Sprintf("DIFFER  %s: simulated %s; live %s", n, changes(start, s), changes(start, l)))
	}
	return out, ok
}

func of(cs []StateChange, node string) []StateChange {
	var out []StateChange
	for _, c := range cs {
		if c.Node == node {
			out = append(out, c)
		}
	}
	return out
}

func changes(start time.Time, cs []StateChange) string {
	if len(cs) == 0 {
		return "no change"
	}
	var parts []string
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%s %s (%s)", timeline.Clock(start, c.At.Round(time.Millisecond)), c.To, c.Condition))
	}
	return strings.Join(parts, ", ")
}
