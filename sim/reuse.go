package sim

import (
	"context"

	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// Replayer is Replay for a caller that replays timelines one after another on one goroutine
// (failsim check, thousands of generated traces a second): it reuses the space of its last
// replay for the next, which Replay would allocate anew each time: the replication model, if
// any (the model itself, its positions, histories and writes waiting), the engine, the core and
// its batches, the driver, and the fault model. What it replays, and tells the observers, is
// exactly what Replay does. Its zero value is ready to use; it is not safe for concurrent use.
type Replayer struct {
	// Sparse replays a timeline with no replication model under drive.Config.Sparse: set it
	// only for observers that judge what is decided and the engine as it stands, not which
	// instants they are told of beyond those at which something is decided (property.Set.Sparse).
	// What is decided, and when, is the same either way.
	Sparse bool
	spare  spare // the last replay's model run, engine, core, driver and runner, done with; zero before any
}

// Replay is sim.Replay, reusing p's space. The engine it returns is valid until the next call.
func (p *Replayer) Replay(tl *timeline.Timeline, m *statemap.Map, obs ...drive.Observer) *fence.Engine {
	r := newRunnerSparse(context.Background(), tl, m, obs, &p.spare, nil, p.Sparse)
	if r.repl != nil {
		p.spare.repl = r.repl
	}
	p.spare.e, p.spare.core, p.spare.d, p.spare.r = r.e, r.k, r.d, r
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
