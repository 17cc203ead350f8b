// Package timing works out, in closed form, how long after a fault starts on a node's database
// link the engine takes to show it, to raise its alarm and to fence the node: for each fault of
// the fault table (faultmodel.Table), the earliest and the latest time from the fault's start to
// the node's datasource state change, to its alarm, and to its fence (a replica failed, a master
// failed over), over every phase of the node's probes against the fault's start and of the
// timekeeper's ticks against both.
//
// The model is the engine's (docs/engine.md). The node was healthy before the fault: its probes
// ended ok at once and started every interval, none under way, no alarm active. The first probe
// that starts at or after the fault's start (a probe starting at the very instant meets the
// fault: events come first) starts a in [0, interval) after it, and ends Took later (the
// checker's budget for a timeout, the delay of a slow reply, else at once) in the fault's
// condition. Its outcome changes the state to the condition's state and raises the alarm, both
// at a+Took. An alarm with threshold 0 expires when it is raised; one with threshold N >= 1 at
// the N-th tick at or after it was raised (a tick at that very instant counts: finished probes
// come before the tick), which is g in [0, 10 s) after it plus N-1 ticks. The probe phase a
// and the tick phase g are independent: the probe schedule shifts against the ticks whenever a
// manager restarts or a probe takes longer than the interval. So:
//
//	state change, alarm:  [Took, Took+interval)
//	fence, threshold 0:   [Took, Took+interval)
//	fence, threshold N:   [Took+(N-1)×10 s, Took+interval+N×10 s)
//
// Latest is a bound approached and never reached: a fault that starts just after a probe
// started waits almost a whole interval, an alarm raised just after a tick almost a whole tick.
// Never is when it does not happen at all: an ok outcome changes nothing; a condition mapped to
// online shows no change; an alarm that never expires (threshold -1), or whose action is not
// fail, fences nothing. The fence assumes the automatic policy and a coordinator up.
//
// The package is pure arithmetic: no I/O, no clock. Its test replays every fault row through
// the simulator with the fault starting at every whole second over lcm(interval, 10 s) and the
// probes at every whole-second phase (finer for a probe that takes a fraction of a second), and
// holds the replayed times to these bounds.
package timing
