package proxy

import (
	"sync/atomic"

	"github.com/failsim/failsim/fault"
)

// nodeStats are a node's cumulative counters, updated without locks on the data path.
type nodeStats struct {
	open      atomic.Int64
	accepted  atomic.Uint64
	faulted   atomic.Uint64 // connections on which at least one fault acted
	faults    [fault.Count]atomic.Uint64
	bytesUp   atomic.Uint64 // client to server
	bytesDown atomic.Uint64 // server to client

	handshakeTimeouts atomic.Uint64 // connections closed because the client did not answer the greeting
	handshaking       atomic.Int64  // connections whose handshake bound is running
	rewrites          atomic.Uint64 // values the topology rewriter rewrote (rewrite.go)
}

// NodeStatus is a node's state and counters as the control API reports them.
type NodeStatus struct {
	Name     string `json:"name"`
	Listen   string `json:"listen"`   // the proxy's listening address for this node
	Upstream string `json:"upstream"` // the real server
	Mode     string `json:"mode"`     // the current mode, in the words ParseMode reads
	// Open is the number of client connections open now.
	Open int64 `json:"open"`
	// Accepted counts client connections accepted since start.
	Accepted uint64 `json:"accepted"`
	// Faulted counts accepted connections on which at least one fault acted.
	Faulted uint64 `json:"faulted"`
	// Faults counts fault injections by fault name: a connection reset or closed, an ERR
	// packet sent, a command held or delayed, a direction frozen. Absent names are zero.
	Faults map[string]uint64 `json:"faults,omitempty"`
	// BytesUp counts bytes forwarded from clients to the server.
	BytesUp uint64 `json:"bytes_up"`
	// BytesDown counts bytes forwarded from the server to clients.
	BytesDown uint64 `json:"bytes_down"`
	// HandshakeTimeouts counts connections the proxy closed because the client did not send
	// its handshake response within Config.HandshakeTimeout of the greeting.
	HandshakeTimeouts uint64 `json:"handshake_timeouts"`
	// TopologyRewrites counts the values (an address, a host, a port) the node rewrote in
	// replies that report topology; absent when the node does not rewrite or has not yet.
	TopologyRewrites uint64 `json:"topology_rewrites,omitempty"`
}

// faultCounts returns the non-zero injection counters by fault name.
func (s *nodeStats) faultCounts() map[string]uint64 {
	var m map[string]uint64
	for _, k := range fault.Kinds() {
		if !k.Wire() {
			continue
		}
		if v := s.faults[k].Load(); v > 0 {
			if m == nil {
				m = map[string]uint64{}
			}
			m[k.String()] = v
		}
	}
	return m
}
