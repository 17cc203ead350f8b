package proxy

import (
	"errors"
	"fmt"
	"net"
	"slices"
)

// Nodes come and go at run time (toxiproxy's POST /proxies and DELETE /proxies/{proxy}), and
// a node can be taken down and brought back (toxiproxy's "enabled"). The proxy's node table
// is guarded by Proxy.mu, which only the control planes take: a connection never looks at
// it, so the data path stays lock-free.

// ErrNodeExists is what AddNode refuses a name already taken with.
var ErrNodeExists = errors.New("node already exists")

// ErrNodeNotFound is what RemoveNode answers for a name no node has.
var ErrNodeNotFound = errors.New("node not found")

// errClosed is what a change to a closed proxy or a removed node fails with.
var errClosed = errors.New("proxy is closed")

// AddNode starts a node at run time, checked as Config.Validate checks one: a name as
// checkName allows it and not yet taken (ErrNodeExists), addresses Go can bind and dial, a
// listen address on loopback unless Config.AllowNonLoopback (ErrNotLoopback). Unless
// nc.Disabled, it binds the listen address before it returns: a port in use fails here, and
// the node is not added.
func (p *Proxy) AddNode(nc NodeConfig) (*Node, error) {
	if err := checkName(nc.Name); err != nil {
		return nil, err
	}
	if err := nc.validate(); err != nil {
		return nil, fmt.Errorf("node %s: %w", nc.Name, err)
	}
	if !p.anyAddress {
		if err := nc.CheckLoopback(); err != nil {
			return nil, fmt.Errorf("node %s: %w", nc.Name, err)
		}
	}
	p.admin.Lock()
	defer p.admin.Unlock()
	p.mu.RLock()
	_, taken := p.nodes[nc.Name]
	closed := p.closed
	p.mu.RUnlock()
	switch {
	case closed:
		return nil, errClosed
	case taken:
		return nil, fmt.Errorf("node %s: %w", nc.Name, ErrNodeExists)
	}
	n, err := p.startNode(nc)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed { // closed while the node started
		go n.close()
		return nil, errClosed
	}
	p.nodes[nc.Name] = n
	i, _ := slices.BinarySearch(p.names, nc.Name)
	p.names = slices.Insert(p.names, i, nc.Name)
	return n, nil
}

// RemoveNode stops the node called name and forgets it: its port is released and every
// connection through it closed before RemoveNode returns. A name no node has is
// ErrNodeNotFound.
func (p *Proxy) RemoveNode(name string) error {
	p.admin.Lock()
	defer p.admin.Unlock()
	p.mu.Lock()
	n, ok := p.nodes[name]
	if ok {
		delete(p.nodes, name)
		i, _ := slices.BinarySearch(p.names, name)
		p.names = slices.Delete(p.names, i, i+1)
	}
	p.mu.Unlock()
	if !ok {
		return fmt.Errorf("node %s: %w", name, ErrNodeNotFound)
	}
	n.close()
	return nil
}

// Enabled reports whether the node is up: false after SetEnabled(false) or a start with
// NodeConfig.Disabled, until SetEnabled(true).
func (n *Node) Enabled() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return !n.down
}

// SetEnabled takes the node down (false) or brings it back (true), toxiproxy's "enabled".
// Down, the node's port holds nothing (connects are refused) and every connection through it
// has been closed when SetEnabled returns; the mode and the toxics stay, and a mode set
// meanwhile is kept for later. Up again, it listens on the same address (the port a port 0
// picked the first time) and applies the mode; a port taken meanwhile is an error, and the
// node stays down. Setting the state it has is a no-op.
func (n *Node) SetEnabled(on bool) error {
	n.admin.Lock()
	defer n.admin.Unlock()
	if !on {
		return n.takeDown()
	}
	return n.bringUp()
}

// takeDown closes the port and every connection and waits until none is left. The caller
// holds n.admin.
func (n *Node) takeDown() error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return errClosed
	}
	if n.down {
		n.mu.Unlock()
		return nil
	}
	n.down = true
	n.closeListenerLocked()
	for c := range n.conns {
		c.abort()
	}
	n.mu.Unlock()
	n.p.log.Info().Str("node", n.name).Msg("disabled")
	// Down, nothing adds to wg (start refuses, no listener opens while n.admin is held):
	// this waits for the accept loop and the connections to end.
	n.wg.Wait()
	return nil
}

// bringUp puts on the port what the mode wants there. The caller holds n.admin.
func (n *Node) bringUp() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case n.closed:
		return errClosed
	case !n.down:
		return nil
	}
	if err := n.openListenerLocked(portTaker(n.mode, n.hooks)); err != nil {
		return err
	}
	if n.ln != nil && n.addr.Port == 0 {
		n.addrMu.Lock()
		n.addr = n.ln.Addr().(*net.TCPAddr)
		n.addrMu.Unlock()
	}
	n.down = false
	n.p.log.Info().Str("node", n.name).Msg("enabled")
	return nil
}

// Update changes the node's listen and upstream addresses and its state, as toxiproxy's
// update of a proxy does (proxy.go: Update): if either address differs from the node's, the
// node is taken down (every connection closed) and takes the new ones; then, enabled, it
// listens on the new address. The addresses are checked as AddNode checks them; an error
// binding leaves the node down with its new addresses. The mode and the toxics stay.
func (n *Node) Update(listen, upstream string, enabled bool) error {
	nc := NodeConfig{Name: n.name, Listen: listen, Upstream: upstream}
	if err := nc.validate(); err != nil {
		return fmt.Errorf("node %s: %w", n.name, err)
	}
	if !n.p.anyAddress {
		if err := nc.CheckLoopback(); err != nil {
			return fmt.Errorf("node %s: %w", n.name, err)
		}
	}
	addr, err := net.ResolveTCPAddr("tcp", listen)
	if err != nil {
		return fmt.Errorf("node %s: listen address %q: %w", n.name, listen, err)
	}
	n.admin.Lock()
	defer n.admin.Unlock()
	if addr.String() != n.Addr() || upstream != n.Upstream() {
		if err := n.takeDown(); err != nil {
			return err
		}
		// Down and drained: no connection reads addr or upstream now.
		n.mu.Lock()
		n.addrMu.Lock()
		n.addr, n.upstream = addr, upstream
		n.addrMu.Unlock()
		n.mu.Unlock()
	}
	if !enabled {
		return n.takeDown()
	}
	return n.bringUp()
}
