package proxy

import (
	"io"
	"net"

	"github.com/failsim/failsim/fault"
)

// blackhole makes a connect hang until the client's own timeout: the port is held by a
// socket whose accept queue is full, so Linux drops the SYNs (openFullQueue,
// fault_blackhole_linux.go). Connections already open are frozen, as by freeze, and so is one
// accepted just before the listener was replaced. Armed, it leaves the listener open and
// freezes connections at the trigger.
type blackhole struct{}

func (blackhole) kind() fault.Kind { return fault.Blackhole }

// occupy puts a full accept queue on the port.
func (blackhole) occupy(addr *net.TCPAddr) (io.Closer, error) {
	q, err := openFullQueue(addr)
	if err != nil {
		return nil, err
	}
	return q, nil
}

// connect holds a connection accepted before the port was taken.
func (blackhole) connect(*conn) verdict { return hold }

// holds holds both directions.
func (blackhole) holds(direction) bool { return true }
