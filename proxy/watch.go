package proxy

import "time"

// When the client leaves. The client's socket has one reader: the set-up, then the up pump.
// While that reader waits on something else than the client (a held set-up or command, a
// held direction, slow's delay) nobody reads the socket, so a client that gives up and
// closes it would go unseen, and the proxy would keep the upstream connection, and the
// server's session, for as long as the fault lasts. So the reader watches the client while it
// waits: a watcher looks at the socket without taking a byte (watch_linux.go) and, once the
// client has left, ends the connection, releasing the upstream.
//
// The client has left when its socket is reset or failed, or when it sent its FIN on a MySQL
// connection (the server's greeting passed; or before the upstream was dialled, when the
// client has sent nothing): a MySQL client never half-closes, and a server ends the session
// at its client's FIN. A FIN on a stream that is not MySQL may be a half-close of a client
// that still reads, so it is held with the rest, as before. What the proxy held for a client
// that left is dropped: the server never sees a held command.

// waiter says who waits: the client's reader watches the client while it waits; the down
// pump and the delay lines do not read the client.
type waiter bool

const (
	otherWaiter  waiter = false
	clientReader waiter = true
)

// peer is what a look at the client's socket found.
type peer uint8

const (
	peerStays         peer = iota // nothing to read, or bytes with no end behind them yet
	peerFIN                       // the client's FIN, with no unread byte before it
	peerFINAfterBytes             // the client's FIN behind bytes the proxy has not read
	peerReset                     // the socket is reset or failed
)

// await waits until ready delivers (true) or the connection is done (false); the client's
// reader watches the client meanwhile.
func await[T any](c *conn, ready <-chan T, w waiter) bool {
	select {
	case <-ready:
		return true
	case <-c.done:
		return false
	default:
	}
	if w == clientReader {
		defer c.watchClient()()
	}
	select {
	case <-ready:
		return true
	case <-c.done:
		return false
	}
}

// watchClient watches the client's socket until the returned stop is called, and ends the
// connection if the client leaves first. stop returns once the watcher is gone.
func (c *conn) watchClient() (stop func()) {
	if !canWatch {
		return func() {}
	}
	rc, err := c.client.SyscallConn()
	if err != nil {
		return func() {}
	}
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		var seen peer
		// Read calls the function each time the socket turns readable (a byte, a FIN, a
		// RST) and returns when it reports true, or when stop's deadline or a close ends it.
		rc.Read(func(fd uintptr) bool {
			seen = c.leaving(peek(fd))
			return seen != peerStays
		})
		switch seen {
		case peerReset:
			c.n.p.log.Debug().Str("node", c.n.name).Msg("the client reset a held connection: resetting its upstream")
			c.reset()
		case peerFIN:
			c.n.p.log.Debug().Str("node", c.n.name).Msg("the client left a held connection: closing its upstream")
			c.closeFIN()
		}
	}()
	return func() {
		c.client.SetReadDeadline(time.Unix(1, 0))
		<-exited
		if !c.isDone() {
			c.client.SetReadDeadline(time.Time{})
		}
	}
}

// leaving reads what peek saw: peerReset or peerFIN when the client has left (see above),
// peerStays otherwise.
func (c *conn) leaving(p peer) peer {
	switch p {
	case peerReset:
		return peerReset
	case peerFIN:
		if c.mysql.Load() || c.upstream() == nil {
			return peerFIN
		}
	case peerFINAfterBytes:
		if c.mysql.Load() {
			return peerFIN
		}
	}
	return peerStays
}
