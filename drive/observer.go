package drive

import (
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
)

// Observer is told what a driven run decides. The driver calls it on the goroutine that drives
// it, never concurrently.
//
// Observers are told of every instant at which something was decided, every checkpoint and the
// end: at each, Event once for each event in the order it was decided, then, to an observer
// that is also an InstantObserver, Instant once. (Instant is optional, in toxiproxy's style of
// optional interfaces: the driver asks once, at New, which observers have it, so an observer
// that judges events alone writes no empty method and costs no call at an instant.) A
// tick that decides nothing, alone at its instant, is no instant of theirs unless
// Config.EveryTick is set; nor is a probe the driver skipped because it would change nothing;
// nor, under Config.Sparse, any instant at which nothing is decided. At every instant they are told of, the engine has been ticked up to that instant.
type Observer interface {
	// Event is called for each event, in order: the engine's decisions (fence.Decision) and
	// the driver's notes (a *FaultSet: a fault put on a node's link). ev points into storage
	// that is reused once the call returns: copy what you keep.
	Event(ev act.Event)
}

// InstantObserver is an Observer that is also told when each instant ends.
type InstantObserver interface {
	Observer
	// Instant is called once every event of instant at has been decided, with a read-only view
	// of the engine as it stands.
	Instant(at time.Duration, e fence.View)
}

// Instants returns the observers of obs that are InstantObservers, in order: what an observer
// that tells others (a fan-out, a lock) calls Instant on.
func Instants(obs []Observer) []InstantObserver {
	var out []InstantObserver
	for _, o := range obs {
		if i, ok := o.(InstantObserver); ok {
			out = append(out, i)
		}
	}
	return out
}
