package sim

import (
	"context"
	"io"

	"github.com/failsim/failsim/cluster"
	"github.com/failsim/failsim/core"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/shadow"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// ReplayShadows is ReplayContext with shadows beside the engine: each spec's statemap runs in
// an engine of its own, given every probe outcome, tick and action the engine under m gets
// (package shadow), and sink (nil: no one) is told their decisions and divergences. The
// observers are told exactly what ReplayContext tells them: the shadows change nothing of the
// run. A shadow's failover promotes the first eligible replica in cluster order
// (fence.FirstEligible), even in a timeline with a workload, whose engine ranks the replicas by
// the replication model's positions.
func ReplayShadows(ctx context.Context, tl *timeline.Timeline, m *statemap.Map, specs []shadow.Spec, sink shadow.Sink, obs ...drive.Observer) (*fence.Engine, error) {
	var tee *shadow.Tee
	wrap := func(k *core.Core) drive.Machine {
		tee = shadow.NewTee(k, shadowCores(tl, specs), sink)
		return tee
	}
	r := newRunner(ctx, tl, m, obs, wrap)
	err := r.run()
	if err == nil {
		tee.Finish()
	}
	return r.e, err
}

// shadowCores makes each spec's core, fresh, with tl's nodes, policy and group.
func shadowCores(tl *timeline.Timeline, specs []shadow.Spec) []shadow.Candidate {
	out := make([]shadow.Candidate, len(specs))
	for i, s := range specs {
		e := fence.New(fence.Config{Nodes: tl.Nodes, Map: s.Map, Policy: tl.Policy})
		k := core.New(e, &cluster.Config{Witnesses: len(tl.Witnesses), GapThreshold: tl.GapThreshold, FailsafeThreshold: tl.FailsafeThreshold})
		out[i] = shadow.Candidate{Name: s.Name, Machine: k}
	}
	return out
}

// RunShadows is Run with shadows beside the engine (ReplayShadows): after the verdict and the
// expectations' results it writes each shadow's divergences (report.WriteShadows). It returns
// the expectations' results: a divergence is no failed expectation.
func RunShadows(ctx context.Context, w io.Writer, f report.Format, tl *timeline.Timeline, m *statemap.Map, specs []shadow.Spec) ([]expect.Result, error) {
	run := report.NewRun(tl, m, report.NewPrinter(w, f, tl.Start, tl.Names()))
	tally := shadow.NewTally(len(specs))
	if _, err := ReplayShadows(ctx, tl, m, specs, tally, run.Observers()...); err != nil {
		run.Flush()
		return nil, err
	}
	results, err := run.Summary()
	if err != nil {
		return results, err
	}
	return results, report.WriteShadows(w, f, tl.Start, tl.Names(), specs, tally)
}
