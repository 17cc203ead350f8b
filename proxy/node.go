package proxy

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"time"
)

// Node is one proxied database node: a listening address in front of an upstream server, and
// the mode it applies to the connections through it.
type Node struct {
	p        *Proxy
	name     string
	upstream string
	addr     *net.TCPAddr // the bound listening address, port resolved
	seedHi   uint64       // the node's part of every connection's seed
	rewrite  bool         // NodeConfig.RewriteTopology (rewrite_node.go)
	aliases  []string     // NodeConfig.TopologyAliases

	mu      sync.Mutex
	mode    Mode
	hooks   wireFault        // the mode's fault, with its arguments, or the chain's (chain.go)
	toxics  []Toxic          // the chain the node reports: the mode's toxic, or those added
	revs    []uint64         // per toxic: its revision, new at every add and update
	rev     uint64           // the last revision given
	ln      *net.TCPListener // the accepting listener; nil while a fault has the port
	taker   takesPort        // the fault that has the port, nil while ln accepts
	hole    io.Closer        // what the taker put on the port, if anything
	conns   map[*conn]struct{}
	nextSeq uint64
	closed  bool
	wg      sync.WaitGroup // accept loops and connections
	down    bool           // disabled (dynamic.go): nothing on the port, no connection

	admin  sync.Mutex   // serializes SetEnabled and Update (dynamic.go)
	addrMu sync.RWMutex // guards addr and upstream for Addr and Upstream against Update

	stats nodeStats
}

// Name returns the node's name.
func (n *Node) Name() string { return n.name }

// Addr returns the node's listening address, e.g. "127.0.0.1:4001".
func (n *Node) Addr() string {
	n.addrMu.RLock()
	defer n.addrMu.RUnlock()
	return n.addr.String()
}

// Upstream returns the address of the real server behind the node.
func (n *Node) Upstream() string {
	n.addrMu.RLock()
	defer n.addrMu.RUnlock()
	return n.upstream
}

// Mode returns the node's current mode: the one SetMode set, or the lone toxic of a chain of
// failsim's own toxic at toxicity 1; the zero Mode (heal) for any other chain, which Toxics
// returns.
func (n *Node) Mode() Mode {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.mode
}

// Status returns the node's mode and counters.
func (n *Node) Status() NodeStatus {
	return NodeStatus{
		Name:      n.name,
		Listen:    n.Addr(),
		Upstream:  n.Upstream(),
		Mode:      n.describe(),
		Open:      n.stats.open.Load(),
		Accepted:  n.stats.accepted.Load(),
		Faulted:   n.stats.faulted.Load(),
		Faults:    n.stats.faultCounts(),
		BytesUp:   n.stats.bytesUp.Load(),
		BytesDown: n.stats.bytesDown.Load(),

		HandshakeTimeouts: n.stats.handshakeTimeouts.Load(),
		TopologyRewrites:  n.stats.rewrites.Load(),
	}
}

// portTaker returns the fault that takes the node's port under m, whose fault is f; nil when
// the listener accepts. An armed or chance mode leaves the listener open: its fault acts on
// the connections.
func portTaker(m Mode, f wireFault) takesPort {
	if m.armed() || m.P > 0 {
		return nil
	}
	t, _ := f.(takesPort)
	return t
}

// portIsLocked reports whether the port is as t wants it: accepting for nil, taken by t
// otherwise.
func (n *Node) portIsLocked(t takesPort) bool {
	if t == nil {
		return n.ln != nil
	}
	return n.ln == nil && n.taker == t
}

// SetMode switches the node to m. The new mode acts on new connections at once and on open
// connections as docs/proxy.md describes. On error the node keeps its previous mode.
func (n *Node) SetMode(m Mode) error {
	if err := m.validate(); err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return errors.New("proxy is closed")
	}
	var list []Toxic
	var revs []uint64
	if t, ok := toxicOfMode(m); ok {
		list, revs = []Toxic{t}, []uint64{n.nextRev()}
	}
	f := hooksFor(m)
	if _, ok := f.(*chain); ok {
		f = newChain(list, revs) // the revision tells open connections the toxic is new
	}
	return n.applyLocked(m, f, list, revs)
}

// describe writes the node's chain as its status shows it.
func (n *Node) describe() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return describe(n.mode, n.toxics)
}

