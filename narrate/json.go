package narrate

import (
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/timeline"
)

// EventJSON is the stable JSON form of an event: one object per line of failsim replay's and
// failsim watch's --format json. Text is Describe's line; the other fields are set as the
// event has them.
type EventJSON struct {
	T         float64 `json:"t"`    // seconds since the start
	Time      string  `json:"time"` // clock time
	Event     string  `json:"event"`
	Node      string  `json:"node,omitempty"`
	Condition string  `json:"condition,omitempty"`
	From      string  `json:"from,omitempty"`
	To        string  `json:"to,omitempty"`
	Count     *int    `json:"count,omitempty"`
	Threshold *int    `json:"threshold,omitempty"`
	Action    string  `json:"action,omitempty"`
	Role      string  `json:"role,omitempty"`
	Master    string  `json:"master,omitempty"`
	Coord     *string `json:"coordinator,omitempty"`
	Policy    string  `json:"policy,omitempty"`
	Detail    string  `json:"detail,omitempty"`
	Text      string  `json:"text"`
}

// JSON returns event ev as its JSON object, in a run that started at start.
func JSON(start time.Time, names []string, ev act.Event) EventJSON {
	at := ev.When()
	j := EventJSON{T: at.Seconds(), Time: timeline.Clock(start, at), Text: Describe(names, ev)}
	if d, ok := ev.(fence.Decision); ok {
		j.Event = d.Kind().String()
	}
	ints := func(a, b int) (*int, *int) { return &a, &b }
	switch ev := ev.(type) {
	case *fence.StateChanged:
		j.Node, j.Condition, j.From, j.To = names[ev.Node], ev.Condition.String(), ev.From.String(), ev.To.String()
	case *fence.AlarmRaised:
		thr := ev.Threshold
		j.Node, j.Condition, j.Threshold, j.Action = names[ev.Node], ev.Condition.String(), &thr, ev.Action.String()
	case *fence.AlarmExpired:
		j.Node, j.Condition, j.Action = names[ev.Node], ev.Condition.String(), ev.Action.String()
		j.Count, j.Threshold = ints(ev.Count, ev.Threshold)
	case *fence.ExpiryWaiting:
		j.Node, j.Condition, j.Action = names[ev.Node], ev.Condition.String(), ev.Action.String()
		j.Count, j.Threshold = ints(ev.Count, ev.Threshold)
	case *fence.AlarmHealed:
		j.Node, j.Condition = names[ev.Node], ev.Condition.String()
		j.Count, j.Threshold = ints(ev.Count, ev.Threshold)
	case *fence.AlarmCleared:
		j.Node, j.Condition, j.Detail = names[ev.Node], ev.Condition.String(), ev.By.String()
		j.Count, j.Threshold = ints(ev.Count, ev.Threshold)
	case *fence.Logged:
		j.Node, j.Condition = names[ev.Node], ev.Condition.String()
	case *fence.AlertNotImplemented:
		j.Node, j.Condition, j.Detail = names[ev.Node], ev.Condition.String(), alertDetail
	case *fence.AlreadyFailed:
		j.Node, j.Condition = names[ev.Node], ev.Condition.String()
	case *fence.NodeFailed:
		j.Node, j.Condition, j.Role, j.Detail = names[ev.Node], ev.Condition.String(), ev.Role.String(), nodeFailedDetail(ev)
	case *fence.Failover:
		j.Node, j.Condition, j.Master = names[ev.Node], ev.Condition.String(), names[ev.To]
	case *fence.NoCandidate:
		j.Node, j.Condition, j.Detail = names[ev.Node], ev.Condition.String(), Ineligible(names, ev.Ineligible)
	case *fence.NodeRecovered:
		j.Node, j.Role, j.Detail = names[ev.Node], ev.Role.String(), ev.By.String()
	case *fence.RecoverIgnored:
		j.Node, j.Detail = names[ev.Node], recoverIgnoredDetail
	case *fence.PolicyChanged:
		j.Policy = ev.Policy.String()
	case *fence.ManagerDown:
		j.Node = names[ev.Node]
	case *fence.ManagerUp:
		j.Node = names[ev.Node]
	case *fence.CoordinatorChanged:
		c := ""
		if ev.Coordinator >= 0 {
			c = names[ev.Coordinator]
		}
		j.Coord = &c
	case *act.FaultSet:
		j.Event, j.Node, j.Detail = "fault", names[ev.Node], ev.Fault.String()
	case *fence.RecoverRefused:
		j.Node, j.Detail = names[ev.Node], recoverRefused(ev)
	case *fence.FailsafeShunned:
		j.Node, j.Role = names[ev.Node], ev.Role.String()
		j.Count, j.Threshold = ints(ev.Ticks, ev.Ticks)
	case *cluster.ViewChanged:
		j.Event, j.Node, j.Detail = "view-joined", ev.Members.Names(names, " "), ev.Managers.Names(names, " ")
		if ev.Left {
			j.Event, j.Count = "view-left", &ev.Count
		}
	case *cluster.QuorumChanged:
		j.Event, j.Node, j.Detail = "quorum", ev.Managers.Names(names, " "), ev.Digest.Rule.String()
	case *cluster.HostPingFailed:
		c := names[ev.Coordinator]
		j.Event, j.Node, j.Coord = "host-ping-failed", names[ev.Member], &c
	case *cluster.SplitBrain:
		j.Event, j.Detail = "split-brain-closed", ev.Writable.Names(names, " ")
		if ev.Open {
			j.Event = "split-brain-open"
		}
	case *cluster.SplitBrainWidened:
		j.Event, j.Detail = "split-brain-widened", ev.Writable.Names(names, " ")
	case *cluster.HostChanged:
		j.Event, j.Node = "host-up", names[ev.Member]
		if ev.Down {
			j.Event = "host-down"
		}
	case *cluster.Partitioned:
		j.Event = "partition"
		if ev.ManagersOnly {
			j.Event = "partition-managers"
		}
		if ev.Segments != nil {
			j.Detail = Segments(names, ev.Segments)
		}
	default:
		replJSON(&j, names, ev)
	}
	if ev, ok := ev.(*fence.NodeFailed); ok && ev.Host {
		j.Detail = hostDetail
	}
	if ev, ok := ev.(*fence.Failover); ok && ev.Host {
		j.Detail = hostDetail
	}
	return j
}
