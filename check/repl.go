package check

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/failsim/failsim/property"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/timeline"
)

// Workload is failsim check's --workload: every trace gets a workload of Rate with Deadline,
// and the families add replication to their traces (see replicate).
type Workload struct {
	Rate     repl.Rate
	Deadline time.Duration
}

// ParseWorkload reads --workload's value: the timeline's workload statement with its words
// joined by commas, "writes=200/s,deadline=2s".
func ParseWorkload(s string) (Workload, error) {
	r, err := timeline.ParseWorkload(strings.Split(s, ","))
	if err != nil {
		return Workload{}, err
	}
	return Workload{Rate: r.Config.Rate, Deadline: r.Config.Deadline}, nil
}

// String writes the workload as --workload takes it.
func (w Workload) String() string {
	per := w.Rate.Per.String()
	if w.Rate.Per == time.Second {
		per = "s"
	}
	return fmt.Sprintf("writes=%d/%s,deadline=%s", w.Rate.Writes, per, w.Deadline)
}

// workloadDefaults are the properties a workload adds to a family's defaults:
// no-acked-write-lost on benign traces, where no master is fenced and so nothing may be lost.
// Elsewhere a fatal fault under async with a lagging replica loses writes by design, and under
// semisync a fallback to async may too: name it with --property to judge it there.
func workloadDefaults(f Family) []property.Spec {
	if f == Benign {
		return []property.Spec{{Name: property.NoAckedWriteLost}}
	}
	return nil
}

// replicate gives trace b the workload w and the replication its family adds: semisync on
// about every other trace, and on each replica, independently, a stream lag (up to a minute,
// sometimes back to none later), a frozen link that heals, and a replicator stopped for a
// while. The fault events are made first, from the same random source, so a trace's faults
// are the same with and without a workload.
func (b *builder) replicate(w Workload, r *timeline.Replication) {
	L := b.g.shape.Length
	*r = timeline.Replication{
		Config:   repl.Config{Nodes: len(b.g.nodes), Master: 0, Rate: w.Rate, Deadline: w.Deadline},
		Workload: true,
		Events:   r.Events[:0],
	}
	if b.rng.IntN(2) == 0 {
		r.Config.Mode = repl.Semisync
	}
	add := func(at time.Duration, in repl.Input) {
		if at < L {
			r.Events = append(r.Events, timeline.ReplEvent{At: at, Input: in})
		}
	}
	in := &b.g.inputs
	for j := 1; j < len(b.g.nodes); j++ {
		if b.rng.IntN(2) == 0 {
			at := b.between(0, L/2)
			add(at, in.lag(j, b.between(0, maxLag)))
			if b.rng.IntN(2) == 0 {
				add(at+b.between(time.Minute, L/2), in.lag(j, 0))
			}
		}
		if b.rng.IntN(3) == 0 {
			at := b.between(0, L)
			add(at, in.stream[j][1])
			add(at+b.between(10*time.Second, 20*time.Minute), in.stream[j][0])
		}
		if b.rng.IntN(4) == 0 {
			at := b.between(0, L)
			add(at, in.replicator[j][0])
			add(at+b.between(10*time.Second, 20*time.Minute), in.replicator[j][1])
		}
	}
	slices.SortStableFunc(r.Events, func(a, b timeline.ReplEvent) int { return cmp.Compare(a.At, b.At) })
}

// maxLag is the longest stream lag replicate sets on a replica.
const maxLag = time.Minute

// replInputs are the replication inputs replicate draws from, made once per generator: an
// input stored in a trace's events is an interface value, and making it anew for each event
// costs an allocation, which at thousands of traces a second costs more than the model's use
// of it. The values are never changed, so traces, and their clones, share them.
type replInputs struct {
	lags       [][]repl.Input  // per node, SetLag of 0 s, 1 s, ... maxLag
	stream     [][2]repl.Input // per node, SetStream healed ([0]) and frozen ([1])
	replicator [][2]repl.Input // per node, SetReplicator stopped ([0]) and running ([1])
}

func newReplInputs(nodes int) replInputs {
	in := replInputs{lags: make([][]repl.Input, nodes), stream: make([][2]repl.Input, nodes), replicator: make([][2]repl.Input, nodes)}
	for j := range nodes {
		for s := time.Duration(0); s <= maxLag; s += time.Second {
			in.lags[j] = append(in.lags[j], repl.SetLag{Node: j, Lag: s})
		}
		in.stream[j] = [2]repl.Input{repl.SetStream{Node: j}, repl.SetStream{Node: j, Frozen: true}}
		in.replicator[j] = [2]repl.Input{repl.SetReplicator{Node: j}, repl.SetReplicator{Node: j, Running: true}}
	}
	return in
}

// lag returns SetLag{Node: j, Lag: d}, for d a whole number of seconds up to maxLag.
func (in *replInputs) lag(j int, d time.Duration) repl.Input {
	if d%time.Second == 0 && d >= 0 && d <= maxLag {
		return in.lags[j][d/time.Second]
	}
	return repl.SetLag{Node: j, Lag: d}
}

// cloneRepl returns a copy of r that shares nothing with it; nil for nil.
func cloneRepl(r *timeline.Replication) *timeline.Replication {
	if r == nil {
		return nil
	}
	c := *r
	c.Events = slices.Clone(r.Events)
	c.Config.Precedence = slices.Clone(r.Config.Precedence)
	return &c
}

// dropReplNode removes node j from r: its replication events, and the node from the others'.
func dropReplNode(r *timeline.Replication, j int) {
	if r == nil {
		return
	}
	r.Config.Nodes--
	if r.Config.Master > j {
		r.Config.Master--
	}
	r.Config.Precedence = nil
	r.Events = slices.DeleteFunc(r.Events, func(e timeline.ReplEvent) bool { return repl.EventNode(e.Input) == j })
	for i, e := range r.Events {
		if n := repl.EventNode(e.Input); n > j {
			r.Events[i].Input = renumber(e.Input, n-1)
		}
	}
}

func renumber(in repl.Input, n int) repl.Input {
	switch in := in.(type) {
	case repl.SetLag:
		in.Node = n
		return in
	case repl.SetApplyLag:
		in.Node = n
		return in
	case repl.SetStream:
		in.Node = n
		return in
	case repl.SetReplicator:
		in.Node = n
		return in
	}
	panic(fmt.Sprintf("check: a replication event %T", in))
}
