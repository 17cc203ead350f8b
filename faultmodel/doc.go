// Package faultmodel is the simulator's fault model: what a probe started while a node's
// database link has a fault ends in, and after how long (Predict), and whether the fault means
// the database is dead, so that fencing it was right (DatabaseDead).
//
// The model is the checker's view of the wire faults of package fault, under one probe budget:
// a fault that makes the probe wait (a frozen server, a SYN never answered, a stalled query)
// ends in its timeout condition after the whole budget; every other ends at once, or after the
// delay of slow. The simulator hands Predict to the driver to foresee every probe with; failsim
// check draws its traces and judges its properties by it; Table is the model as failsim faults
// prints it, with what a statemap does with each outcome. The live conformance tests hold the
// real checker, through the real proxy, to the same outcomes.
package faultmodel
