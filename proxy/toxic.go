package proxy

import (
	"errors"
	"fmt"
	"strings"

	"github.com/failsim/failsim/fault"
)

// Toxic is one fault in a node's chain, in toxiproxy's shape (toxics.ToxicWrapper): a name
// unique within the node, a type, the stream it acts on, its toxicity and its attributes.
// A node's chain is every toxic it holds, applied together to each connection; today's modes
// (Node.SetMode, "freeze after 4096 bytes") are the shorthand for a chain of one.
//
// The types are toxiproxy's (latency, bandwidth, slow_close, timeout, reset_peer, slicer,
// limit_data) and failsim's own (freeze, blackhole, stall, slow, delay, error, close, reset,
// refuse). toxiproxy's act on their stream only; failsim's act on the whole connection as
// their mode does, whatever the stream says (docs/proxy.md, "toxiproxy's toxics").
type Toxic struct {
	// Name is the toxic's name in the node, unique across both streams. Empty means toxiproxy's
	// default, "<type>_<stream>" (toxic_collection.go: AddToxicJson).
	Name string
	// Type is the toxic's type: ToxicType of its fault's kind. Empty means ToxicType(Fault.Kind).
	Type string
	// Stream is the direction it acts on; the zero value is downstream, toxiproxy's default.
	Stream fault.Stream
	// Toxicity is the chance, in [0, 1], that the toxic acts on a connection, drawn once per
	// connection (and again when the toxic is updated) from the proxy's seeded source. It is
	// taken as given: 0 never acts. toxiproxy's default, 1, is its API's (and a mode's).
	Toxicity float64
	// Fault is the toxic's fault with its attributes. Its Stream is the toxic's.
	Fault fault.Fault
}

// The errors of a node's chain, toxiproxy's words (api.go: ErrToxicNotFound,
// ErrToxicAlreadyExists), so that its HTTP API can answer 404 and 409 with them.
var (
	ErrToxicExists   = errors.New("toxic already exists")
	ErrToxicNotFound = errors.New("toxic not found")
	// ErrModeStandsAlone is AddToxic's answer on a node whose mode has a trigger or a chance
	// ("freeze after 4096 bytes", "reset p 0.1"): such a mode is a chain of one.
	ErrModeStandsAlone = errors.New("the node's mode has a trigger or a chance, which stands alone in its chain: heal it first")
)

// toxicTypes maps each wire fault to its toxic type: toxiproxy's names for its toxics, the
// fault's own name for failsim's.
var toxicTypes = map[fault.Kind]string{
	fault.Latency: "latency", fault.Bandwidth: "bandwidth", fault.SlowClose: "slow_close",
	fault.Timeout: "timeout", fault.ResetPeer: "reset_peer", fault.Slicer: "slicer",
	fault.LimitData: "limit_data", fault.Heal: "noop",
	fault.Refuse: "refuse", fault.Reset: "reset", fault.Close: "close", fault.Freeze: "freeze",
	fault.Blackhole: "blackhole", fault.Stall: "stall", fault.Slow: "slow", fault.Delay: "delay",
	fault.Error: "error",
}

// ToxicType returns the toxic type of a wire fault kind ("limit_data" for fault.LimitData;
// toxiproxy's "noop", which passes every byte, for heal), "" for the simulator's faults.
func ToxicType(k fault.Kind) string { return toxicTypes[k] }

// KindOfToxicType returns the fault kind of a toxic type.
func KindOfToxicType(typ string) (fault.Kind, bool) {
	for k, t := range toxicTypes {
		if t == typ {
			return k, true
		}
	}
	return 0, false
}

// withDefaults fills toxiproxy's defaults: the type from the fault, the name "<type>_<stream>",
// the stream into the fault.
func (t Toxic) withDefaults() Toxic {
	if t.Type == "" {
		t.Type = ToxicType(t.Fault.Kind)
	}
	if t.Name == "" {
		t.Name = t.Type + "_" + t.Stream.String()
	}
	t.Fault.Stream = t.Stream
	return t
}

// validate checks a toxic with its defaults filled: a known type that matches its fault, a
// toxicity in [0, 1], attributes toxiproxy would take (not negative).
func (t Toxic) validate() error {
	k, ok := KindOfToxicType(t.Type)
	if !ok {
		return fmt.Errorf("invalid toxic type %q", t.Type)
	}
	if k != t.Fault.Kind {
		return fmt.Errorf("toxic %s: type %s but fault %s", t.Name, t.Type, t.Fault.Kind)
	}
	if t.Name == "" || strings.ContainsFunc(t.Name, func(r rune) bool { return r == '/' || r < ' ' }) {
		return fmt.Errorf("toxic name %q: want text with no '/' or control character", t.Name)
	}
	if !(t.Toxicity >= 0 && t.Toxicity <= 1) {
		return fmt.Errorf("toxic %s: toxicity %v is not in [0, 1]", t.Name, t.Toxicity)
	}
	f := t.Fault
	if f.Delay < 0 || f.Jitter < 0 || f.Rate < 0 || f.Bytes < 0 || f.Size < 0 || f.Variation < 0 {
		return fmt.Errorf("toxic %s: negative attribute", t.Name)
	}
	switch k {
	case fault.Slow, fault.Delay:
		if f.Delay <= 0 {
			return fmt.Errorf("toxic %s: %s wants a positive delay", t.Name, k)
		}
	case fault.Error:
		if f.Code == 0 {
			return fmt.Errorf("toxic %s: error wants a MySQL error code (1-65535)", t.Name)
		}
	case fault.Slicer:
		if f.Size <= 0 {
			return fmt.Errorf("toxic %s: slicer wants a positive average_size", t.Name)
		}
	}
	return nil
}

