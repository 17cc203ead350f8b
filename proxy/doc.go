// Package proxy is failsim's fault-injecting MySQL wire proxy: one listener in front of each
// database node, forwarding bytes to the real server and breaking the wire on command.
//
// Each Node has a chain of toxics (Toxic, toxiproxy's ToxicWrapper), each a fault from the
// shared vocabulary in package fault: failsim's own (heal, refuse, reset, close, freeze,
// blackhole, stall, slow, delay, error) and toxiproxy's (latency, bandwidth, slow-close,
// timeout, reset-peer, slicer, limit-data), with a stream and a toxicity drawn per connection
// from a seeded source. A Mode is the shorthand for a chain of one: a fault optionally armed to
// start in the middle of a connection (after N bytes from the server, or at the Kth command)
// and optionally drawn by chance per connection set-up and per command. A chain applies to new
// connections and to the ones already open; docs/proxy.md lists the exact effect of each.
//
// The proxy understands as little MySQL as it needs. It follows the server's packets until
// the login completes, clearing CLIENT_SSL and CLIENT_COMPRESS in the greeting so the session
// stays plain and framed, and it follows the client's packet headers to see where a command
// (a packet with sequence id 0) begins. Every byte is otherwise forwarded untouched, in the
// chunks it arrived in, unless a toxic shapes it or the node rewrites the topology its server
// reports (NodeConfig.RewriteTopology: rewrite.go); a server that does not speak the protocol
// is forwarded as raw bytes.
//
// A client that takes the greeting and never answers it is closed after Config.HandshakeTimeout
// (30 s by default), a bound that never acts while a fault holds the connection.
//
// The control plane is an http.Handler (Proxy.Handler): a JSON API to list nodes and set
// modes, and Prometheus metrics at /metrics. Proxy.ServeControl serves it with bounds (64
// connections, header, body and idle timeouts) so that no flood of control connections can
// take the descriptors the data path needs. Client is its Go client.
package proxy
