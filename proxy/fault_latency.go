package proxy

import (
	"io"
	"math/rand/v2"
	"time"

	"github.com/failsim/failsim/fault"
)

// latency is toxiproxy's latency (toxics/latency.go): every chunk of its stream is late by
// Delay, plus a jitter drawn per chunk, as toxiproxy draws it, in whole milliseconds from
// [-Jitter, +Jitter) (rand.Int63n(2*jitter) - jitter), but from the connection's seeded
// source. Chunks keep their order: one due before the chunk ahead of it goes right after it,
// as toxiproxy's serial sleep does. The chunks wait on the connection's line (fault_delay.go),
// so a stream is late, not slowed.
type latency struct {
	f   fault.Fault
	rng *rand.Rand // nil in the chain's prototype; the connection's instance has its own
}

func (*latency) kind() fault.Kind { return fault.Latency }

func (l *latency) fresh(rng *rand.Rand, _ wireFault) wireFault { return &latency{f: l.f, rng: rng} }

func (l *latency) shapes(d direction) bool { return d == dirOf(l.f.Stream) }

// lateBy draws the delay of the next chunk of direction d.
func (l *latency) lateBy(d direction) (time.Duration, bool) {
	if d != dirOf(l.f.Stream) {
		return 0, false
	}
	by := l.f.Delay
	if j := int64(l.f.Jitter / time.Millisecond); j > 0 && l.rng != nil {
		by += time.Duration(l.rng.Int64N(2*j)-j) * time.Millisecond
	}
	return max(by, 0), true
}

// write is a binding's: a connection applies latency through its bound chain (chain.go),
// which queues the chunk; alone it queues it the same way.
func (l *latency) write(c *conn, d direction, w io.Writer, p []byte) error {
	by, _ := l.lateBy(d)
	c.injected(fault.Latency)
	return c.lineFor(d, w).push(c, chunk{due: c.n.p.clock.Now().Add(by), p: append([]byte(nil), p...)})
}
