// Package fault is failsim's one vocabulary of wire faults: the names a timeline uses for what
// happens to a node's database link, and the modes the proxy makes real on a socket.
//
// A Fault is a Kind plus its argument: the delay of slow, the MySQL error code of error, the
// condition name of probe. Kinds that a proxy can produce on loopback report Wire() true;
// unreachable, hostdown and probe exist only in the simulator.
//
// slow and delay both make a link late, differently: slow holds each command before the
// server sees it (a slow server), delay holds every byte both ways (a long or congested path:
// a replication stream that arrives late, a round trip that costs twice the delay).
//
// latency, bandwidth, slow-close, timeout, reset-peer, slicer and limit-data are toxiproxy's
// toxics of those names (Shopify/toxiproxy toxics/*.go, v2.5.0), with its arguments and
// semantics; each acts on one stream, downstream (server to client, toxiproxy's default)
// unless the words say upstream.
package fault

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Kind is one fault name. The zero value is Heal: no fault.
type Kind uint8

// The fault kinds, in the order the fault table lists them.
const (
	Heal        Kind = iota // no fault: every byte passes
	Refuse                  // port closed: connects refused, existing connections reset
	Reset                   // every connection reset (RST)
	Close                   // every connection closed (FIN) before any byte
	Freeze                  // accepted, then silence
	Blackhole               // SYN never answered: connect hangs
	Stall                   // connect and login work, every query's reply is held (the EBS case)
	Slow                    // every query's reply is held for Fault.Delay
	Delay                   // every byte, both ways, is held for Fault.Delay, in order (toxiproxy's latency)
	Error                   // a MySQL ERR packet with Fault.Code
	Latency                 // toxiproxy's latency: each chunk of one stream held Fault.Delay ± Fault.Jitter
	Bandwidth               // toxiproxy's bandwidth: one stream at most Fault.Rate KB/s
	SlowClose               // toxiproxy's slow_close: one stream's FIN held Fault.Delay
	Timeout                 // toxiproxy's timeout: one stream's bytes dropped, closed after Fault.Delay (0: never)
	ResetPeer               // toxiproxy's reset_peer: reset Fault.Delay after the stream's first bytes
	Slicer                  // toxiproxy's slicer: one stream cut into Fault.Size ± Fault.Variation byte pieces, Fault.Delay apart
	LimitData               // toxiproxy's limit_data: closed once Fault.Bytes went through the stream
	Unreachable             // no route to host (simulator only)
	HostDown                // host is down (simulator only)
	Probe                   // the probe yields Fault.Condition (simulator only)
	numKinds
)

// Count is the number of kinds: an array indexed by Kind has Count elements.
const Count = int(numKinds)

var names = [numKinds]string{
	Heal: "heal", Refuse: "refuse", Reset: "reset", Close: "close", Freeze: "freeze",
	Blackhole: "blackhole", Stall: "stall", Slow: "slow", Delay: "delay", Error: "error",
	Latency: "latency", Bandwidth: "bandwidth", SlowClose: "slow-close", Timeout: "timeout",
	ResetPeer: "reset-peer", Slicer: "slicer", LimitData: "limit-data",
	Unreachable: "unreachable", HostDown: "hostdown", Probe: "probe",
}

// Kinds returns every kind in table order.
func Kinds() []Kind {
	ks := make([]Kind, numKinds)
	for i := range ks {
		ks[i] = Kind(i)
	}
	return ks
}

