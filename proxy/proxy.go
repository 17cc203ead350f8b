package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/benbjohnson/clock"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// NodeConfig describes one node.
type NodeConfig struct {
	Name     string // the node's name in the control API and the metrics
	Listen   string // where the proxy listens, e.g. "127.0.0.1:4001"; port 0 picks a free one
	Upstream string // the real server, e.g. "127.0.0.1:3306"
	Mode     Mode   // the mode at start; the zero value is heal
	// Disabled starts the node down, toxiproxy's "enabled": false: its port is not bound
	// until Node.SetEnabled(true). False (the zero value): the node listens at once.
	Disabled bool
	// RewriteTopology rewrites, in the server's replies that report topology (SHOW SLAVE
	// HOSTS, SHOW SLAVE STATUS, SELECT @@hostname, @@port...), every server address the proxy
	// knows to the address of the proxy node in front of it, and the server's own name and port
	// to this node's (docs/proxy.md, "Topology rewriting"). The server's bytes are then copied
	// through the proxy rather than spliced. False, the zero value: they pass untouched.
	RewriteTopology bool
	// TopologyAliases are other "host:port" addresses of the same server that replies may
	// name (a DNS name, a replication link's proxy): a rewriting node rewrites them to this
	// node's listen address, as it does Upstream. Nil: only Upstream.
	TopologyAliases []string
}

// Config is a proxy's configuration.
type Config struct {
	Nodes []NodeConfig
	// Seed seeds every random draw of probabilistic modes: connection number i of node X gets
	// its own source from (Seed, X, i), so the same seed and the same sequence of connections
	// and commands give the same faults.
	Seed uint64
	// Log receives warnings (dial failures, non-MySQL servers); the zero value logs nothing.
	Log zerolog.Logger
	// Clock times slow delays; nil means the wall clock.
	Clock clock.Clock
	// DialTimeout bounds each upstream dial; zero means 5s.
	DialTimeout time.Duration
	// HandshakeTimeout bounds how long a client may take to send its handshake response
	// (its first packet) once the server's greeting has reached it; a client that does not
	// is closed with FIN both ways, as a server's own connect_timeout would. The bound does
	// not act while a fault holds the connection (freeze, blackhole) and restarts in full at
	// every mode change; a client that has answered never meets it again. Zero means
	// DefaultHandshakeTimeout (30 s); a negative value turns the bound off.
	HandshakeTimeout time.Duration
	// AllowNonLoopback lets a node listen on an address that is not loopback (0.0.0.0, ::, a
	// host's own address), where every host that reaches it reaches the database through the
	// proxy. False (the zero value): such a listen address is refused (ErrNotLoopback).
	AllowNonLoopback bool
	// RewriteTopology makes every node rewrite topology (NodeConfig.RewriteTopology), those
	// AddNode adds at run time (the toxiproxy API's) too. False, the zero value: each node
	// as its NodeConfig says.
	RewriteTopology bool
	// AllowNoNodes lets New start a proxy with no nodes, for one whose nodes come at run
	// time (Proxy.AddNode, the toxiproxy API). False (the zero value): no nodes is an error.
	AllowNoNodes bool
}

// ErrNotLoopback is what Config.Validate refuses a node's listen address with when it is not
// loopback and Config.AllowNonLoopback is false.
var ErrNotLoopback = errors.New("not a loopback address")

// DefaultHandshakeTimeout is the handshake bound when Config.HandshakeTimeout is zero.
const DefaultHandshakeTimeout = 30 * time.Second

// Proxy is a running set of nodes. It is safe for concurrent use.
type Proxy struct {
	mu     sync.RWMutex // guards nodes, names and closed; the data path never takes it
	nodes  map[string]*Node
	names  []string // sorted
	closed bool
	admin  sync.Mutex // serializes AddNode and RemoveNode (dynamic.go)

	anyAddress  bool // Config.AllowNonLoopback
	rewriteAll  bool // Config.RewriteTopology
	seed        uint64
	log         zerolog.Logger
	clock       clock.Clock
	dialTimeout time.Duration
	handshake   time.Duration // 0: no handshake bound
	registry    *prometheus.Registry
	ctx         context.Context
	cancel      context.CancelFunc
}

