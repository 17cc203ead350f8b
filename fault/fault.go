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
	Unreachable             // no route to host (simulator only)
	HostDown                // host is down (simulator only)
	Probe                   // the probe yields Fault.Condition (simulator only)
	numKinds
)

var names = [numKinds]string{
	Heal: "heal", Refuse: "refuse", Reset: "reset", Close: "close", Freeze: "freeze",
	Blackhole: "blackhole", Stall: "stall", Slow: "slow", Delay: "delay", Error: "error",
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
func (k Kind) Wire() bool { return k <= Error }

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
	Kind      Kind
	Delay     time.Duration // slow: how long each query's reply is held; delay: each byte; > 0
	Code      uint16        // error: the MySQL error code, 1..65535
	Condition string        // probe: the condition name the probe yields (checked by the caller)
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

// String writes the fault as a timeline would: "slow 2s", "error 1045".
func (f Fault) String() string {
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
