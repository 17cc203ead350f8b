// Package group is the Tungsten Manager's managers as a group, as failsim models them: who is
// in whose view, which views are primary partitions by the manager's own quorum rule, who
// coordinates, which dead hosts the coordinator finds, which managers shun themselves, and
// which copy of the cluster state each side holds when views split and merge.
//
// # Members and the network
//
// Every database node runs a manager; an active witness is a manager with no database. The
// group is told the network as a Net: per member, the segment its host is on (hosts on one
// segment reach each other, hosts on two do not), whether its host is down, and whether its
// manager was stopped cleanly. The simulator makes it from its partitions, host events and
// manager stops; nothing here knows what a partition is. Two live managers on one segment hear
// each other; a host ping from one to another host is answered when that host is up and on its
// segment, whether or not that host's manager runs. A manager's probes of its own database are
// local and none of this package's business.
//
// # Views
//
// Each live manager keeps a view: the members it hears, and those it stopped hearing until
// they have been silent for the gap threshold. At each timekeeper tick a member in a view that
// is not heard counts one more heartbeat-gap tick (the first silent tick counts 1) and at
// GapThreshold (default 3: the third tick, 20-30 s after it fell silent) it leaves the view;
// a member heard again rejoins at the tick and its count is cleared. Managers that hear each
// other agree on one view, as group communication installs one view for all the members it
// connects: the members they hear, plus each member one of them still holds but none hears, at
// one more than the lowest count any of them had for it. What a manager's process does acts at
// once, not at the tick: a manager stopped cleanly leaves every view, as a process that closes
// its sockets does; a manager that starts (again, or because its host came back) joins at once:
// the managers it reaches agree on one view with it, counting no silence. A manager that is
// down has no view. The group sees the network as it is at each tick: a member cut off and
// back between two ticks is never silent.
//
// The state keeps one view per manager, as each manager's own code does (each builds its own
// membership digest from its own group-communication view). The agreement rule makes the views
// of managers that hear each other equal after every tick and every start, so the members of
// one side evolve in lockstep, and a side is simply the live managers whose views are equal
// (between a change of the network and the next tick, managers that now hear each other may
// still hold the views they had).
//
// # Quorum
//
// After every change of views, and at every tick, each live manager checks quorum exactly as
// the manager's ClusterMembershipDigest.isInPrimaryPartition does (see Check): the quorum set
// is the configured database members and active witnesses; the simple majority counts database
// members only, n/2+1; a member is validated when it is in the view and answers the manager's
// group-communication ping (the manager hears it, and it holds the same view: group
// communication answers within an installed view); the membership is valid only when every
// view member is validated. In order: a view with no database member is not primary; an invalid membership
// is not primary (so right after a link fails, before the silent members leave the views, no
// side is primary); a quorum set of one validated member is primary; validated database
// members reaching the simple majority are primary; one short of it, validated active
// witnesses make up the difference, or the view is not primary. The rule makes both sides of
// a partition primary whenever the side one short of the majority holds a witness. The
// coordinator of a primary view is its first member in cluster order; a view that is not
// primary has none, and only a coordinator fences. Between checks the conclusions stand: a
// manager whose host went down since the last tick is still in the views (and may still be
// named coordinator) until the next tick finds it silent.
//
// # Host liveness and failsafe
//
// At each tick, after the views and the quorum checks, each coordinator host-pings every
// database member missing from its view: one whose host does not answer is host-failed (the
// engine fails a replica, fails over a master, taking the candidate from the coordinator's
// view); one that answers (only its manager is gone) is not fenced, and is pinged again at
// each tick while it stays missing. A member back in the view, even between two ticks, is
// pinged anew when it goes missing again. Then each live manager
// that has not been primary for FailsafeThreshold ticks in a row (default 3) shuns its own
// datasource (FAILSAFE-SHUN). A manager that is down counts nothing and shuns nothing.
//
// # Copies of the cluster state
//
// Every manager holds its own copy of the cluster state (fence.Cluster: roles, failed,
// shunned) and changes it only by its own decisions and those of its view's coordinator, so
// each side holds one copy, numbered, and during a partition the sides' copies evolve apart.
// When a side's views split, each part takes the copy along: one keeps its number, the others
// fork a clone (Forked). When views merge, the merged side adopts the copy of the side that was
// primary, or if several or none were, the side of the first member in cluster order (the
// adoption rule, decided here: Merged.Adopted). The copies themselves are the consumer's: this
// package names them, and the engine merges them (fence.MergeCopies), listing the conflicts the
// adoption overwrote.
//
// # Shape
//
// A Group is a pure state machine in etcd raft's shape: no I/O, no clock, no goroutine.
// Step(at, SetNet{...}) tells it the network changed, Step(at, Tick{}) that the timekeeper
// ticked, Step(at, Reping{...}) that unanswered pings fenced nothing (maintenance); Ready
// hands out the decisions, typed values naming members by index. The views
// (View, Primary, Coordinator, PrimaryViews, Sides, Copy, ...) read it between steps. The
// timing arithmetic is pure functions (SeenAt, LeavesAt, ShunsAt, SplitAt). Impossible calls
// (a member out of range, time going backwards, a Net of the wrong length) panic.
//
// # Where the model and the sources differ
//
// failsim's model of the group, read against ClusterMembershipDigest.java (the newer version,
// with active witnesses) and Continuent's documentation:
//   - A view with no database member (a witness alone, or witnesses only) is never primary:
//     the source finds its potential quorum set invalid before it counts anything. Without
//     that rule, with one database member and two witnesses, {w1, w2} would make up the
//     majority of 1 by the witness rule.
//   - The witness rule is "validated database members plus validated active witnesses reach
//     the majority", tried only when the database members are exactly one short: active
//     witnesses make up the difference.
//   - The documentation's multiple-failure procedure (operations-recovery-multiple-failure)
//     shows the last manager of a cluster that lost two hosts listing every datasource as
//     SHUNNED(FAILSAFE_SHUN), not only its own; the model (FailsafeShun) has a manager shun
//     its own datasource. The consumer decides which datasources of its side's copy it shuns.
//   - The documented host check uses policy.liveness.hostPing.fail.threshold=2 pings; the
//     model fences on one unanswered ping at the tick the member left the view.
//
// Rules of this model that no source states (inferred, to be replaced if one does): a manager
// that starts joins at once (so that a manager coming up changes the coordinator at that
// instant, as the engine's today); managers that hear each other agree on one view; a member
// answers a group-communication ping only within the same view; a stopped manager leaves the
// views on both sides of a partition; a side that splits keeps its copy on the part holding
// its first member that ran before; a manager that is down keeps the copy it held and brings
// it back when it starts, never primary in a merge.
package group