// Validate checks cfg without binding anything: at least one node unless AllowNoNodes, names
// given once, valid modes and addresses, listen addresses on loopback unless
// AllowNonLoopback. An error here is bad input; New can fail after it only on the network.
func (cfg Config) Validate() error {
	if len(cfg.Nodes) == 0 && !cfg.AllowNoNodes {
		return errors.New("no nodes")
	}
	seen := map[string]bool{}
	for _, nc := range cfg.Nodes {
		if err := checkName(nc.Name); err != nil {
			return err
		}
		if seen[nc.Name] {
			return fmt.Errorf("node %s given twice", nc.Name)
		}
		seen[nc.Name] = true
		if err := nc.validate(); err != nil {
			return fmt.Errorf("node %s: %w", nc.Name, err)
		}
		if !cfg.AllowNonLoopback {
			if err := nc.CheckLoopback(); err != nil {
				return fmt.Errorf("node %s: %w", nc.Name, err)
			}
		}
	}
	return nil
}

// checkName refuses a node name the metrics or the control API could not carry.
func checkName(name string) error {
	if name == "" {
		return errors.New("node with an empty name")
	}
	if !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) || r == '/' }) {
		return fmt.Errorf("node name %q: want UTF-8 text with no whitespace, control character or '/'", name)
	}
	return checkControllable(name)
}

// linkArrow joins a replication link's two node names: "db2<-db1" is the stream db2 replicates
// from db1 (internal/mariadb's links, failsim replay --live --links).
const linkArrow = "<-"

// checkControllable refuses a node name the control API cannot carry or that says what it is
// not: "." and ".." (a URL path drops such segments, so /v1/nodes/../mode never reaches the
// node), and a name with an arrow that is not a link REPLICA<-SOURCE between two names.
func checkControllable(name string) error {
	if name == "." || name == ".." {
		return fmt.Errorf("node name %q: a URL path drops %q, so the control API could not reach it", name, name)
	}
	replica, source, link := strings.Cut(name, linkArrow)
	if link && (replica == "" || source == "" || replica == source || strings.Contains(source, linkArrow)) {
		return fmt.Errorf("node name %q: a name with %q is a replication link REPLICA<-SOURCE between two different names, e.g. db2<-db1", name, linkArrow)
	}
	return nil
}

// validate checks a node's mode and addresses: a listen address Go can bind (port 0 picks a
// free one) and an upstream that can be dialled (a port from 1 to 65535). Ports are numbers:
// a service name or an out-of-range port is refused here rather than failing every client.
func (nc NodeConfig) validate() error {
	if err := nc.Mode.validate(); err != nil {
		return err
	}
	if err := checkPort(nc.Listen, 0); err != nil {
		return fmt.Errorf("listen address %q: %w", nc.Listen, err)
	}
	if _, err := net.ResolveTCPAddr("tcp", nc.Listen); err != nil {
		return fmt.Errorf("listen address %q: %w", nc.Listen, err)
	}
	if err := checkPort(nc.Upstream, 1); err != nil {
		return fmt.Errorf("upstream address %q: %w", nc.Upstream, err)
	}
	for _, a := range nc.TopologyAliases {
		if err := checkPort(a, 1); err != nil {
			return fmt.Errorf("topology alias %q: %w", a, err)
		}
	}
	return nil
}

// CheckLoopback refuses, with ErrNotLoopback, a listen address that is not on loopback:
// every interface (0.0.0.0, ::, no host) or a host's own address.
func (nc NodeConfig) CheckLoopback() error {
	if a, err := net.ResolveTCPAddr("tcp", nc.Listen); err == nil && (a.IP == nil || !a.IP.IsLoopback()) {
		return fmt.Errorf("listen address %q is %w: every host that reaches it would reach the database", nc.Listen, ErrNotLoopback)
	}
	return nil
}

