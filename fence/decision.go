package fence

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/statemap"
)

// Decision is one change the engine decided: one of the pointer types below, each carrying
// only its own fields, nodes named by their index in Config.Nodes. The set is closed: a
// consumer's type switch over them is complete. Ready hands them out.
//
// A Decision is an event of the run's stream (act.Event, which names it where the whole
// vocabulary is): a pointer to a struct that the engine reuses, valid only until the next call
// into the engine; Clone keeps one.
type Decision interface {
	// When is the virtual time since the start (t=0) at which it was decided.
	When() time.Duration
	// Kind says which decision it is, for a name or a counter.
	Kind() Kind
	// clone returns a copy that the engine does not reuse; it also seals the set.
	clone() Decision
}

// Clone returns a copy of d that stays valid after the next call into the engine. It
// allocates: keep it for the decisions worth keeping (failovers, not every state change).
func Clone(d Decision) Decision { return d.clone() }

// Kind names a kind of Decision. The zero value is no kind.
type Kind uint8

// The decision kinds, one for each Decision type.
const (
	KindStateChanged Kind = iota + 1
	KindAlarmRaised
	KindAlarmExpired
	KindAlarmHealed
	KindAlarmCleared
	KindExpiryWaiting
	KindLogged
	KindAlertNotImplemented
	KindAlreadyFailed
	KindNodeFailed
	KindFailover
	KindNoCandidate
	KindNodeRecovered
	KindRecoverIgnored
	KindPolicyChanged
	KindManagerDown
	KindManagerUp
	KindCoordinatorChanged
	KindRecoverRefused
	KindFailsafeShunned
	KindCopiesMerged
	numKinds
)

var kindNames = [numKinds]string{
	KindStateChanged: "state", KindAlarmRaised: "alarm-raised", KindAlarmExpired: "alarm-expired",
	KindAlarmHealed: "alarm-healed", KindAlarmCleared: "alarm-cleared", KindExpiryWaiting: "expiry-waiting",
	KindLogged: "logged", KindAlertNotImplemented: "alert", KindAlreadyFailed: "already-failed",
	KindNodeFailed: "failed", KindFailover: "failover", KindNoCandidate: "no-candidate",
	KindNodeRecovered: "recovered", KindRecoverIgnored: "recover-ignored", KindPolicyChanged: "policy",
	KindManagerDown: "manager-down", KindManagerUp: "manager-up", KindCoordinatorChanged: "coordinator",
	KindRecoverRefused: "recover-refused", KindFailsafeShunned: "failsafe-shun", KindCopiesMerged: "copies-merged",
}

