package proxy

import (
	"io"
	"net"

	"github.com/failsim/failsim/fault"
)

// The proxy's faults, in toxiproxy's shape: each wire fault is a small type in a file of its
// own (fault_KIND.go) that says which kind it is (wireFault) and implements the hooks it needs,
// each hook a small interface of its own. A connection's lifecycle and its pumps (conn.go) ask
// the active fault at each step whether it has the hook for that step; a fault without it
// leaves the step alone. hooksFor is the one place that maps a kind to its fault.
//
// Byte hooks (holdsBytes, shapesBytes) are asked only while their fault acts: in pass mode the
// server's bytes go to the client by splice(2), never through the proxy's memory.

// wireFault is one fault as a connection applies it. Every fault has a kind, counted in the
// node's statistics whenever the fault acts; the rest is optional hooks.
type wireFault interface {
	kind() fault.Kind
}

// verdict is what a hook decides for the step it was asked about.
type verdict uint8

const (
	pass verdict = iota // go on: dial the server, forward the packet
	drop                // swallow the packet: the proxy answered in the server's place
	stop                // the connection is going down: the hook has closed or reset it
	hold                // wait for the next mode change, then ask again
)

// direction is the way bytes go through a connection.
type direction uint8

const (
	dirUp   direction = iota // client to server
	dirDown                  // server to client
)

// onConnect is a fault that acts on a new connection before its server is dialled. A hold
// keeps the connection accepted and silent; the server is dialled after the hold.
type onConnect interface {
	connect(c *conn) verdict
}

// onLogin is a fault that acts on the client's first packet, its login.
type onLogin interface {
	login(c *conn, st packetStart) verdict
}

// onCommand is a fault that acts on each command (a client packet with sequence id 0) as it
// begins, before any of its bytes reach the server. A hold keeps the command from the server.
type onCommand interface {
	command(c *conn, st packetStart) verdict
}

// onStart is a fault that acts on an open connection the moment it starts there: when its
// mode is set on the node without a trigger (triggered false), or when the trigger of an
// armed mode fires on the connection (triggered true).
type onStart interface {
	start(c *conn, triggered bool)
}

// holdsBytes is a fault that holds bytes where they are while it acts: nothing moves in a
// direction it holds, a FIN included, until the mode changes. Its bytes are not lost: they
// move, in order, once the fault is gone.
type holdsBytes interface {
	holds(d direction) bool
}

// shapesBytes is a fault that acts on the bytes themselves while it acts: the pumps read the
// bytes of a direction it shapes into the proxy (leaving splice) and hand each chunk to write,
// which must write all of it to w, or fail, as the fault wants: late, in pieces, changed.
// write waits on the connection's clock (conn.sleep) so that a test can move time, and
// returns an error once the connection is done.
type shapesBytes interface {
	shapes(d direction) bool
	write(c *conn, d direction, w io.Writer, p []byte) error
}

// queuesBytes is a shaper whose write only queues the chunk on the connection's line, to be
// written later in order (delay): the pumps read on meanwhile. Bytes written any other way
// wait until the line is empty, so nothing overtakes what a queueing fault still holds.
type queuesBytes interface {
	queues()
}

// takesPort is a fault that takes the node's port from the accepting listener while it acts,
// unarmed and certain: occupy puts on the port what a connect then meets, or nothing (nil,
// nil), and the result is closed when the port is given back. The node compares takers with
// ==, so a taker's type must be comparable; two equal takers leave the port as it is.
type takesPort interface {
	occupy(addr *net.TCPAddr) (io.Closer, error)
}

// takesChance is a fault that a mode may make a chance (Mode.P): it draws at each set-up and
// each command from the connection's seeded source.
type takesChance interface {
	chance()
}

// hooksFor returns the fault that applies m on a connection, with m's arguments; nil for a
// kind the proxy cannot make real (Mode.validate refuses it first).
func hooksFor(m Mode) wireFault {
	switch m.Fault.Kind {
	case fault.Heal:
		return heal{}
	case fault.Refuse:
		return refuse{}
	case fault.Reset:
		return reset{p: m.P}
	case fault.Close:
		return closeFault{p: m.P}
	case fault.Freeze:
		return freeze{}
	case fault.Blackhole:
		return blackhole{}
	case fault.Stall:
		return stall{}
	case fault.Slow:
		return slow{delay: m.Fault.Delay, p: m.P}
	case fault.Delay:
		return delay{delay: m.Fault.Delay}
	case fault.Error:
		return errorFault{code: m.Fault.Code, armed: m.armed()}
	}
	if t, ok := toxicOfMode(m); ok && m.Fault.Kind.Toxiproxy() {
		return newChain([]Toxic{t}, []uint64{0}) // a toxiproxy toxic is a chain of one
	}
	return nil
}

// How a connection asks its fault. Each step reads the connection's state, asks the hook for
// the step if the active fault has one, and on a hold waits for the next mode change and asks
// again, whichever fault is active then. A hold is counted once per step, for the fault that
// first held it.

// setup asks the fault about a new connection before the upstream dial. It reports whether
// the connection goes on to its server.
func (c *conn) setup() bool {
	return c.step(func(f wireFault) (verdict, bool) {
		h, ok := f.(onConnect)
		if !ok {
			return pass, false
		}
		return h.connect(c), true
	}) == pass
}

// onPacket asks the fault about a client packet that begins: the login (the client's first
// packet) or a command. A command first counts for an AtCommand trigger.
func (c *conn) onPacket(st packetStart, first bool) verdict {
	if st.seq != 0 && first {
		return c.step(func(f wireFault) (verdict, bool) {
			h, ok := f.(onLogin)
			if !ok {
				return pass, false
			}
			return h.login(c, st), true
		})
	}
	c.countCommand()
	return c.step(func(f wireFault) (verdict, bool) {
		h, ok := f.(onCommand)
		if !ok {
			return pass, false
		}
		return h.command(c, st), true
	})
}

// step asks the active fault through ask, which reports false when the fault has no hook for
// the step; an inactive fault, or one without the hook, passes. It returns pass, drop or stop.
func (c *conn) step(ask func(wireFault) (verdict, bool)) verdict {
	held := false
	for {
		f, active, changed := c.state()
		if !active {
			return pass
		}
		v, ok := ask(f)
		if !ok || v != hold {
			return v
		}
		if !held {
			held = true
			c.injected(f.kind())
		}
		if !await(c, changed, clientReader) { // every step is the client's reader's
			return stop
		}
	}
}

// gate holds the calling pump while the active fault holds bytes going in direction d; the
// client's reader (w) watches the client meanwhile. It returns the fault that shapes those
// bytes, if any, and false once the connection is done.
func (c *conn) gate(d direction, w waiter) (shapesBytes, bool) {
	counted := false
	for {
		if c.isDone() {
			return nil, false
		}
		f, active, changed := c.state()
		if !active {
			return nil, true
		}
		if h, ok := f.(holdsBytes); !ok || !h.holds(d) {
			if s, ok := f.(shapesBytes); ok && s.shapes(d) {
				return s, true
			}
			return nil, true
		}
		if !counted {
			counted = true
			c.injected(f.kind())
		}
		if !await(c, changed, w) {
			return nil, false
		}
	}
}
