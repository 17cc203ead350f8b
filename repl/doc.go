// Package repl is failsim's model of MySQL replication under the Tungsten Manager, and of what
// an application sees of it: an open-model workload of writes with a deadline, the master of
// record that commits them, each replica's stored and applied positions, async and semisync
// acknowledgement, the manager's candidate ranking, promotion that waits for the new master to
// apply what it stored, and the ledger of acknowledged writes, from which it says which a
// failover or a partition merge lost.
//
// The Model is pure, like fence.Engine: no I/O, no clock, no goroutine. The caller tells it what
// happened and when with Step (a link's condition, a replica's lag, a promotion, ...), closes
// each instant with Close, and takes its decisions with Ready: semisync fell back or returned,
// a promotion and what it lost, a promoted master becoming writable. Summary gives the client's
// view at any time: writes offered, acknowledged and failed, the longest outage and the total
// unavailable time, and the writes lost at each failover with their sequence range.
//
// Nothing is stored write by write. Write k of a workload of Rate is issued at
// floor(k·Per/Writes), so the writes between two changes of condition are an interval of
// indices; commits are kept as runs of positions, a replica's stored position as pieces (what
// it had when its replication last changed, and what its stream has delivered since), and the
// ledger as runs of acknowledged positions. A day at 200 writes/s costs what changed in it, not
// its 17 million writes.
//
// The candidate ranking is a pure function (Best over Standings) and, bound to a model, a
// fence.CandidateRule (Model.Candidate) the engine can be given.
//
// Impossible calls (a node out of range, time going backwards, promoting a node that is no
// replica) panic: they are bugs in the caller, not bad input.
package repl
