package sim

import (
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/orchcore"
	"github.com/failsim/failsim/orchestrator"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/timeline"
)

// orchRepl runs package repl's model beside an Orchestrator run, for a timeline that says
// something of replication and has no partition (orchReplOf): the client's view under
// Orchestrator's decisions, as replRun gives it under Tungsten's. The model is told:
//
//   - the timeline's replication events, each at its time, before the other events of its
//     instant (ReplayOrchestrator tells the machine and this run in the same order);
//   - the fault on a node's link (*act.FaultSet) and its host going down or up (the
//     timeline's host events, which the Orchestrator run tells no observer) as how the node
//     takes writes (repl.LinkOf; a host down takes none), for the master the application
//     writes to, and for a replica when it is promoted;
//   - a recovery that promotes (*orchcore.Recovered, verdict Runs, a node promoted) as
//     repl.Promote: the failed master leaves the cluster (Orchestrator moves nobody back under
//     it), the replicas the recovery repointed follow the new master, the lost ones (ahead of
//     it) keep the failed master's history, and the application writes to the new master (as
//     an Orchestrator hook, a proxy or a VIP, would send it). Orchestrator fences nothing: a
//     master that no recovery replaced takes writes again once its fault heals.
//
// The model decides nothing of its own but what it does under Tungsten (a promoted master
// becoming writable after its apply wait, semisync's fallbacks): the run stops at those
// instants too (wake), closes them, and at the end tells the observers its repl.Final.
type orchRepl struct {
	m        *repl.Model
	cfg      repl.Config
	obs      []drive.Observer
	end      time.Duration
	workload bool
	master   int // the master the application writes to; -1 for none
	link     []repl.Link
	hostDown []bool
	told     []bool // per node: the model holds its link as link and hostDown say
	host     []act.Action
	nextHost int // the next of host to apply
}

// orchReplOf returns the replication model's run beside tl's Orchestrator replay, telling obs
// its decisions; nil when tl says nothing of replication or partitions the network, where the
// model's streams would have to follow the segments (sim/repl_sides.go does that for the
// Tungsten managers' group only).
func orchReplOf(tl *timeline.Timeline, obs []drive.Observer) *orchRepl {
	if tl.Repl == nil || hasPartition(tl) {
		return nil
	}
	n := len(tl.Nodes)
	r := &orchRepl{
		cfg: tl.Repl.Config, obs: obs, end: tl.End, workload: tl.Repl.Workload, master: tl.Repl.Config.Master,
		link: make([]repl.Link, n), hostDown: make([]bool, n), told: make([]bool, n),
	}
	for i := range r.told {
		r.told[i] = true
	}
	r.m = repl.New(r.cfg)
	for _, a := range tl.Events {
		if (a.Kind == act.HostDown || a.Kind == act.HostUp) && a.Node < n {
			r.host = append(r.host, a)
		}
	}
	return r
}

// hasPartition reports whether tl partitions the databases' network (a partition of the
// managers' network alone leaves it one).
func hasPartition(tl *timeline.Timeline) bool {
	for _, a := range tl.Events {
		if a.Kind == act.Partition && a.Segments != nil && !a.ManagersOnly {
			return true
		}
	}
	return false
}

// replicate tells the model one of the timeline's replication events.
func (r *orchRepl) replicate(e timeline.ReplEvent) {
	r.m.Step(e.At, e.Input)
	r.flush()
}

// begin applies the host events at t, before the driver begins the instant.
func (r *orchRepl) begin(t time.Duration) {
	for r.nextHost < len(r.host) && r.host[r.nextHost].At <= t {
		a := r.host[r.nextHost]
		r.nextHost++
		r.hostDown[a.Node], r.told[a.Node] = a.Kind == act.HostDown, false
		if a.Node == r.master {
			r.tellLink(a.At, a.Node)
		}
	}
}

// next is the model's next decision of its own.
func (r *orchRepl) next() (time.Duration, bool) { return r.m.Next() }

// event tells the model what ev means to it.
func (r *orchRepl) event(ev act.Event) {
	switch ev := ev.(type) {
	case *act.FaultSet:
		if ev.Node < len(r.link) {
			r.link[ev.Node], r.told[ev.Node] = repl.LinkOf(ev.Fault), false
			if ev.Node == r.master {
				r.tellLink(ev.At, ev.Node)
			}
		}
	case *orchcore.Recovered:
		if ev.Verdict != orchestrator.Runs || ev.Node < 0 {
			return
		}
		r.tellLink(ev.At, ev.Node)
		from := ev.Failed
		if from != r.master {
			from = -1 // not the master the model holds as writing: nothing to lose from it
		}
		var repoint []int
		for _, j := range ev.Repointed {
			if j != ev.Node && j != from {
				repoint = append(repoint, j)
			}
		}
		r.m.Step(ev.At, repl.Promote{Node: ev.Node, From: from, Repoint: repoint})
		r.master = ev.Node
	}
	r.flush()
}

// instant closes instant at when the model decides something at it, and at the end tells the
// observers the model's summary.
func (r *orchRepl) instant(at time.Duration) {
	if next, ok := r.m.Next(); at == r.end || (ok && next <= at) {
		r.m.Close(at)
		r.flush()
	}
	if at == r.end {
		r.tell(&repl.Final{At: at, Config: r.cfg, Summary: r.m.Summary(), Ledger: r.m.Ledger(), Workload: r.workload})
	}
}

// tellLink tells the model node's link, if it changed since it was last told.
func (r *orchRepl) tellLink(at time.Duration, node int) {
	if r.told[node] {
		return
	}
	r.told[node] = true
	l := r.link[node]
	if r.hostDown[node] {
		l = repl.Link{Dead: true}
	}
	r.m.Step(at, repl.SetLink{Node: node, Link: l})
	r.flush()
}

// flush tells the observers the model's decisions so far.
func (r *orchRepl) flush() {
	for _, d := range r.m.Ready() {
		r.tell(d)
	}
}

func (r *orchRepl) tell(ev act.Event) {
	for _, o := range r.obs {
		o.Event(ev)
	}
}
