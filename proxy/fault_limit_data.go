package proxy

import (
	"io"
	"math/rand/v2"
	"sync/atomic"

	"github.com/failsim/failsim/fault"
)

// limitData is toxiproxy's limit_data (toxics/limit_data.go): once Bytes bytes have gone
// through its stream on a connection, the connection is closed (FIN both ways); the chunk that
// crosses the limit is cut at it. The count survives an update of the toxic, as toxiproxy's
// state does.
type limitData struct {
	f    fault.Fault
	sent atomic.Int64 // written by the direction's one writer, read by an update's fresh
}

func (*limitData) kind() fault.Kind { return fault.LimitData }

func (l *limitData) fresh(_ *rand.Rand, old wireFault) wireFault {
	n := &limitData{f: l.f}
	if o, ok := old.(*limitData); ok {
		n.sent.Store(o.sent.Load())
	}
	return n
}

func (l *limitData) shapes(d direction) bool { return d == dirOf(l.f.Stream) }

func (l *limitData) write(c *conn, _ direction, w io.Writer, p []byte) error {
	left := max(l.f.Bytes-l.sent.Load(), 0)
	if int64(len(p)) > left {
		p = p[:left]
	}
	if len(p) > 0 {
		if _, err := w.Write(p); err != nil {
			return err
		}
		l.sent.Add(int64(len(p)))
	}
	if l.f.Bytes-l.sent.Load() <= 0 {
		c.injected(fault.LimitData)
		c.closeFIN()
		return errConnDone
	}
	return nil
}
