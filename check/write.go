package check

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/narrate"
	"github.com/failsim/failsim/property"
	"github.com/failsim/failsim/timeline"
)

// Timeline writes trace tl as timeline text: a comment header (each line of header prefixed
// with "# "), the cluster, the checker, the family the trace was generated in (so that its
// replay judges no-false-failover as failsim check did), the liveness thresholds when set, the
// statemap statement when smPath is not "", the policy when not automatic, the replication
// settings, the events at clock times (partitions, host events and replication events too),
// "cluster end", and one expect line per property.
func Timeline(tl *timeline.Timeline, header []string, smPath string, props ...property.Spec) []byte {
	var b bytes.Buffer
	for _, h := range header {
		b.WriteString(strings.TrimRight("# "+h, " ") + "\n")
	}
	b.WriteString("cluster")
	for _, n := range tl.Nodes {
		fmt.Fprintf(&b, " %s:%s", n.Name, n.Role)
	}
	for _, w := range tl.Witnesses {
		fmt.Fprintf(&b, " %s:witness", w)
	}
	fmt.Fprintf(&b, "\nchecker interval=%s timeout=%s\n", tl.Interval, tl.Timeout)
	if tl.GapThreshold > 0 || tl.FailsafeThreshold > 0 {
		b.WriteString("liveness")
		if tl.GapThreshold > 0 {
			fmt.Fprintf(&b, " gap-threshold=%d", tl.GapThreshold)
		}
		if tl.FailsafeThreshold > 0 {
			fmt.Fprintf(&b, " failsafe-threshold=%d", tl.FailsafeThreshold)
		}
		b.WriteString("\n")
	}
	if tl.Family != "" {
		fmt.Fprintf(&b, "family %s\n", tl.Family)
	}
	if smPath != "" {
		fmt.Fprintf(&b, "statemap %s\n", filepath.ToSlash(smPath))
	}
	if tl.Policy != fence.Automatic {
		fmt.Fprintf(&b, "policy %s\n", tl.Policy)
	}
	b.WriteString(replSettings(tl.Repl))
	b.WriteString("\n")
	k := 0 // the next replication event: at one instant they come first, as a replay applies them
	names := tl.Names()
	for _, ev := range tl.Events {
		for ; k < replCount(tl) && tl.Repl.Events[k].At <= ev.At; k++ {
			b.WriteString(replLine(tl, tl.Repl.Events[k]))
		}
		at := narrate.Clock(tl.Start, ev.At)
		switch ev.Kind {
		case timeline.SetFault:
			fmt.Fprintf(&b, "%s %s %s\n", at, names[ev.Node], ev.Fault)
		case timeline.ManagerDown:
			fmt.Fprintf(&b, "%s %s manager down\n", at, names[ev.Node])
		case timeline.ManagerUp:
			fmt.Fprintf(&b, "%s %s manager up\n", at, names[ev.Node])
		case timeline.HostDown:
			fmt.Fprintf(&b, "%s %s host down\n", at, names[ev.Node])
		case timeline.HostUp:
			fmt.Fprintf(&b, "%s %s host up\n", at, names[ev.Node])
		case timeline.Partition:
			if oneNetwork(ev.Segments) {
				// The parser refuses a partition that cuts nothing; it decides as a heal.
				fmt.Fprintf(&b, "%s partition heal\n", at)
			} else {
				fmt.Fprintf(&b, "%s partition %s\n", at, narrate.Segments(names, ev.Segments))
			}
		case timeline.Recover:
			fmt.Fprintf(&b, "%s %s recover\n", at, names[ev.Node])
		case timeline.SetPolicy:
			fmt.Fprintf(&b, "%s cluster policy %s\n", at, ev.Policy)
		}
	}
	for ; k < replCount(tl) && tl.Repl.Events[k].At <= tl.End; k++ {
		b.WriteString(replLine(tl, tl.Repl.Events[k]))
	}
	fmt.Fprintf(&b, "%s cluster end\n\n", narrate.Clock(tl.Start, tl.End))
	for _, p := range props {
		fmt.Fprintf(&b, "expect property %s\n", p)
	}
	return b.Bytes()
}

// oneNetwork reports whether a partition's segments leave every member on one: nil (a heal),
// or a split the generator or the shrinker left separating no one.
func oneNetwork(segments []int) bool {
	for _, s := range segments {
		if s != segments[0] {
			return false
		}
	}
	return true
}
