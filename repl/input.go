package repl

import (
	"fmt"
	"time"
)

// Input is one thing that happened, which Step tells the model: one of the types below. The
// set is closed. Nodes are named by their index in the cluster line's order. A node index out
// of range, a negative duration, or a role change the model's roles do not allow panics: those
// are bugs in the caller.
type Input interface{ input() }

// SetLink: node Node's database link now answers writes as Link says (LinkOf turns a timeline
// fault into one). It matters while Node is the master the application writes to: a link that
// stops taking writes also loses the acknowledgements its master has not sent yet.
type SetLink struct {
	Node int
	Link Link
}

// SetLag: node Node's stream now delivers each commit Lag after the master made it (the
// timeline's NODE lag DUR). A longer lag holds its stored position until the stream catches up
// to it; a shorter one delivers at once what the new lag allows. Kept while Node is no replica.
type SetLag struct {
	Node int
	Lag  time.Duration
}

// SetApplyLag: node Node now applies each position Lag after it stored it (NODE apply-lag DUR).
// Kept while Node is no replica.
type SetApplyLag struct {
	Node int
	Lag  time.Duration
}

// SetStream: node Node's replication link is frozen (NODE link freeze) or not (NODE link heal).
// Frozen, its stored position stays where it is while its replicator keeps running: it falls
// behind and stays eligible. Healed, it stores at once what its lag allows.
type SetStream struct {
	Node   int
	Frozen bool
}

// SetReplicator: node Node's replicator runs or not (NODE replicator start|stop). Stopped, both
// its positions stay where they are and it is no candidate; started, they catch up at once to
// what its lags allow.
type SetReplicator struct {
	Node    int
	Running bool
}

// Promote: the engine failed over master From (-1 for none) and promoted replica Node. Node's
// history forks at the position it stored; it takes writes once it applied what it stored, or
// after Config.ApplyWait if that comes first. The replicas in Repoint (the others in service in
// the coordinator's view; never Node or From) now replicate from Node: a replica that stored
// more than Node keeps only what the two share.
//
// From, unless FromGoesOn, is failed over: it takes no more writes, the application's writes
// go to Node if they went to From, and the acknowledged writes of its history that Node's does
// not hold are lost. FromGoesOn says that From is still a writable master on another side of a
// partition (its own side's copy did not fail it): it goes on taking that side's writes, and
// what is lost is decided when the sides merge.
type Promote struct {
	Node, From int
	Repoint    []int
	FromGoesOn bool
}

// Fail: writer Node was failed with no promotion (no candidate, or manual policy): it takes no
// more writes, and the application has no master if it wrote to Node. Nothing is lost: its
// history is still the cluster's.
type Fail struct {
	Node int
}

// Recover: the operator returned failed node Node. With Of == Node it is a master again,
// taking writes on its own history (fence's recover of a master failed under manual policy);
// otherwise it is a replica of writer Of (-1: of nobody, holding what it has), keeping only
// what its history and Of's share.
type Recover struct {
	Node, Of int
}

// SetApp: the application now writes to writer Master, -1 for none: the writable master of its
// own side of a partition. Acknowledgements its former master had not sent are lost with the
// connections. Promote, Fail and Merge move the application themselves in the usual cases.
type SetApp struct {
	Master int
}

// Merge: partition sides merged and the copies of the sides holding the writers in Overwritten
// were overwritten by the copy of the side whose writer is Kept (-1: the adopted copy has no
// master). Each overwritten writer takes no more writes, and the acknowledged writes of its
// history that Kept's does not hold are lost: those it acknowledged during the split, and those
// before it that Kept had not stored. With no Kept nothing is lost: nothing overwrote them.
// The replicas in Repoint (never Kept) now replicate from Kept, keeping only what their history
// and Kept's share: those that replicated an overwritten side's master.
type Merge struct {
	Overwritten []int
	Kept        int
	Repoint     []int
}

func (SetLink) input()       {}
func (SetLag) input()        {}
func (SetApplyLag) input()   {}
func (SetStream) input()     {}
func (SetReplicator) input() {}
func (Promote) input()       {}
func (Fail) input()          {}
func (Recover) input()       {}
func (SetApp) input()        {}
func (Merge) input()         {}

// EventNode is the node a timeline's replication event (SetLag, SetApplyLag, SetStream,
// SetReplicator) is about. Any other input is a caller's bug: it panics.
func EventNode(in Input) int {
	switch in := in.(type) {
	case SetLag:
		return in.Node
	case SetApplyLag:
		return in.Node
	case SetStream:
		return in.Node
	case SetReplicator:
		return in.Node
	}
	panic(fmt.Sprintf("repl: %T is no replication event of a timeline", in))
}
