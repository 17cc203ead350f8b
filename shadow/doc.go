// Package shadow judges candidate statemaps beside the live one: each candidate (a shadow) is
// another decision core fed every input the live core gets (the same probe outcomes at the
// same instants, the same ticks, the same actions), with no effect on the live decisions; where
// a shadow would have decided a node's service differently, that is a divergence.
//
// The decisions compared are those about a node's service: a node failed (fence.NodeFailed),
// a master failed over (fence.Failover) and a master failed with no replica promoted
// (fence.NoCandidate). Two decisions are the same when they are of the same kind, about the same
// node (and, for a failover, to the same replica), at the same virtual time. At each time, a
// decision only the shadow made is a divergence on the shadow's side (it would have done so; the
// live engine did not), one only the live engine made is one on the live side (the shadow would
// not have). Compare is that comparison, a pure function of the two streams; Tee runs the
// shadows beside the live core, a drive.Machine in its place, and tells a Sink each shadow's
// decisions and each divergence as soon as the instant it was decided at is over.
//
// Once a shadow has diverged its state is its own (a shadow that failed the master over has
// another master), and every later difference is a divergence too: the shadow goes on from its
// own decisions, fed the live probes.
//
// The package is pure: no I/O, no clock, no goroutines.
package shadow
