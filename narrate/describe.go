package narrate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
)

// Describe says what an event is, in words, without its time: one of the engine's decisions, or
// the driver's note of a fault (*act.FaultSet). It is the event log's line after the clock
// time, and the words a verdict quotes an event with.
func Describe(names []string, ev act.Event) string {
	if s, ok := describeGroup(names, ev); ok {
		return s
	}
	switch ev := ev.(type) {
	case *fence.StateChanged:
		return fmt.Sprintf("%s state %s -> %s (%s)", names[ev.Node], ev.From, ev.To, ev.Condition)
	case *fence.AlarmRaised:
		return fmt.Sprintf("%s alarm raised: %s (threshold %d, action %s)", names[ev.Node], ev.Condition, ev.Threshold, ev.Action)
	case *fence.AlarmExpired:
		return fmt.Sprintf("%s alarm expired: %s after %s (threshold %d): action %s, coordinator %s", names[ev.Node], ev.Condition, plural(ev.Count, "tick"), ev.Threshold, ev.Action, names[ev.Coordinator])
	case *fence.AlarmHealed:
		return fmt.Sprintf("%s alarm self-healed: %s after %s (threshold %d)", names[ev.Node], ev.Condition, plural(ev.Count, "tick"), ev.Threshold)
	case *fence.AlarmCleared:
		by := "maintenance"
		if ev.By == fence.ClearedByRecover {
			by = "the operator's recover"
		}
		return fmt.Sprintf("%s alarm cleared by %s: %s after %s (threshold %d)", names[ev.Node], by, ev.Condition, plural(ev.Count, "tick"), ev.Threshold)
	case *fence.ExpiryWaiting:
		return fmt.Sprintf("%s alarm expired: %s after %s, but there is no coordinator to fence: waiting", names[ev.Node], ev.Condition, plural(ev.Count, "tick"))
	case *fence.Logged:
		return fmt.Sprintf("%s %s: action none, logged only", names[ev.Node], ev.Condition)
	case *fence.AlertNotImplemented:
		return fmt.Sprintf("%s %s: action alert: ALERT NOT IMPLEMENTED", names[ev.Node], ev.Condition)
	case *fence.AlreadyFailed:
		if ev.Host {
			return fmt.Sprintf("%s %s: host failed, but %s is already failed", names[ev.Node], hostDetail, names[ev.Node])
		}
		return fmt.Sprintf("%s %s: action fail, but %s is already failed", names[ev.Node], ev.Condition, names[ev.Node])
	case *fence.NodeFailed:
		if ev.Host {
			return fmt.Sprintf("%s FAILED: %s out of service (%s)", names[ev.Node], ev.Role, hostDetail)
		}
		if d := nodeFailedDetail(ev); d != "" {
			return fmt.Sprintf("%s FAILED: %s out of service (%s); %s", names[ev.Node], ev.Role, ev.Condition, d)
		}
		return fmt.Sprintf("%s FAILED: %s out of service (%s)", names[ev.Node], ev.Role, ev.Condition)
	case *fence.Failover:
		if ev.Host {
			return fmt.Sprintf("%s FAILOVER: master %s failed (%s), %s is master", names[ev.Node], names[ev.Node], hostDetail, names[ev.To])
		}
		return fmt.Sprintf("%s FAILOVER: master %s failed (%s), %s is master", names[ev.Node], names[ev.Node], ev.Condition, names[ev.To])
	case *fence.NoCandidate:
		if ev.Host {
			return fmt.Sprintf("%s FAILED: master out of service (%s); no failover: no replica eligible (%s); the cluster has no master", names[ev.Node], hostDetail, Ineligible(names, ev.Ineligible))
		}
		return fmt.Sprintf("%s FAILED: master out of service (%s); no failover: no replica eligible (%s); the cluster has no master", names[ev.Node], ev.Condition, Ineligible(names, ev.Ineligible))
	case *fence.NodeRecovered:
		return fmt.Sprintf("%s recovered: back in service as %s (%s)", names[ev.Node], ev.Role, ev.By)
	case *fence.RecoverIgnored:
		return fmt.Sprintf("%s recover ignored: %s", names[ev.Node], recoverIgnoredDetail)
	case *fence.PolicyChanged:
		return fmt.Sprintf("cluster policy %s", ev.Policy)
	case *fence.ManagerDown:
		return fmt.Sprintf("%s manager down", names[ev.Node])
	case *fence.ManagerUp:
		return fmt.Sprintf("%s manager up", names[ev.Node])
	case *fence.CoordinatorChanged:
		if ev.Coordinator < 0 && ev.NoPrimary {
			return "cluster coordinator none: no primary partition"
		}
		if ev.Coordinator < 0 {
			return "cluster coordinator none: no manager is up"
		}
		return "cluster coordinator " + names[ev.Coordinator]
	case *act.FaultSet:
		return names[ev.Node] + " fault " + ev.Fault.String()
	}
	if s, ok := describeRepl(names, ev); ok {
		return s
	}
	return fmt.Sprintf("%T", ev)
}

