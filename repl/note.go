package repl

import "time"

// The notes below are what a replay that runs a Model beside the engine tells its observers
// besides the model's decisions (which it tells as the Decisions Ready returns). Like the
// decisions they are pointers to structs, each implementing When, so that they are act.Events;
// unlike the engine's decisions, nothing reuses them. (That a timeline's replication event was
// applied is an input echo, act.Replicated.)

// Unranked: at At master Master was failed and the engine promoted none, because the ranking
// found no candidate among the replicas the engine found eligible. Standings is every node's
// standing then, in cluster order: Excluded says why each was no candidate.
type Unranked struct {
	At        time.Duration
	Master    int
	Standings []Standing
}

// Final is the model at the end of a run: the client's view (Summary) and the ledger of
// acknowledged writes (Ledger), with the settings they were made under. It is told once, at
// the run's last instant, before the observers look at that instant.
type Final struct {
	At       time.Duration
	Config   Config // as the model was given it: zero Timeout and LagCap stand for the defaults
	Summary  Summary
	Ledger   []Entry
	Workload bool // a workload issued writes (Config.Rate is not zero)
}

// When implements act.Event.
func (n *Unranked) When() time.Duration { return n.At }

// When implements act.Event.
func (n *Final) When() time.Duration { return n.At }

// AppTarget: from At the application, beside node Near, writes to writer Master, -1 for none:
// during a partition, the writable master on its own side, if any (a replay tells it when the
// target changes while the network is or was split).
type AppTarget struct {
	At           time.Duration
	Near, Master int
}

// StreamCut: replica Node's stream from Source (the master whose history it replicates) was cut
// by a partition (Cut: it stores nothing new from it) or restored (it stores at once what its
// lag allows).
type StreamCut struct {
	At           time.Duration
	Node, Source int
	Cut          bool
}

// When implements act.Event.
func (n *AppTarget) When() time.Duration { return n.At }

// When implements act.Event.
func (n *StreamCut) When() time.Duration { return n.At }
