package sim

import "github.com/failsim/failsim/drive"

// Actions returns tl's events as the driver's script, in their order: a fault, a manager
// stopping or starting, a policy change, an operator's recover. "cluster end" is no action:
// it is tl.End, the driver's Config.End.
func Actions(tl *Timeline) []drive.Action {
	out := make([]drive.Action, 0, len(tl.Events))
	for i := range tl.Events {
		ev := &tl.Events[i]
		a := drive.Action{At: ev.At, Node: ev.Node}
		switch ev.Kind {
		case SetFault:
			a.Kind, a.Fault = drive.SetFault, ev.Fault
		case ManagerDown:
			a.Kind = drive.ManagerDown
		case ManagerUp:
			a.Kind = drive.ManagerUp
		case SetPolicy:
			a.Kind, a.Policy = drive.SetPolicy, ev.Policy
		case Recover:
			a.Kind = drive.Recover
		default:
			continue
		}
		out = append(out, a)
	}
	return out
}
