package proxy

import (
	"io"
	"math/rand/v2"
	"time"

	"github.com/failsim/failsim/fault"
)

// bandwidth is toxiproxy's bandwidth (toxics/bandwidth.go): its stream carries at most Rate
// KB/s (1 KB = 1000 bytes). Each chunk adds its time at that rate to what the connection owes;
// a chunk of more than 100 ms worth goes in 100 ms pieces, each after 100 ms; the rest goes
// once what is owed has passed, and whatever the sleep overshot is credited, as in toxiproxy.
type bandwidth struct {
	f    fault.Fault
	owed time.Duration // written by the direction's one writer
}

func (*bandwidth) kind() fault.Kind { return fault.Bandwidth }

func (b *bandwidth) fresh(*rand.Rand, wireFault) wireFault { return &bandwidth{f: b.f} }

func (b *bandwidth) shapes(d direction) bool { return d == dirOf(b.f.Stream) }

func (b *bandwidth) write(c *conn, _ direction, w io.Writer, p []byte) error {
	rate := b.f.Rate
	if rate <= 0 {
		_, err := w.Write(p)
		return err
	}
	c.injected(fault.Bandwidth)
	b.owed += time.Duration(len(p)) * time.Millisecond / time.Duration(rate)
	piece := rate * 100 // the bytes of 100 ms
	for int64(len(p)) > piece {
		if !c.sleep(100*time.Millisecond, otherWaiter) {
			return errConnDone
		}
		if _, err := w.Write(p[:piece]); err != nil {
			return err
		}
		p = p[piece:]
		b.owed -= 100 * time.Millisecond
	}
	clk := c.n.p.clock
	start := clk.Now()
	if b.owed > 0 && !c.sleep(b.owed, otherWaiter) {
		return errConnDone
	}
	b.owed -= clk.Since(start)
	_, err := w.Write(p)
	return err
}
