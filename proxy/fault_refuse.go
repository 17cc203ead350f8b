package proxy

import (
	"io"
	"net"

	"github.com/failsim/failsim/fault"
)

// refuse closes the node's port, so a connect fails with ECONNREFUSED, and resets the
// connections already open. Armed by a trigger, or met by a connection accepted just before
// the port closed, it acts as reset.
type refuse struct{}

func (refuse) kind() fault.Kind { return fault.Refuse }

// occupy leaves nothing on the port.
func (refuse) occupy(*net.TCPAddr) (io.Closer, error) { return nil, nil }

// connect resets a connection accepted before the port closed.
func (refuse) connect(c *conn) verdict {
	c.injected(fault.Refuse)
	c.reset()
	return stop
}

// command resets the connection at a command (an armed refuse).
func (refuse) command(c *conn, _ packetStart) verdict {
	c.injected(fault.Refuse)
	c.reset()
	return stop
}

// start resets an open connection. Set on the node, refuse counts it as a reset (the port is
// gone, the connection meets a reset); fired by a trigger, as a refuse.
func (refuse) start(c *conn, triggered bool) {
	if triggered {
		c.injected(fault.Refuse)
	} else {
		c.injected(fault.Reset)
	}
	c.reset()
}
