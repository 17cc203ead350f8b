package sim

import (
	"context"

	"github.com/failsim/failsim/core"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// Replayer is Replay for a caller that replays timelines one after another on one goroutine
// (failsim check, thousands of generated traces a second): it reuses the space of its last
// replay with a replication model (the model itself, its positions, histories and writes
// waiting) and its core's batches for the next, which Replay would allocate anew each time. What it replays, and
// tells the observers, is exactly what Replay does. Its zero value is ready to use; it is not
// safe for concurrent use.
type Replayer struct {
	repl *replRun   // the last replay's model run, done with; nil before any
	core *core.Core // the last replay's core, done with, whose batches' space the next reuses
}

// Replay is sim.Replay, reusing p's space. The engine it returns is valid until the next call.
func (p *Replayer) Replay(tl *timeline.Timeline, m *statemap.Map, obs ...drive.Observer) *fence.Engine {
	r := newRunnerReusing(context.Background(), tl, m, obs, p.repl, p.core, nil)
	if r.repl != nil {
		p.repl = r.repl
	}
	p.core = r.k
	_ = r.run() // no context to stop it: run returns no error
	return r.e
}

// zeroed returns s with n zero elements, reusing its space when it has room.
func zeroed[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}
