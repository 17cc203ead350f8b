// Package cluster composes the managers as a group (package group) with the decision engine
// (package fence): it turns the network the simulator describes (partitions, hosts down and
// up, managers stopped and started) into the group's inputs, and the group's decisions into the
// engine's, in the order a tick makes them: views, then the copies of the cluster's state
// that views splitting or merging fork or merge, then the quorum checks and the coordinators
// they give each node's view, then the coordinators' host pings (one unanswered fences), then
// the failsafe shuns. It also watches which nodes are writable (master, and in its own side's
// copy neither failed nor shunned, its host up) and tells when two or more are at once: a
// split-brain window.
//
// Members: the engine's nodes, database members, keep their indices; active witnesses, which
// have no engine node, follow them (index len(nodes)+k). So in every rule that picks a first
// member in cluster order (the coordinator, the side whose copy a merge adopts) a witness
// ranks after every database member.
//
// A Cluster is pure, like the engine and the group: no I/O, no clock, no goroutine. Its
// events (the types in events.go, and the engine's decisions it causes) go to the emit
// function it is given, in order, as drive's observers are told of them.
package cluster
