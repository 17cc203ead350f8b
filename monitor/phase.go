package monitor

import "fmt"

// Phase is the stage of a probe: where it was when it ended.
type Phase uint8

// The phases, in the order a probe goes through them.
const (
	Connect  Phase = iota // TCP connect
	Greeting              // connected, waiting for the server's greeting
	Login                 // the login (handshake response) sent, waiting for the verdict
	Query                 // logged in: the query sent, its result read
	Done                  // the result read in full; COM_QUIT and close follow
	numPhases
)

var phaseNames = [numPhases]string{"connect", "greeting", "login", "query", "done"}

func (p Phase) String() string {
	if p < numPhases {
		return phaseNames[p]
	}
	return fmt.Sprintf("phase(%d)", uint8(p))
}

// Op is the socket operation a raw error came from.
type Op uint8

// The socket operations.
const (
	OpNone  Op = iota // no socket error: the driver failed by itself (or the budget ran out)
	OpDial            // connect
	OpRead            // a read
	OpWrite           // a write
)

func (o Op) String() string {
	switch o {
	case OpDial:
		return "dial"
	case OpRead:
		return "read"
	case OpWrite:
		return "write"
	}
	return "none"
}
