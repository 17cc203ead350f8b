package timeline

import (
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
)

// Default checker settings: the manager's mgr_monitor_interval and mon_db_query_timeout.
const (
	DefaultInterval = act.DefaultInterval
	DefaultTimeout  = 5 * time.Second
	// DefaultTail is how long a replay runs past the last event when no "cluster end" is given.
	DefaultTail = 10 * time.Minute
	// MaxSpan is the longest span of virtual time a timeline may cover, from its start to its
	// end: 290 Gregorian years. A Go duration holds about 292; the margin keeps every sum the
	// replay makes (a probe's next start, a tick) inside it. Longer is refused, never clipped.
	MaxSpan = 290 * year
	// MaxChecker is the longest checker interval or timeout a timeline may set.
	MaxChecker = 24 * time.Hour

	year = 31556952 * time.Second // the mean Gregorian year
)

// families are the words a "family" statement takes: the names of failsim check's families of
// generated traces (check.Family), which check's tests hold equal to them. The first, benign,
// is the one a replay judges differently (Benign).
var families = [...]string{"benign", "fatal", "mixed", "partition"}

// Timeline is a parsed incident: the cluster, the checker's settings, the timed events and the
// expectations. It is data: nothing in it observes a replay, so one Timeline may be replayed
// any number of times, and at once.
type Timeline struct {
	File         string             // the name errors and reports use
	Nodes        []fence.NodeConfig // in the cluster line's order: the order node indices count in
	Interval     time.Duration      // between probe starts
	Timeout      time.Duration      // the probe's budget
	Statemap     string             // the "statemap" statement's path, resolved against File's folder; "" if none
	StatemapLine int                // the "statemap" statement's line, for errors about its file
	Policy       fence.Policy       // the policy at t=0
	Family       string             // the "family" statement: the check family a generated trace came from; "" for none
	Start        time.Time          // the clock time of t=0
	Events       []Event            // in time order (file order among equal times)
	End          time.Duration      // the replay's last instant: "cluster end", or the last event plus DefaultTail
	Expects      []Expect           // in file order
	Repl         *Replication       // the workload, replication settings and events; nil for none (see Replication)
	// Witnesses are the active witnesses of the cluster line, in its order: managers with no
	// database, members of the group after the nodes (an event's Node for witness k is
	// len(Nodes)+k).
	Witnesses []string
	// GapThreshold and FailsafeThreshold are the "liveness" statement's, in ticks; 0 for the
	// default (3).
	GapThreshold, FailsafeThreshold int
	// Group is the line of the first statement that needs the managers as a group (a witness,
	// "liveness", a partition, a host event); 0 when there is none. The live replay refuses
	// such a timeline.
	Group int
	// Manager is the "manager" statement's: the failover manager whose rules replay the
	// timeline, "" for the statement's absence (Tungsten's), "tungsten" or "orchestrator".
	// ManagerConfig is its config FILE, resolved against File's folder ("" for none: the
	// manager's defaults); ManagerLine is the statement's line, for errors about the file.
	Manager, ManagerConfig string
	ManagerLine            int
	// ManagerNear is the member whose host's network segment Orchestrator's host is on during
	// a partition ("manager orchestrator near MEMBER"); "" for none: Orchestrator reaches every
	// member whatever the partition.
	ManagerNear string
	// Promotion is the "promotion" statement's: per node (cluster order), its Orchestrator
	// promotion rule as Orchestrator spells it, "" where none is set (neutral). Nil without the
	// statement.
	Promotion []string
	// DataCenters is the "datacenter" statement's: per node, its data centre, "" for none. Nil
	// without the statement.
	DataCenters []string
}

// Benign reports whether the timeline's "family" statement says it is a benign trace of
// failsim check: one with no fatal fault, on which every fence of the master is a false one.
func (tl *Timeline) Benign() bool { return tl.Family == families[0] }

// Names returns the names of the timeline's nodes, in cluster order, then its witnesses: what
// a printer or a report names the nodes of the engine's decisions and the group's members with.
func (tl *Timeline) Names() []string {
	out := make([]string, len(tl.Nodes), len(tl.Nodes)+len(tl.Witnesses))
	for i, n := range tl.Nodes {
		out[i] = n.Name
	}
	return append(out, tl.Witnesses...)
}

// EventKind is what a timeline event does: one of the driver's kinds of action.
type EventKind = act.Kind

// The timeline's event kinds.
const (
	SetFault    = act.SetFault
	ManagerDown = act.ManagerDown
	ManagerUp   = act.ManagerUp
	SetPolicy   = act.SetPolicy
	Recover     = act.Recover
	End         = act.End
	Partition   = act.Partition
	HostDown    = act.HostDown
	HostUp      = act.HostUp
)

// Event is one timed statement of a timeline: an action of the driver's script, with the line
// that states it. A timeline's events are the script its replay plays, as they are.
type Event = act.Action
