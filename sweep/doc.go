// Package sweep is failsim sweep: it varies statemap thresholds and the checker's interval and
// timeout over a grid, replays one set of generated traces at every point, and measures the
// trade a statemap makes: how often its benign traces fence the master (every such fence is a
// false failover) against how long after its fault a dead master is fenced on fatal traces.
//
// The traces are check's, generated once from the statemap in force and its checker, and the
// same set is replayed at every point: a point's benign traces are not fitted to its own
// thresholds, so the false failovers a lower threshold buys show. The fatal traces draw their
// fault from the conditions varied (the fault whose probes end in them: login_response_timeout
// is a freeze, socket_connect_timeout a blackhole), from every fault the statemap fences when
// only the checker is varied, and each runs on long enough after its fault for every point to
// fence it within its promise.
//
// A point replays a trace only where its result is not already known (memo.go): once for the
// points that differ only in thresholds of conditions the trace never shows, and not between
// two points of a row along a threshold that agree, since raising a threshold never fences
// sooner. The result depends on the configuration alone, not on the workers or their order.
//
// A run can be split in shards (Compute with a Shard); MergeShares joins the shares into the
// result of the run done at once. Result writes sweep.csv, sweep.json and the picture (gonum
// plot, SVG and PNG). With a workload (Config.Workload, check's) every trace also runs the
// replication model and each point measures the client's view per family: the unavailable
// time per trace and the acknowledged writes lost (ClientStats); the row's shortcut is then
// off, for the first fence no longer says all a point keeps.
//
// The partition family (Config.Partition, check's) is the managers as a group under
// partitions, host crashes and witnesses: only there do the group's liveness settings
// (gap-threshold, failsafe-threshold) act, so only a run of partition traces alone may vary
// them. Each point measures split brain per trace (the windows package cluster tells) and the
// time a primary view's copy names no master in service (PartitionStats); every point replays
// every partition trace, with no shortcut.
package sweep
