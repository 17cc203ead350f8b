// Package sim is the simulator: the adapter that runs the decision engine through a timeline
// in virtual time.
//
// Replay builds a fresh engine for the timeline's cluster and runs package drive's scheduler
// on it, jumping a virtual clock from one instant to the next: it hands the driver the fault
// model (faultmodel.Predict), so every probe's outcome is known when the probe starts and a
// probe that would change nothing is not run, and it stops at the instants the timeline's
// expectations look at. A simulated day costs what changes in it, not its length. The live
// runtime (package monitor) runs the very same scheduler on real probes and a real clock.
//
// Run is failsim replay: a replay with the event log, the verdict (package report) and fresh
// observers of the timeline's expectations (package expect). The timeline itself is package
// timeline's; the golden tests of every engine rule (testdata/rules) and of every shipped
// incident live here.
package sim