// String is the kind's stable name, used as the "event" field of JSON output.
func (k Kind) String() string {
	if k > 0 && k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// StateChanged: a probe changed node Node's datasource state From -> To (or was its first).
type StateChanged struct {
	At        time.Duration
	Node      int
	Condition statemap.Condition // the probe's outcome
	From, To  statemap.State
}

// AlarmRaised: a bad probe of Node raised an alarm for Condition, with the rule's Threshold
// (ticks; -1 never) and Action as they were when it was raised.
type AlarmRaised struct {
	At        time.Duration
	Node      int
	Condition statemap.Condition
	Threshold int
	Action    statemap.Action
}

// AlarmExpired: Node's alarm reached its threshold after Count ticks and was removed; the
// Coordinator (an index, never -1) runs Action next, as the decisions that follow say.
type AlarmExpired struct {
	At          time.Duration
	Node        int
	Condition   statemap.Condition
	Count       int
	Threshold   int
	Action      statemap.Action
	Coordinator int
}

// AlarmHealed: an ok probe of Node deleted its alarm (self-heal) after Count ticks.
type AlarmHealed struct {
	At        time.Duration
	Node      int
	Condition statemap.Condition
	Count     int
	Threshold int
}

// AlarmCleared: Node's alarm was deleted after Count ticks, By entering maintenance or the
// operator's recover.
type AlarmCleared struct {
	At        time.Duration
	Node      int
	Condition statemap.Condition
	Count     int
	Threshold int
	By        ClearCause
}

// ClearCause says why an alarm was cleared. The zero value is ClearedByMaintenance.
type ClearCause uint8

// The causes of AlarmCleared.
const (
	ClearedByMaintenance ClearCause = iota // the cluster entered maintenance
	ClearedByRecover                       // the operator recovered the node
)

// String is "maintenance" or "recover", the JSON output's detail.
func (c ClearCause) String() string {
	if c == ClearedByRecover {
		return "recover"
	}
	return "maintenance"
}

// ExpiryWaiting: Node's alarm reached its threshold after Count ticks with no coordinator to
// fence: it stays, counted, and expires when a coordinator appears.
type ExpiryWaiting struct {
	At        time.Duration
	Node      int
	Condition statemap.Condition
	Count     int
	Threshold int
	Action    statemap.Action
}

// Logged: an expired alarm's action none ran on Node: it only logs.
type Logged struct {
	At        time.Duration
	Node      int
	Condition statemap.Condition
}

// AlertNotImplemented: an expired alarm's action alert ran on Node: "ALERT NOT IMPLEMENTED",
// nothing else.
type AlertNotImplemented struct {
	At        time.Duration
	Node      int
	Condition statemap.Condition
}

// AlreadyFailed: an expired fail alarm on Node (or, Host, a host ping it did not answer), which
// is already failed: nothing done.
type AlreadyFailed struct {
	At        time.Duration
	Node      int
	Condition statemap.Condition
	Host      bool
}

// NodeFailed: Node was failed (taken out of service) by Condition, with no failover. Role is
// Replica for a replica; Master for a master failed under manual policy, which is no failover.
// Host: not an alarm but a host failure: the node's host did not answer the coordinator's
// ping (HostFailed); Condition is then host_is_down.
type NodeFailed struct {
	At        time.Duration
	Node      int
	Condition statemap.Condition
	Role      Role
	Host      bool
}

// Failover: the master Node was failed (and shunned) by Condition, and To became master.
// Host: by a host failure, as for NodeFailed.
type Failover struct {
	At        time.Duration
	Node      int
	Condition statemap.Condition
	To        int
	Host      bool
}

// NoCandidate: the master Node was failed (and shunned) by Condition and no replica was
// promoted: no failover, no master. Ineligible says why, for every other node in cluster order
// (empty when the cluster has no other node). The slice is the decision's own: the engine
// never reuses it.
// Host: by a host failure, as for NodeFailed.
type NoCandidate struct {
	At         time.Duration
	Node       int
	Condition  statemap.Condition
	Ineligible []Ineligible
	Host       bool
}

// Ineligible is one node that was not promoted at a NoCandidate, and why.
type Ineligible struct {
	Node int
	Why  Reason
}

// Reason says why a node was not promoted. The zero value is no reason.
type Reason uint8

// The reasons, in the order the engine looks for them: the first that holds is given.
const (
	IsFailed       Reason = iota + 1 // the node is out of service
	ManagerIsDown                    // its manager is down: it is not in the coordinator's view
	NeverProbed                      // it has no finished probe yet
	LastProbeNotOK                   // its last finished probe was not ok
	NotChosen                        // it was eligible, but the candidate rule chose no node
	NotInView                        // group mode: its manager is up but not in the coordinator's view
)

var reasonNames = [...]string{"", "failed", "manager-down", "never-probed", "last-probe-not-ok", "not-chosen", "not-in-view"}

// String is the reason's stable name.
func (r Reason) String() string {
	if int(r) < len(reasonNames) && r > 0 {
		return reasonNames[r]
	}
	return fmt.Sprintf("reason(%d)", uint8(r))
}

// NodeRecovered: Node returned to service as Role, By an ok probe or the operator.
type NodeRecovered struct {
	At   time.Duration
	Node int
	Role Role
	By   RecoverCause
}

// RecoverCause says what returned a node to service. The zero value is RecoveredByProbe.
type RecoverCause uint8

// The causes of NodeRecovered.
const (
	RecoveredByProbe    RecoverCause = iota // a failed replica's ok probe, under automatic policy
	RecoveredByOperator                     // the operator's recover
)

// String is "ok probe" or "operator", the JSON output's detail.
func (c RecoverCause) String() string {
	if c == RecoveredByOperator {
		return "operator"
	}
	return "ok probe"
}

// RecoverIgnored: an operator's recover of Node, which is not failed: nothing done.
type RecoverIgnored struct {
	At   time.Duration
	Node int
}

// PolicyChanged: the cluster's policy became Policy.
type PolicyChanged struct {
	At     time.Duration
	Policy Policy
}

// ManagerDown: Node's manager stopped.
type ManagerDown struct {
	At   time.Duration
	Node int
}

// ManagerUp: Node's manager started.
type ManagerUp struct {
	At   time.Duration
	Node int
}

// CoordinatorChanged: the coordinator became Coordinator, a node index; -1 for none. In group
// mode it is the coordinator of the first primary view; NoPrimary says there is none while
// some manager is up.
type CoordinatorChanged struct {
	At          time.Duration
	Coordinator int
	NoPrimary   bool
}

// RecoverRefused: an operator's recover of Node, refused because its manager is not in a
// primary view (group mode): nothing done. ManagerDown: its manager is down and its own copy
// has it FAILSAFE-SHUN, which only its own manager in a primary view undoes.
type RecoverRefused struct {
	At          time.Duration
	Node        int
	ManagerDown bool
}

// FailsafeShunned: Node's own manager, whose view was not primary for Ticks ticks in a row,
// shunned its datasource (FAILSAFE-SHUN) in its side's copy: failed and shunned, Role as it
// was. A shunned master is no longer writable.
type FailsafeShunned struct {
	At    time.Duration
	Node  int
	Role  Role
	Ticks int
}

// CopiesMerged: views merged and their sides' copies of the cluster's state became one, copy
// Copy: the copy of the side Adopted (a copy number) was adopted; Conflicts are the nodes on
// which an overwritten copy differed (Conflict.Side is that copy's number). KeptShuns are the
// nodes whose own FAILSAFE-SHUN (in the copy their own manager held) the merged copy keeps
// although the adopted copy did not have them shunned. The slices are the decision's own.
type CopiesMerged struct {
	At        time.Duration
	Copy      int
	Adopted   int
	Conflicts []Conflict
	KeptShuns []int
}

// When implements Event.
func (d *StateChanged) When() time.Duration { return d.At }

// When implements Event.
func (d *AlarmRaised) When() time.Duration { return d.At }

// When implements Event.
func (d *AlarmExpired) When() time.Duration { return d.At }

// When implements Event.
func (d *AlarmHealed) When() time.Duration { return d.At }

// When implements Event.
func (d *AlarmCleared) When() time.Duration { return d.At }

// When implements Event.
func (d *ExpiryWaiting) When() time.Duration { return d.At }

// When implements Event.
func (d *Logged) When() time.Duration { return d.At }

// When implements Event.
func (d *AlertNotImplemented) When() time.Duration { return d.At }

// When implements Event.
func (d *AlreadyFailed) When() time.Duration { return d.At }

// When implements Event.
func (d *NodeFailed) When() time.Duration { return d.At }

// When implements Event.
func (d *Failover) When() time.Duration { return d.At }

// When implements Event.
func (d *NoCandidate) When() time.Duration { return d.At }

// When implements Event.
func (d *NodeRecovered) When() time.Duration { return d.At }

// When implements Event.
func (d *RecoverIgnored) When() time.Duration { return d.At }

// When implements Event.
func (d *PolicyChanged) When() time.Duration { return d.At }

// When implements Event.
func (d *ManagerDown) When() time.Duration { return d.At }

// When implements Event.
func (d *ManagerUp) When() time.Duration { return d.At }

// When implements Event.
func (d *CoordinatorChanged) When() time.Duration { return d.At }

// Kind implements Decision.
func (*StateChanged) Kind() Kind { return KindStateChanged }

// Kind implements Decision.
func (*AlarmRaised) Kind() Kind { return KindAlarmRaised }

// Kind implements Decision.
func (*AlarmExpired) Kind() Kind { return KindAlarmExpired }

// Kind implements Decision.
func (*AlarmHealed) Kind() Kind { return KindAlarmHealed }

// Kind implements Decision.
func (*AlarmCleared) Kind() Kind { return KindAlarmCleared }

// Kind implements Decision.
func (*ExpiryWaiting) Kind() Kind { return KindExpiryWaiting }

// Kind implements Decision.
func (*Logged) Kind() Kind { return KindLogged }

// Kind implements Decision.
func (*AlertNotImplemented) Kind() Kind { return KindAlertNotImplemented }

// Kind implements Decision.
func (*AlreadyFailed) Kind() Kind { return KindAlreadyFailed }

// Kind implements Decision.
func (*NodeFailed) Kind() Kind { return KindNodeFailed }

// Kind implements Decision.
func (*Failover) Kind() Kind { return KindFailover }

// Kind implements Decision.
func (*NoCandidate) Kind() Kind { return KindNoCandidate }

// Kind implements Decision.
func (*NodeRecovered) Kind() Kind { return KindNodeRecovered }

// Kind implements Decision.
func (*RecoverIgnored) Kind() Kind { return KindRecoverIgnored }

// Kind implements Decision.
func (*PolicyChanged) Kind() Kind { return KindPolicyChanged }

// Kind implements Decision.
func (*ManagerDown) Kind() Kind { return KindManagerDown }

// Kind implements Decision.
func (*ManagerUp) Kind() Kind { return KindManagerUp }

// Kind implements Decision.
func (*CoordinatorChanged) Kind() Kind { return KindCoordinatorChanged }

func (d *StateChanged) clone() Decision        { c := *d; return &c }
func (d *AlarmRaised) clone() Decision         { c := *d; return &c }
func (d *AlarmExpired) clone() Decision        { c := *d; return &c }
func (d *AlarmHealed) clone() Decision         { c := *d; return &c }
func (d *AlarmCleared) clone() Decision        { c := *d; return &c }
func (d *ExpiryWaiting) clone() Decision       { c := *d; return &c }
func (d *Logged) clone() Decision              { c := *d; return &c }
func (d *AlertNotImplemented) clone() Decision { c := *d; return &c }
func (d *AlreadyFailed) clone() Decision       { c := *d; return &c }
func (d *NodeFailed) clone() Decision          { c := *d; return &c }
func (d *Failover) clone() Decision            { c := *d; return &c }
func (d *NoCandidate) clone() Decision         { c := *d; return &c }
func (d *NodeRecovered) clone() Decision       { c := *d; return &c }
func (d *RecoverIgnored) clone() Decision      { c := *d; return &c }
func (d *PolicyChanged) clone() Decision       { c := *d; return &c }
func (d *ManagerDown) clone() Decision         { c := *d; return &c }
func (d *ManagerUp) clone() Decision           { c := *d; return &c }
func (d *CoordinatorChanged) clone() Decision  { c := *d; return &c }
func (d *RecoverRefused) clone() Decision      { c := *d; return &c }
func (d *FailsafeShunned) clone() Decision     { c := *d; return &c }
func (d *CopiesMerged) clone() Decision        { c := *d; return &c }

// When implements Event.
func (d *RecoverRefused) When() time.Duration { return d.At }

// When implements Event.
func (d *FailsafeShunned) When() time.Duration { return d.At }

// When implements Event.
func (d *CopiesMerged) When() time.Duration { return d.At }

// Kind implements Decision.
func (*RecoverRefused) Kind() Kind { return KindRecoverRefused }

// Kind implements Decision.
func (*FailsafeShunned) Kind() Kind { return KindFailsafeShunned }

// Kind implements Decision.
func (*CopiesMerged) Kind() Kind { return KindCopiesMerged }
