package repl

import (
	"time"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/statemap"
)

// Link is how a node's database answers the application's writes. The zero value answers at
// once; Delay > 0 holds each write that long (slow); Dead answers nothing (dead or hung).
type Link struct {
	Dead  bool
	Delay time.Duration
}

// Slow returns the link that holds each write for d.
func Slow(d time.Duration) Link { return Link{Delay: d} }

// takes reports whether a write to a master behind this link commits under the deadline: the
// link is not dead, and its delay is under the deadline (a write held for the deadline or
// longer is given up by its client, and the proxy, which holds commands before the server,
// never delivers it).
func (l Link) takes(deadline time.Duration) bool { return !l.Dead && l.Delay < deadline }

// LinkOf is the fault model for writes: how a write fares on a node's database link under
// fault f. No fault answers at once; slow D holds each write for D; delay D holds it for 2D,
// a round trip on the writer's open connection (its command D late, its answer D late); every
// fault that makes the database dead or hung (refuse, reset, close, freeze, blackhole, stall,
// unreachable, hostdown) and error (every statement fails) commits nothing. A forced probe outcome
// ("probe C") answers when C is ok, and otherwise commits nothing.
//
// Toxiproxy's toxics act on one stream, and a write is one trip each way as delay's rule has it:
// its command upstream (writeBytes), its answer downstream (answerBytes). latency L jitter J
// holds each write L+J, the worst draw (as faultmodel.Predict takes it); bandwidth R holds it
// for its trip's bytes at R KB/s; slicer holds it for the pauses between the pieces of its trip
// (fault.Fault.MostPieces); slow-close delays only a FIN and answers at once. timeout (every
// byte of a stream dropped) and reset-peer (every connection reset at its first bytes) commit
// nothing. limit-data N commits nothing when a connection cannot carry its login and one write
// (openBytes and the write's trip); otherwise it answers: each connection is closed once N
// bytes went through, the write then in flight is lost and the client opens another, which this
// model, a link that answers or not, leaves out.
func LinkOf(f fault.Fault) Link {
	switch f.Kind {
	case fault.Heal, fault.SlowClose:
		return Link{}
	case fault.Slow:
		return Slow(f.Delay)
	case fault.Delay:
		return Slow(2 * f.Delay)
	case fault.Latency:
		return Slow(f.Delay + f.Jitter)
	case fault.Bandwidth:
		return Slow(time.Duration(tripBytes(f.Stream)) * time.Millisecond / time.Duration(f.Rate))
	case fault.Slicer:
		return Slow(time.Duration(f.MostPieces(tripBytes(f.Stream))-1) * f.Delay)
	case fault.LimitData:
		// Downstream the answer that reaches N still arrives whole; upstream the command
		// that reaches N is the last the server gets, and is not answered.
		need := int64(openBytes(f.Stream) + tripBytes(f.Stream))
		if f.Bytes > need || f.Stream == fault.Downstream && f.Bytes == need {
			return Link{}
		}
	case fault.Probe:
		if c, ok := statemap.ParseCondition(f.Condition); ok && c == statemap.OK {
			return Link{}
		}
	}
	return Link{Dead: true}
}

// The bytes of a write on the writer's connection and of the login that opened it, as
// faultmodel counts the probe's: the greeting (104) and the login's verdict (11) downstream, the
// login (183) upstream; a write's command is its INSERT, its answer an OK.
const (
	writeBytes  = 47  // "INSERT INTO failsim.ledger (id) VALUES (?)" in a packet
	answerBytes = 11  // its OK
	openDown    = 115 // the greeting and the login's verdict
	openUp      = 183 // the login
)

// tripBytes is a write's trip on stream s.
func tripBytes(s fault.Stream) int {
	if s == fault.Upstream {
		return writeBytes
	}
	return answerBytes
}

// openBytes is what opening a connection carries on stream s.
func openBytes(s fault.Stream) int {
	if s == fault.Upstream {
		return openUp
	}
	return openDown
}
