package fence

import "github.com/failsim/failsim/statemap"

// Input is one thing that happened, which Step tells the engine: one of the types below. The
// set is closed; a new concept adds one input type and one step function.
type Input interface{ input() }

// ProbeDone is a finished probe of node Node that ended in Condition. A node whose manager is
// down runs no probes, so such a report is ignored.
type ProbeDone struct {
	Node      int // index in Config.Nodes
	Condition statemap.Condition
}

// Tick is Count timekeeper ticks, the last of them at the step's time: every active alarm's
// count goes up by Count, and an alarm whose count reaches its threshold at the last one
// expires. The zero value is one tick. The ticks before the last are ticks at which nothing
// expires: a driver may leave out the ticks that decide nothing and account for them with the
// next one it makes, as long as Count is at most TicksToExpiry; a larger Count panics (the
// driver skipped a tick that decides), so does a negative one. In maintenance nothing is ticked.
type Tick struct {
	Count int64
}

// SetPolicy changes the cluster's policy to Policy. Entering maintenance deletes every alarm:
// detection starts afresh with the first probe after leaving it. The policy in force: nothing.
type SetPolicy struct {
	Policy Policy
}

// SetManager records that node Node's manager went down (Up false) or came up. The coordinator
// is then chosen anew (Config.Coordinator); when one appears where there was none, alarms that
// expired meanwhile are fenced at once. A manager already in the state asked for: nothing.
type SetManager struct {
	Node int
	Up   bool
}

// Recover is the operator returning failed node Node to service. Its alarms are deleted: one
// raised before it was failed must not fail it again. It comes back as a replica, unless it was
// the master, was failed without a failover (manual policy) and the cluster still has no
// master: then it is master again. A node that is not failed: RecoverIgnored.
type Recover struct {
	Node int
}

func (ProbeDone) input()  {}
func (Tick) input()       {}
func (SetPolicy) input()  {}
func (SetManager) input() {}
func (Recover) input()    {}
