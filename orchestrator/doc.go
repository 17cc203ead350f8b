// Package orchestrator is Orchestrator's decision rules (openark/orchestrator at 730db91) as
// pure functions, beside the Tungsten Manager's core: what its configuration file says, what
// each replica's I/O thread sees of its master under a fault, when Orchestrator reads each
// instance and when its last read of the master stops being valid, which failure analysis code
// its analysis query computes from those reads, and what a recovery does with the code.
//
// Orchestrator decides the opposite way from Tungsten in the case failsim's seed incident is
// about: Tungsten fails a master over on its own probe of it; Orchestrator declares DeadMaster
// only when it cannot read the master and none of the master's replicas is replicating
// (go/inst/analysis_dao.go:499), so what the replicas' I/O threads see decides.
//
// Everything here is arithmetic on virtual time (time.Duration since the run's start): no I/O,
// no clock, no goroutines. Orchestrator runs as one process (its raft mode, where only the
// leader recovers, is out of scope). docs/engine.md, section "Orchestrator", states each rule
// with its source line.
package orchestrator
