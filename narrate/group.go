package narrate

import (
	"fmt"
	"strings"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/group"
	"github.com/failsim/failsim/timeline"
)

// describeGroup says what an event of the managers as a group is, in words; ok is false for an
// event that is none of theirs. A GroupState is no line: its words are "".
func describeGroup(names []string, ev act.Event) (s string, ok bool) {
	switch ev := ev.(type) {
	case *cluster.ViewChanged:
		if ev.Left {
			return fmt.Sprintf("%s left the view of %s after %s", ev.Members.Names(names, " "), ev.Managers.Names(names, " "), plural(ev.Count, "silent tick")), true
		}
		return fmt.Sprintf("%s heard again: joined the view of %s", ev.Members.Names(names, " "), ev.Managers.Names(names, " ")), true
	case *cluster.QuorumChanged:
		return ev.Managers.Names(names, " ") + " quorum: " + Quorum(names, ev.Digest), true
	case *cluster.HostPingFailed:
		return fmt.Sprintf("%s host did not answer %s's ping: host failed", names[ev.Member], names[ev.Coordinator]), true
	case *cluster.SplitBrain:
		if ev.Open {
			return fmt.Sprintf("SPLIT BRAIN: %s writable at once", ev.Writable.Names(names, " ")), true
		}
		if ev.At == ev.From {
			return fmt.Sprintf("split brain over: %s were writable at once for 0s, a zero-length window (within the tick, the majority's failover came before the minority's shun)", ev.Writable.Names(names, " ")), true
		}
		return fmt.Sprintf("split brain over: %s were writable at once for %s", ev.Writable.Names(names, " "), ev.At-ev.From), true
	case *cluster.SplitBrainWidened:
		return fmt.Sprintf("SPLIT BRAIN widens: %s writable in the window, open for %s", ev.Writable.Names(names, " "), ev.At-ev.From), true
	case *cluster.GroupState:
		return "", true
	case *cluster.HostChanged:
		if ev.Down {
			return names[ev.Member] + " host down", true
		}
		return names[ev.Member] + " host up", true
	case *cluster.Partitioned:
		if ev.Segments == nil {
			return "partition heal: one network", true
		}
		if ev.ManagersOnly {
			return "partition of the managers' network " + Segments(names, ev.Segments) + ": the databases' traffic passes", true
		}
		return "partition " + Segments(names, ev.Segments), true
	case *fence.RecoverRefused:
		return fmt.Sprintf("%s recover refused: %s", names[ev.Node], recoverRefused(ev)), true
	case *fence.FailsafeShunned:
		return fmt.Sprintf("%s FAILSAFE-SHUN: its manager's view was not primary for %s: %s shunned", names[ev.Node], plural(ev.Ticks, "tick"), ev.Role), true
	case *fence.CopiesMerged:
		var kept string
		for k, i := range ev.KeptShuns {
			if k == 0 {
				kept = "; keeping the own FAILSAFE-SHUN of "
			} else {
				kept += ", "
			}
			kept += names[i]
		}
		if len(ev.Conflicts) == 0 {
			if kept != "" {
				return fmt.Sprintf("views merged: adopted copy %d of the cluster state%s", ev.Adopted, kept), true
			}
			return fmt.Sprintf("views merged: the sides' copies of the cluster state agree (copy %d)", ev.Copy), true
		}
		var b strings.Builder
		for k, c := range ev.Conflicts {
			if k > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %s (was %s)", names[c.Node], Member(c.Kept), Member(c.Lost))
		}
		return fmt.Sprintf("views merged: adopted copy %d of the cluster state, overwriting %s%s", ev.Adopted, b.String(), kept), true
	}
	return "", false
}

// recoverRefusedDetail is why a recover is refused while the node's view is not primary.
// recoverRefused says why a recover was refused.
func recoverRefused(ev *fence.RecoverRefused) string {
	if ev.ManagerDown {
		return "its manager is down, and only its own manager in a primary partition undoes its FAILSAFE-SHUN"
	}
	return "its manager is not in a primary partition"
}

// Quorum says what a quorum check concluded, with the counts the manager logs.
func Quorum(names []string, d group.Digest) string {
	what := "NON-PRIMARY"
	if d.Primary() {
		what = "PRIMARY"
	}
	return fmt.Sprintf("%s partition of view %s: %d of %d DB members validated, majority %d, %s (%s)",
		what, d.View.Names(names, " "), d.ValidatedDB(), d.DB.Len(), d.Majority, witnesses(d.ValidatedWitnesses()), d.Rule)
}

// Segments says how a partition splits the members: "db1 | db2 db3 w1", segments in the order
// of their first members.
func Segments(names []string, segments []int) string { return timeline.SegmentWords(names, segments) }

// Member says what a node's entry in a copy of the cluster state says: "master", "failed
// replica", "shunned master", "failsafe-shunned master".
func Member(m fence.Member) string {
	switch {
	case m.Failsafe:
		return "failsafe-shunned " + m.Role.String()
	case m.Shunned:
		return "shunned " + m.Role.String()
	case m.Failed:
		return "failed " + m.Role.String()
	}
	return m.Role.String()
}

func witnesses(n int) string {
	if n == 1 {
		return "1 active witness"
	}
	return fmt.Sprintf("%d active witnesses", n)
}
