// Package bundle reads what a Tungsten support bundle holds (the files `tpm diag` collects:
// the managers' tmsvc.log, the cctrl outputs) and builds the incident timeline they imply.
//
// The parsers are pure: each takes a file's name and its bytes and returns values, every
// error a *fileline.Error naming the line. Two formats are read:
//
//   - successive `cctrl ls` snapshots, as CLUtils.formatStatus writes them: the
//     COORDINATOR[host:POLICY:STATE] line that starts each, and per datasource its header
//     line (name, role, state and reason: db3(slave:FAILED(DATASERVER 'db3@alpha' STOPPED),
//     ...)), its STATUS line (the alert and the time of its last change) and its component
//     lines (MANAGER, REPLICATOR, DATASERVER);
//   - tmsvc.log's quorum checks, as ClusterMembershipDigest.isInPrimaryPartition logs them:
//     from "CHECKING FOR QUORUM" to the "CONCLUSION" line, with the quorum set, the simple
//     majority, the group view and the validated and reachable members.
//
// A line a parser does not know is skipped and counted; a line it knows but the timeline
// cannot hold is kept as a Note, which the importer lists as not imported, never dropped.
//
// Import turns the parsed files into a timeline.Timeline and the comments that say, above
// each statement, which file and line it came from and what was inferred. What a bundle
// cannot tell (the condition of each probe, the moment a silence began) is inferred from the
// states and said so in the comments; docs/import.md says how to fill it in by hand.
package bundle