// checkPort checks that addr is HOST:PORT with PORT a decimal number from lowest to 65535.
func checkPort(addr string, lowest int) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < lowest || n > 65535 || strings.TrimLeft(port, "0123456789") != "" {
		return fmt.Errorf("port %q is not a number from %d to 65535", port, lowest)
	}
	return nil
}

// New binds every node's listener and starts forwarding. Close releases everything.
func New(cfg Config) (*Proxy, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	p := &Proxy{
		nodes:       map[string]*Node{},
		anyAddress:  cfg.AllowNonLoopback,
		rewriteAll:  cfg.RewriteTopology,
		seed:        cfg.Seed,
		log:         cfg.Log,
		clock:       cfg.Clock,
		dialTimeout: cfg.DialTimeout,
	}
	if p.clock == nil {
		p.clock = clock.New()
	}
	if p.dialTimeout <= 0 {
		p.dialTimeout = 5 * time.Second
	}
	switch {
	case cfg.HandshakeTimeout == 0:
		p.handshake = DefaultHandshakeTimeout
	case cfg.HandshakeTimeout > 0:
		p.handshake = cfg.HandshakeTimeout
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.registry = p.newRegistry()
	for _, nc := range cfg.Nodes {
		n, err := p.startNode(nc)
		if err != nil {
			p.Close()
			return nil, err
		}
		// The nodes started before it serve already: a rewriting one reads the table.
		p.mu.Lock()
		p.nodes[nc.Name] = n
		i, _ := slices.BinarySearch(p.names, nc.Name)
		p.names = slices.Insert(p.names, i, nc.Name)
		p.mu.Unlock()
	}
	return p, nil
}

// startNode starts one node of a validated config; the caller registers it.
func (p *Proxy) startNode(nc NodeConfig) (*Node, error) {
	addr, err := net.ResolveTCPAddr("tcp", nc.Listen)
	if err != nil {
		return nil, fmt.Errorf("node %s: listen address %q: %w", nc.Name, nc.Listen, err)
	}
	n := &Node{p: p, name: nc.Name, upstream: nc.Upstream, addr: addr, seedHi: nameSeed(nc.Name),
		hooks: hooksFor(Mode{}), conns: map[*conn]struct{}{}, down: nc.Disabled,
		rewrite: nc.RewriteTopology || p.rewriteAll, aliases: slices.Clone(nc.TopologyAliases)}
	// Bind first to learn the real port, then apply the starting mode.
	n.mu.Lock()
	if !n.down {
		err = n.openListenerLocked(nil)
		if err == nil {
			n.addr = n.ln.Addr().(*net.TCPAddr)
		}
	}
	n.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", nc.Name, err)
	}
	if nc.Mode != (Mode{}) {
		if err := n.SetMode(nc.Mode); err != nil {
			n.close()
			return nil, err
		}
	}
	return n, nil
}

// Node returns the node called name.
func (p *Proxy) Node(name string) (*Node, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	n, ok := p.nodes[name]
	return n, ok
}

// Nodes returns every node, sorted by name.
func (p *Proxy) Nodes() []*Node {
	p.mu.RLock()
	defer p.mu.RUnlock()
	ns := make([]*Node, len(p.names))
	for i, name := range p.names {
		ns[i] = p.nodes[name]
	}
	return ns
}

// SetMode switches the node called name to m.
func (p *Proxy) SetMode(name string, m Mode) error {
	n, ok := p.Node(name)
	if !ok {
		return fmt.Errorf("no node %q", name)
	}
	return n.SetMode(m)
}

// Close stops every node and closes every connection; when it returns, no goroutine of the
// proxy is left.
func (p *Proxy) Close() error {
	p.cancel()
	p.mu.Lock()
	p.closed = true
	nodes := p.nodes
	p.nodes, p.names = map[string]*Node{}, nil
	p.mu.Unlock()
	for _, n := range nodes {
		n.close()
	}
	return nil
}
