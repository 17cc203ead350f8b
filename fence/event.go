package fence

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/statemap"
)

// Kind says what an Event reports.
type Kind uint8

// The event kinds. Each names one change; a caller prints or counts them.
const (
	StateChanged        Kind = iota + 1 // a probe changed the node's datasource state: From, To, Condition
	AlarmRaised                         // a bad probe raised an alarm: Condition, Threshold, Action
	AlarmExpired                        // an alarm's count reached its threshold; Action runs next: Condition, Count, Threshold, Action
	AlarmHealed                         // an ok probe deleted the alarm (self-heal): Condition, Count it had reached
	AlarmCleared                        // the alarm was deleted: Condition, Count; Detail "maintenance" (entering it) or "recover" (the operator's)
	ExpiryWaiting                       // an alarm expired with no manager up to fence: Condition, Count
	Logged                              // an expired alarm's action none ran: it only logs
	AlertNotImplemented                 // an expired alarm's action alert ran: "ALERT NOT IMPLEMENTED"
	AlreadyFailed                       // an expired fail alarm on a node that is already failed: nothing done
	NodeFailed                          // the node was failed (taken out of service): Condition; Detail says why it is not a failover
	Failover                            // the master Node was failed and Other became master: Condition
	NoCandidate                         // the master Node was failed and no replica was eligible: no failover, no master; Detail says why each other node was not
	NodeRecovered                       // the node returned to service: Role; Detail "ok probe" or "operator"
	RecoverIgnored                      // an operator recover on a node that is not failed
	PolicyChanged                       // the cluster's policy became Policy
	ManagerDown                         // the node's manager stopped
	ManagerUp                           // the node's manager started
	CoordinatorChanged                  // the coordinator became Other ("" for none)
	FaultInjected                       // driver note, never emitted by the engine: the node's link fault became Detail
)

var kindNames = map[Kind]string{
	StateChanged: "state", AlarmRaised: "alarm-raised", AlarmExpired: "alarm-expired",
	AlarmHealed: "alarm-healed", AlarmCleared: "alarm-cleared", ExpiryWaiting: "expiry-waiting",
	Logged: "logged", AlertNotImplemented: "alert", AlreadyFailed: "already-failed",
	NodeFailed: "failed", Failover: "failover", NoCandidate: "no-candidate",
	NodeRecovered: "recovered", RecoverIgnored: "recover-ignored", PolicyChanged: "policy",
	ManagerDown: "manager-down", ManagerUp: "manager-up", CoordinatorChanged: "coordinator",
	FaultInjected: "fault",
}

// String is the kind's stable name, used as the "event" field of JSON output.
func (k Kind) String() string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Event is one change the engine decided. Fields a kind does not use are zero.
type Event struct {
	At        time.Duration // virtual time since the start (t=0)
	Kind      Kind
	Node      string // the node concerned; "" for cluster-wide events
	Condition statemap.Condition
	From, To  statemap.State
	Count     int // the alarm's count of ticks
	Threshold int
	Action    statemap.Action
	Role      Role   // NodeRecovered: the role it returned with
	Other     string // Failover: the new master; CoordinatorChanged: the new coordinator
	Policy    Policy // PolicyChanged
	Detail    string // a plain-words reason or note
}
