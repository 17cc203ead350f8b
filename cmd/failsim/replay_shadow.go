package main

import (
	"context"

	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/monitor"
	"github.com/failsim/failsim/monitor/livereplay"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/shadow"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// runReplayShadows is failsim replay --shadow: the replay, then each shadow's divergences after
// the verdict (sim.RunShadows). The shadows' files are read after the timeline, so that a bad
// timeline is said first.
func (m *Main) runReplayShadows(ctx context.Context, f report.Format, tl *timeline.Timeline, sm *statemap.Map, flags []string) ([]expect.Result, error) {
	specs, err := loadShadows(ctx, flags)
	if err != nil {
		return nil, err
	}
	return sim.RunShadows(ctx, m.Stdout, f, tl, sm, specs)
}

// liveShadows puts the shadows, if any, beside a live replay's engine and returns the tally
// that keeps their divergences; nil without shadows.
func liveShadows(cfg *livereplay.LiveConfig, specs []shadow.Spec) *shadow.Tally {
	if len(specs) == 0 {
		return nil
	}
	tally := shadow.NewTally(len(specs))
	cfg.Shadows = &monitor.Shadows{Specs: specs, Sink: tally}
	return tally
}
