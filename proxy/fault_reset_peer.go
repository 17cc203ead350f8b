package proxy

import (
	"io"

	"github.com/failsim/failsim/fault"
)

// resetPeer is toxiproxy's reset_peer (toxics/reset_peer.go): the first bytes of its stream
// (or its end) are dropped, and Delay later the connection is reset, RST both ways. toxiproxy
// sends the RST only on connections that began while the toxic was there (it sets SO_LINGER 0
// at a link's start) and a FIN on the others; failsim always resets (docs/proxy.md).
type resetPeer struct {
	f fault.Fault
}

func (resetPeer) kind() fault.Kind { return fault.ResetPeer }

func (r resetPeer) shapes(d direction) bool { return d == dirOf(r.f.Stream) }

func (r resetPeer) write(c *conn, _ direction, _ io.Writer, _ []byte) error {
	r.fire(c)
	return errConnDone
}

func (r resetPeer) end(c *conn, d direction, _ waiter) bool {
	if d != dirOf(r.f.Stream) {
		return true
	}
	r.fire(c)
	return false
}

// fire waits Delay, then resets the connection.
func (r resetPeer) fire(c *conn) {
	c.injected(fault.ResetPeer)
	if r.f.Delay > 0 && !c.sleep(r.f.Delay, otherWaiter) {
		return
	}
	c.reset()
}
