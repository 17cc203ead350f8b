package proxy

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/failsim/failsim/fault"
)

// Mode is what a node does to its connections: a wire fault from the shared vocabulary,
// optionally armed to start in the middle of each connection, optionally drawn by chance.
// The zero value is heal: every byte passes.
//
// Written as words, a mode is the fault followed by at most one trigger and an optional
// probability: "freeze", "slow 200ms", "error 1045", "freeze after 4096 bytes",
// "reset at command 3", "close p 0.1", "slow 50ms p 0.5 at command 2".
type Mode struct {
	// Fault is the fault itself; it must be a wire fault (fault.Kind.Wire).
	Fault fault.Fault
	// AfterBytes, when > 0, arms the fault: on each connection it starts after this many more
	// bytes have gone from the server to the client, counted from the moment the mode is set
	// (open connections) or from the connection's start (new ones). Zero: not armed by bytes.
	AfterBytes int64
	// AtCommand, when > 0, arms the fault: on each connection it starts at the AtCommand-th
	// command the client sends, counted like AfterBytes. Zero: not armed by commands.
	AtCommand int
	// P, when > 0, makes the fault a chance: it fires with probability P at each connection
	// set-up and at each command, drawn from the proxy's seeded source. Only slow, reset and
	// close take a probability. Zero: the fault always applies.
	P float64
}

// armed reports whether the fault waits for a trigger on each connection.
func (m Mode) armed() bool { return m.AfterBytes > 0 || m.AtCommand > 0 }

// String writes the mode in the words ParseMode reads.
func (m Mode) String() string {
	s := m.Fault.String()
	if m.AfterBytes > 0 {
		s += " after " + strconv.FormatInt(m.AfterBytes, 10) + " bytes"
	}
	if m.AtCommand > 0 {
		s += " at command " + strconv.Itoa(m.AtCommand)
	}
	if m.P > 0 {
		s += " p " + strconv.FormatFloat(m.P, 'g', -1, 64)
	}
	return s
}

// ParseMode reads a mode from its words, e.g. ["freeze", "after", "4096", "bytes"]. The fault
// part is parsed by fault.Parse, so the proxy knows exactly the timeline's fault names. The
// trigger and the probability may come in either order, each at most once.
func ParseMode(words []string) (Mode, error) {
	var m Mode
	var rest []string
	for i := 0; i < len(words); {
		switch words[i] {
		case "after":
			if i+2 >= len(words) || (words[i+2] != "bytes" && words[i+2] != "byte") {
				return Mode{}, errors.New(`"after" wants a byte count, e.g. "after 4096 bytes"`)
			}
			n, err := strconv.ParseInt(words[i+1], 10, 64)
			if err != nil || n <= 0 {
				return Mode{}, fmt.Errorf("after: %q is not a positive byte count", words[i+1])
			}
			switch {
			case m.AfterBytes > 0:
				return Mode{}, errors.New(`"after" given twice`)
			case m.AtCommand > 0:
				return Mode{}, errors.New(`a mode takes one trigger: "after N bytes" or "at command K"`)
			}
			m.AfterBytes = n
			i += 3
		case "at":
			if i+2 >= len(words) || words[i+1] != "command" {
				return Mode{}, errors.New(`"at" wants a command number, e.g. "at command 3"`)
			}
			k, err := strconv.Atoi(words[i+2])
			if err != nil || k <= 0 {
				return Mode{}, fmt.Errorf("at command: %q is not a positive command number", words[i+2])
			}
			switch {
			case m.AtCommand > 0:
				return Mode{}, errors.New(`"at command" given twice`)
			case m.AfterBytes > 0:
				return Mode{}, errors.New(`a mode takes one trigger: "after N bytes" or "at command K"`)
			}
			m.AtCommand = k
			i += 3
		case "p":
			if i+1 >= len(words) {
				return Mode{}, errors.New(`"p" wants a probability, e.g. "p 0.1"`)
			}
			p, err := strconv.ParseFloat(words[i+1], 64)
			if err != nil || !(p > 0 && p <= 1) {
				return Mode{}, fmt.Errorf("p: %q is not a probability in (0, 1]", words[i+1])
			}
			if m.P > 0 {
				return Mode{}, errors.New(`"p" given twice`)
			}
			m.P = p
			i += 2
		default:
			rest = append(rest, words[i])
			i++
		}
	}
	f, err := fault.Parse(rest)
	if err != nil {
		return Mode{}, err
	}
	m.Fault = f
	return m, m.validate()
}

// validate checks the combinations ParseMode cannot rule out word by word.
func (m Mode) validate() error {
	k := m.Fault.Kind
	if !k.Wire() {
		return fmt.Errorf("%s is a simulator-only fault: a proxy cannot make it real on loopback", k)
	}
	f := hooksFor(m)
	if f == nil {
		return fmt.Errorf("%s: the proxy has no such fault", k)
	}
	if k == fault.Heal && (m.armed() || m.P > 0) {
		return errors.New("heal takes no trigger and no probability")
	}
	if _, ok := f.(takesChance); m.P > 0 && !ok {
		// The message names the faults that take a chance (pinned by the CLI's scripts).
		return fmt.Errorf("%s takes no probability: only slow, reset and close do", k)
	}
	if m.AfterBytes < 0 || m.AtCommand < 0 || m.P < 0 || m.P > 1 {
		return errors.New("negative trigger or probability")
	}
	return nil
}

// parseModeString is ParseMode on a space-separated string.
func parseModeString(s string) (Mode, error) { return ParseMode(strings.Fields(s)) }