// toxicOfMode is the toxic a mode is the shorthand for; false for heal.
func toxicOfMode(m Mode) (Toxic, bool) {
	if m.Fault.Kind == fault.Heal {
		return Toxic{}, false
	}
	return Toxic{Stream: m.Fault.Stream, Toxicity: 1, Fault: m.Fault}.withDefaults(), true
}

// Toxics returns the node's chain in toxiproxy's order (toxic_collection.go: GetToxicArray):
// the upstream toxics, then the downstream ones, each stream in the order they were added.
func (n *Node) Toxics() []Toxic {
	n.mu.Lock()
	defer n.mu.Unlock()
	var up, down []Toxic
	for _, t := range n.toxics {
		if t.Stream == fault.Upstream {
			up = append(up, t)
		} else {
			down = append(down, t)
		}
	}
	return append(up, down...)
}

// Toxic returns the toxic called name.
func (n *Node) Toxic(name string) (Toxic, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	i := n.findToxicLocked(name)
	if i < 0 {
		return Toxic{}, false
	}
	return n.toxics[i], true
}

// findToxicLocked returns the index of the toxic called name, -1 if none.
func (n *Node) findToxicLocked(name string) int {
	for i, t := range n.toxics {
		if t.Name == name {
			return i
		}
	}
	return -1
}

// AddToxic adds t at the end of its stream's chain, with toxiproxy's default name and the
// type of its fault, and applies the chain to new and open connections. It returns the toxic
// as added.
func (n *Node) AddToxic(t Toxic) (Toxic, error) {
	t = t.withDefaults()
	if err := t.validate(); err != nil {
		return Toxic{}, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.mode.armed() || n.mode.P > 0 {
		return Toxic{}, ErrModeStandsAlone
	}
	if n.findToxicLocked(t.Name) >= 0 {
		return Toxic{}, ErrToxicExists
	}
	list := append(append([]Toxic(nil), n.toxics...), t)
	revs := append(append([]uint64(nil), n.revs...), n.nextRev())
	return t, n.setChainLocked(list, revs)
}

// UpdateToxic replaces the attributes and toxicity of the toxic called name with t's (its
// name, type and stream stay), as toxiproxy's PATCH does; open connections draw its toxicity
// again. It returns the toxic as it is now.
func (n *Node) UpdateToxic(name string, t Toxic) (Toxic, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	i := n.findToxicLocked(name)
	if i < 0 {
		return Toxic{}, ErrToxicNotFound
	}
	old := n.toxics[i]
	t.Name, t.Type, t.Stream = old.Name, old.Type, old.Stream
	t.Fault.Kind = old.Fault.Kind
	t = t.withDefaults()
	if err := t.validate(); err != nil {
		return Toxic{}, err
	}
	list := append([]Toxic(nil), n.toxics...)
	revs := append([]uint64(nil), n.revs...)
	list[i], revs[i] = t, n.nextRev()
	return t, n.setChainLocked(list, revs)
}

// RemoveToxic removes the toxic called name from the chain.
func (n *Node) RemoveToxic(name string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	i := n.findToxicLocked(name)
	if i < 0 {
		return ErrToxicNotFound
	}
	list := append(append([]Toxic(nil), n.toxics[:i]...), n.toxics[i+1:]...)
	revs := append(append([]uint64(nil), n.revs[:i]...), n.revs[i+1:]...)
	return n.setChainLocked(list, revs)
}

// ResetToxics removes every toxic: the node passes every byte (a heal).
func (n *Node) ResetToxics() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.setChainLocked(nil, nil); err != nil {
		n.p.log.Error().Str("node", n.name).Err(err).Msg("cannot heal the node")
	}
}

// nextRev returns a fresh revision for a toxic added or updated.
func (n *Node) nextRev() uint64 {
	n.rev++
	return n.rev
}

// setChainLocked makes list the node's chain. A chain of one of failsim's own toxics at
// toxicity 1 is that fault's mode, so that refuse and blackhole take the port as their modes
// do; any other chain is applied as one fault, each toxic drawn per connection.
func (n *Node) setChainLocked(list []Toxic, revs []uint64) error {
	if len(list) == 0 {
		return n.applyLocked(Mode{}, hooksFor(Mode{}), nil, nil)
	}
	if len(list) == 1 && list[0].Toxicity == 1 && !list[0].Fault.Kind.Toxiproxy() {
		m := Mode{Fault: list[0].Fault}
		m.Fault.Stream = 0
		if err := m.validate(); err != nil {
			return err
		}
		return n.applyLocked(m, hooksFor(m), list, revs)
	}
	return n.applyLocked(Mode{}, newChain(list, revs), list, revs)
}

// describe writes the node's chain for its status: its mode when the chain is one mode's,
// else each toxic as "name=words" joined by ", ".
func describe(m Mode, list []Toxic) string {
	if len(list) <= 1 && (len(list) == 0 || list[0].Toxicity == 1) {
		if len(list) == 1 && m.Fault.Kind == fault.Heal {
			return list[0].Fault.String()
		}
		return m.String()
	}
	parts := make([]string, len(list))
	for i, t := range list {
		s := t.Name + "=" + t.Fault.String()
		if t.Fault.Kind.Toxiproxy() && t.Stream == fault.Downstream {
			s += " downstream"
		}
		if t.Toxicity != 1 {
			s += fmt.Sprintf(" toxicity %g", t.Toxicity)
		}
		parts[i] = s
	}
	return strings.Join(parts, ", ")
}

// modeAndChain returns the node's mode and chain together.
func (n *Node) modeAndChain() (Mode, []Toxic) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.mode, n.toxics
}
