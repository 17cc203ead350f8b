package monitor

import (
	"slices"
	"time"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/sim"
)

// Script turns a timeline's events into the runtime's actions, in the simulator's order: a
// fault event calls inject (the proxy, in a live replay) and is noted as a *sim.FaultSet;
// manager, policy and recover events go to the engine; cluster end does nothing (set
// Config.End to tl.End).
func Script(tl *sim.Timeline, inject func(node int, f fault.Fault)) []Action {
	var out []Action
	for _, ev := range tl.Events {
		ev := ev
		var do func(c Control)
		switch ev.Kind {
		case sim.SetFault:
			do = func(c Control) {
				inject(ev.Node, ev.Fault)
				c.Note(&sim.FaultSet{At: c.At(), Node: ev.Node, Fault: ev.Fault})
			}
		case sim.ManagerDown, sim.ManagerUp:
			up := ev.Kind == sim.ManagerUp
			do = func(c Control) { c.SetManager(ev.Node, up) }
		case sim.SetPolicy:
			do = func(c Control) { c.SetPolicy(ev.Policy) }
		case sim.Recover:
			do = func(c Control) { c.Recover(ev.Node) }
		default:
			continue
		}
		out = append(out, Action{At: ev.At, Do: do})
	}
	return out
}

// Checkpoints returns the instants the timeline's expectations look at, sorted.
func Checkpoints(tl *sim.Timeline) []time.Duration {
	var cps []time.Duration
	for _, x := range tl.Expects {
		cps = append(cps, x.Checkpoints()...)
	}
	slices.Sort(cps)
	return cps
}
