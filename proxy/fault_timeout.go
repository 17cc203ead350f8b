package proxy

import (
	"io"
	"math/rand/v2"
	"sync"

	"github.com/benbjohnson/clock"

	"github.com/failsim/failsim/fault"
)

// timeout is toxiproxy's timeout (toxics/timeout.go): every byte of its stream is dropped
// and, when Delay > 0, the connection is closed (FIN both ways) Delay after the toxic began
// on it; with Delay 0 the bytes are dropped until the toxic goes. Removing it closes the
// connection, as toxiproxy's Cleanup does. Unlike freeze, nothing is kept: the dropped bytes
// are gone.
type timeout struct {
	f fault.Fault

	mu    sync.Mutex
	timer *clock.Timer
	done  bool // finished: no timer may start
}

func (*timeout) kind() fault.Kind { return fault.Timeout }

func (t *timeout) fresh(*rand.Rand, wireFault) wireFault { return &timeout{f: t.f} }

func (t *timeout) shapes(d direction) bool { return d == dirOf(t.f.Stream) }

// write drops p.
func (t *timeout) write(c *conn, _ direction, _ io.Writer, p []byte) error {
	c.injected(fault.Timeout)
	return nil
}

// start begins the timeout on an open connection, when its mode is set or its trigger fires.
func (t *timeout) start(c *conn, _ bool) { t.begin(c) }

// begin starts the timer that closes the connection, once.
func (t *timeout) begin(c *conn) {
	if t.f.Delay <= 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done || t.timer != nil {
		return
	}
	t.timer = c.n.p.clock.AfterFunc(t.f.Delay, func() {
		c.injected(fault.Timeout)
		c.closeFIN()
	})
}

// finish stops the timer; a removed timeout closes the connection.
func (t *timeout) finish(c *conn, removed bool) {
	t.mu.Lock()
	t.done = true
	if t.timer != nil {
		t.timer.Stop()
	}
	t.mu.Unlock()
	if removed {
		c.closeFIN()
	}
}