// hostDetail is what failed a node whose host did not answer the coordinator's ping.
const hostDetail = "host did not answer the coordinator's ping"

// ManualNoFailover is why a master failed under manual policy is no failover: the detail of
// its event, and what the verdict says of it.
const ManualNoFailover = "manual policy: no failover"

// The other fixed details of the JSON output, as the events of old carried them.
const (
	alertDetail          = "ALERT NOT IMPLEMENTED"
	recoverIgnoredDetail = "not failed"
)

// nodeFailedDetail says why a failed node is no failover: a master is failed without one only
// under manual policy. A replica's needs no word.
func nodeFailedDetail(ev *fence.NodeFailed) string {
	if ev.Role == fence.Master {
		return ManualNoFailover
	}
	return ""
}

// Ineligible says why no node was promoted at a NoCandidate, node by node in cluster order:
// "db2 is failed, db3's manager is down"; "the cluster has no replica" when it has no other
// node.
func Ineligible(names []string, why []fence.Ineligible) string {
	if len(why) == 0 {
		return "the cluster has no replica"
	}
	var b strings.Builder
	for k, x := range why {
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(names[x.Node])
		switch x.Why {
		case fence.IsFailed:
			b.WriteString(" is failed")
		case fence.ManagerIsDown:
			b.WriteString("'s manager is down")
		case fence.NeverProbed:
			b.WriteString(" has not been probed yet")
		case fence.LastProbeNotOK:
			b.WriteString("'s last probe was not ok")
		case fence.NotInView:
			b.WriteString(" is not in the coordinator's view")
		case fence.NotChosen:
			b.WriteString(" was eligible, but the candidate rule chose no node")
		default:
			b.WriteString(": " + x.Why.String())
		}
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// AppendDescribe appends Describe(names, ev) to b: the event log's commonest lines with
// appends, the others through Describe.
func AppendDescribe(b []byte, names []string, ev act.Event) []byte {
	switch ev := ev.(type) {
	case *fence.StateChanged:
		b = append(append(b, names[ev.Node]...), " state "...)
		b = append(append(b, ev.From.String()...), " -> "...)
		b = append(append(b, ev.To.String()...), " ("...)
		return append(append(b, ev.Condition.String()...), ')')
	case *fence.AlarmRaised:
		b = append(append(b, names[ev.Node]...), " alarm raised: "...)
		b = append(append(b, ev.Condition.String()...), " (threshold "...)
		b = append(appendInt(b, ev.Threshold), ", action "...)
		return append(append(b, ev.Action.String()...), ')')
	case *act.FaultSet:
		b = append(append(b, names[ev.Node]...), " fault "...)
		return append(b, ev.Fault.String()...)
	}
	return append(b, Describe(names, ev)...)
}

// appendInt appends n in decimal.
func appendInt(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }
