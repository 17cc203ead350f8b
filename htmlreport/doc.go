// Package htmlreport draws a run: one self-contained HTML page (inline SVG, CSS and a small
// script to zoom; nothing fetched from anywhere), or the chart alone as SVG.
//
// The chart has one time axis. Above the lanes, the cluster: the failovers, the master, the
// coordinator and the policy over time, and, when the timeline has a workload, the client's
// view: a writes row that shows when writes were acknowledged and when they failed (each
// outage a band titled with its span and its cause, the longest outlined), what each failover
// lost (a mark at its time, titled with the count and the sequence range) and when semisync
// fell back and came back. Then one lane per node, in cluster order: its
// datasource state (a colour per state), its probes (a run of identical outcomes is one band),
// the faults on its link, its service (master in service, replica, failed, shunned, and its
// manager down), and its alarms, each a staircase that climbs a tick at a time towards its
// threshold, a dashed line; with replication, its stream (late, frozen, cut, stopped) and at
// each failover the ranking the manager promoted by. A failover is a line across the whole
// chart. The page's chart is as wide as the window (the SVG scales), and the labels that name
// a time are laid out per row so that none overlaps another or runs off the plot. A row with
// more spans than its share of the chart's budget merges the narrow ones: the page stays
// bounded whatever the run. Every band and mark
// has a hover title with its exact time and cause, in the event log's words. Under the chart
// the page shows the verdict and the expectations as failsim replay prints them, and the event
// log.
//
// With failsim report --managers, a lane per manager (ManagerLane, one per manager's run, given
// to Recorder.Managers) comes between the cluster's rows and the nodes' lanes, on the same
// axis: the master as that manager's decisions made it, its decisions as marks,
// Orchestrator's analysis code, and with a workload its writes and outages. A chart without
// them is drawn as before, byte for byte.
//
// A Recorder observes a run as a drive.Observer, beside the replay's other observers. The
// simulator skips the probes that change nothing (drive.Config.Foresee), so the probe row is
// not what the run observed: it is worked out from the timeline as the driver schedules probes
// and the fault model foresees them (a test holds it to a driver that runs every probe). A run
// that reports every probe (the live runtime) can give its own outcomes (Recorder.Counted).
//
// The package is pure: it writes to the io.Writer it is given and does nothing else. The
// output is deterministic: the same run gives the same bytes. The writes row is drawn from
// the replication model's events alone (its decisions, and its summary at the end, which
// lists every outage). When the timeline has a witness, a partition or a host event, the
// managers as a group get three rows more above the lanes: the network (each partition a band
// titled with its sides), the primary views (titled with the quorum checks and their counts)
// and the split-brain windows (a red band, or a thin mark for a zero-length window); and each
// lane shows its host down over its service row and its FAILSAFE-SHUN as a mark. While the
// sides' copies of the cluster state are forked, a row per side's copy, titled with who holds
// it and its master. Not drawn: the views that are not primary, and a witness (it has no
// lane); the verdict and the event log tell them.
package htmlreport
