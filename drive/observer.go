package drive

import (
	"time"

	"github.com/failsim/failsim/fence"
)

// Observer is told what a driven run decides. The driver calls it on the goroutine that drives
// it, never concurrently.
//
// Observers are told of every instant at which something was decided, every checkpoint and the
// end: at each, Event once for each event in the order it was decided, then Instant once. A
// tick that decides nothing, alone at its instant, is no instant of theirs unless
// Config.EveryTick is set; nor is a probe the driver skipped because it would change nothing.
// At every instant they are told of, the engine has been ticked up to that instant.
type Observer interface {
	// Event is called for each event, in order: the engine's decisions (fence.Decision) and
	// the driver's notes (a *FaultSet: a fault put on a node's link). ev points into storage
	// that is reused once the call returns: copy what you keep.
	Event(ev fence.Event)
	// Instant is called once every event of instant at has been decided. e is the engine: read
	// it, do not call into it.
	Instant(at time.Duration, e *fence.Engine)
}