// String returns the kind's name as a timeline writes it.
func (k Kind) String() string {
	if k < numKinds {
		return names[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Wire reports whether a proxy can make this fault real on a loopback socket.
func (k Kind) Wire() bool { return k <= LimitData }

// Toxiproxy reports whether k is one of toxiproxy's toxics, which act on one stream.
func (k Kind) Toxiproxy() bool { return k >= Latency && k <= LimitData }

// Stream is the direction a toxiproxy toxic acts on. The zero value is Downstream, toxiproxy's
// default (toxic_collection.go: AddToxicJson).
type Stream uint8

const (
	Downstream Stream = iota // server to client
	Upstream                 // client to server
)

// String returns "downstream" or "upstream", toxiproxy's words.
func (s Stream) String() string {
	if s == Upstream {
		return "upstream"
	}
	return "downstream"
}

// ParseKind returns the kind named s (lower case, as written in a timeline).
func ParseKind(s string) (Kind, bool) {
	for i, n := range names {
		if n == s {
			return Kind(i), true
		}
	}
	return 0, false
}

// Fault is a kind with its argument. The zero value is heal.
type Fault struct {
	Kind Kind
	// Delay is slow's hold of each query's reply and delay's of each byte (> 0); latency's
	// latency (> 0), slow-close's hold of the FIN (> 0), timeout's and reset-peer's timeout
	// (>= 0) and slicer's pause between pieces (>= 0).
	Delay     time.Duration
	Code      uint16        // error: the MySQL error code, 1..65535
	Condition string        // probe: the condition name the probe yields (checked by the caller)
	Jitter    time.Duration // latency: each chunk's delay is drawn from Delay ± Jitter; >= 0
	Rate      int64         // bandwidth: KB/s (1 KB = 1000 bytes: toxiproxy's Rate*100 bytes per 100 ms); > 0
	Bytes     int64         // limit-data: the bytes the stream carries before it is closed; > 0
	Size      int           // slicer: the average piece, in bytes; > 0
	Variation int           // slicer: each cut drawn within ± Variation bytes; 0 <= Variation < Size
	Stream    Stream        // the toxiproxy toxics: the stream it acts on
}

// Parse reads a fault from its words: "freeze", "slow 2s", "delay 500ms", "error 1045",
// "probe mysql_error".
func Parse(words []string) (Fault, error) {
	if len(words) == 0 {
		return Fault{}, fmt.Errorf("missing fault: want one of %s", strings.Join(names[:], ", "))
	}
	k, ok := ParseKind(words[0])
	if !ok {
		return Fault{}, fmt.Errorf("unknown fault %q: want one of %s", words[0], strings.Join(names[:], ", "))
	}
	f := Fault{Kind: k}
	args := words[1:]
	if k.Toxiproxy() {
		return parseToxic(f, args)
	}
	switch k {
	case Slow:
		if len(args) != 1 {
			return Fault{}, fmt.Errorf("slow takes one duration, e.g. \"slow 2s\"")
		}
		d, err := time.ParseDuration(args[0])
		if err != nil || d <= 0 {
			return Fault{}, fmt.Errorf("slow: %q is not a positive duration such as 2s or 1500ms", args[0])
		}
		f.Delay = d
	case Delay:
		if len(args) != 1 {
			return Fault{}, fmt.Errorf("delay takes one duration, e.g. \"delay 500ms\"")
		}
		d, err := time.ParseDuration(args[0])
		if err != nil || d <= 0 {
			return Fault{}, fmt.Errorf("delay: %q is not a positive duration such as 500ms or 2s", args[0])
		}
		f.Delay = d
	case Error:
		if len(args) != 1 {
			return Fault{}, fmt.Errorf("error takes one MySQL error code, e.g. \"error 1040\"")
		}
		n, err := strconv.ParseUint(args[0], 10, 16)
		if err != nil || n == 0 {
			return Fault{}, fmt.Errorf("error: %q is not a MySQL error code (1-65535)", args[0])
		}
		f.Code = uint16(n)
	case Probe:
		if len(args) != 1 {
			return Fault{}, fmt.Errorf("probe takes one condition name, e.g. \"probe mysql_error\"")
		}
		f.Condition = args[0]
	default:
		if len(args) != 0 {
			return Fault{}, fmt.Errorf("%s takes no argument, got %q", k, strings.Join(args, " "))
		}
	}
	return f, nil
}

// String writes the fault as a timeline would: "slow 2s", "error 1045",
// "latency 200ms jitter 50ms upstream".
func (f Fault) String() string {
	if f.Kind.Toxiproxy() {
		return toxicString(f)
	}
	switch f.Kind {
	case Slow:
		return "slow " + f.Delay.String()
	case Delay:
		return "delay " + f.Delay.String()
	case Error:
		return "error " + strconv.Itoa(int(f.Code))
	case Probe:
		return "probe " + f.Condition
	}
	return f.Kind.String()
}