// applyLocked makes m, whose fault is f, the node's mode and list its chain, and applies them
// to the port and to every open connection.
func (n *Node) applyLocked(m Mode, f wireFault, list []Toxic, revs []uint64) error {
	if n.down { // disabled: nothing on the port, no connection; SetEnabled applies the chain
		n.mode, n.hooks, n.toxics, n.revs = m, f, list, revs
		return nil
	}
	if want := portTaker(m, f); !n.portIsLocked(want) {
		accepting, cur := n.ln != nil, n.taker
		n.closeListenerLocked()
		if err := n.openListenerLocked(want); err != nil {
			if accepting || cur != nil {
				if rerr := n.openListenerLocked(cur); rerr != nil {
					n.p.log.Error().Str("node", n.name).Err(rerr).Msg("cannot restore the listener")
				}
			}
			return fmt.Errorf("node %s: %w", n.name, err)
		}
	}
	n.p.log.Info().Str("node", n.name).Str("mode", describe(m, list)).Msg("mode set")
	n.mode, n.hooks, n.toxics, n.revs = m, f, list, revs
	for c := range n.conns {
		bound := c.setMode(m, f)
		if h, ok := bound.(onStart); ok && !m.armed() {
			h.start(c, false)
		}
	}
	if len(n.conns) > 0 { // every connection was kicked: now wait for their splices together
		expire := time.NewTimer(settleFor)
		defer expire.Stop()
		for c := range n.conns {
			c.settle(expire.C)
		}
	}
	return nil
}

// closeListenerLocked closes whatever is on the port.
func (n *Node) closeListenerLocked() {
	if n.ln != nil {
		n.ln.Close()
		n.ln = nil
	}
	if n.hole != nil {
		n.hole.Close()
		n.hole = nil
	}
	n.taker = nil
}

// openListenerLocked puts on the node's port an accepting listener (t nil) or what the fault
// t puts there.
func (n *Node) openListenerLocked(t takesPort) error {
	if t == nil {
		ln, err := net.ListenTCP("tcp", n.addr)
		if err != nil {
			return fmt.Errorf("listen %s: %w", n.addr, err)
		}
		n.ln = ln
		n.wg.Add(1)
		go n.acceptLoop(ln)
		return nil
	}
	h, err := t.occupy(n.addr)
	if err != nil {
		return err
	}
	n.taker, n.hole = t, h
	return nil
}

// acceptLoop accepts connections on ln until it is closed.
func (n *Node) acceptLoop(ln *net.TCPListener) {
	defer n.wg.Done()
	backoff := time.Millisecond
	for {
		c, err := ln.AcceptTCP()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors and the like: wait a little, bounded, and retry.
			n.p.log.Warn().Str("node", n.name).Err(err).Msg("accept failed")
			time.Sleep(backoff)
			backoff = min(2*backoff, 100*time.Millisecond)
			continue
		}
		backoff = time.Millisecond
		n.start(c)
	}
}

// start registers an accepted connection and serves it.
func (n *Node) start(tc *net.TCPConn) {
	n.mu.Lock()
	if n.closed || n.down {
		n.mu.Unlock()
		tc.Close()
		return
	}
	seq := n.nextSeq
	n.nextSeq++
	c := &conn{
		n:       n,
		seq:     seq,
		client:  tc,
		rng:     rand.New(rand.NewPCG(n.p.seed, n.seedHi^seq)),
		changed: make(chan struct{}),
		done:    make(chan struct{}),
	}
	c.setMode(n.mode, n.hooks)
	n.conns[c] = struct{}{}
	n.wg.Add(1)
	n.mu.Unlock()
	n.stats.accepted.Add(1)
	n.stats.open.Add(1)
	go c.serve()
}

// release forgets a finished connection.
func (n *Node) release(c *conn) {
	c.finishAll()
	n.mu.Lock()
	delete(n.conns, c)
	n.mu.Unlock()
	n.stats.open.Add(-1)
	n.wg.Done()
}

// close stops the node: no more connects, every connection closed, every goroutine gone.
func (n *Node) close() {
	n.mu.Lock()
	n.closed = true
	n.closeListenerLocked()
	for c := range n.conns {
		c.abort()
	}
	n.mu.Unlock()
	n.wg.Wait()
}

// nameSeed hashes a node name into its part of the connections' seeds.
func nameSeed(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}
