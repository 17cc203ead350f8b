package proxy

import (
	"net"
	"os"
	"strconv"
)

// newRewriter returns the topology rewriter of a connection through n, nil when n does not
// rewrite. It knows every node of the proxy as it is now: each upstream and alias, and the
// listening address in front of it.
func (n *Node) newRewriter() *rewriter {
	if !n.rewrite {
		return nil
	}
	var routes []topoRoute
	for _, m := range n.p.Nodes() {
		addr := m.proxyAddr()
		routes = append(routes, topoRoute{real: m.Upstream(), proxy: addr})
		for _, a := range m.aliases {
			routes = append(routes, topoRoute{real: a, proxy: addr})
		}
	}
	return newRewriter(n.proxyAddr(), routes, &n.stats.rewrites)
}

// proxyAddr is the address a client reaches the node at, as a rewritten reply names it: the
// listening address, or for one on every interface (0.0.0.0, ::) the machine's host name
// with the node's port.
func (n *Node) proxyAddr() string {
	n.addrMu.RLock()
	addr := *n.addr
	n.addrMu.RUnlock()
	if !addr.IP.IsUnspecified() {
		return addr.String()
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		return addr.String()
	}
	return net.JoinHostPort(host, strconv.Itoa(addr.Port))
}
