// Package orchcore is one run's decision core under Orchestrator's rules (package
// orchestrator), beside package core's under the Tungsten Manager's: Orchestrator's one
// process, polling every instance, analysing the master each second and recovering it, over
// the world a timeline describes (the faults on the nodes' links, the replicas' lags and
// streams).
//
// It implements drive.Machine so that the one scheduler drives it, with the same adapters and
// observers, and adds the one call Orchestrator needs that Tungsten's core does not: Step(t),
// which the adapter makes at each instant once the driver has begun it, since Orchestrator
// decides at instants of its own (its one-second ticks: Next, which the adapter hands the
// driver as drive.Config.Wake) from what the world does, not from probes the driver runs. It
// takes no probe (Steady says none would change anything, so the driver runs none) and makes
// no Tungsten tick. It is pure: no I/O, no clock, no goroutines.
package orchcore
