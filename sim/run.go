package sim

import (
	"context"
	"io"

	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// Run is failsim replay: it replays tl under m, writes every event and then the verdict and the
// expectations' results to w in format f, and returns those results in timeline order. When ctx
// is done first it stops, writes the events so far and no verdict, and returns ctx's error.
func Run(ctx context.Context, w io.Writer, f report.Format, tl *timeline.Timeline, m *statemap.Map) ([]expect.Result, error) {
	run := report.NewRun(tl, m, report.NewPrinter(w, f, tl.Start, tl.Names())) // fresh observers: a parsed timeline may be replayed again
	if _, err := ReplayContext(ctx, tl, m, run.Observers()...); err != nil {
		run.Flush()
		return nil, err
	}
	return run.Summary()
}
