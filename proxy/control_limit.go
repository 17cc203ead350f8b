package proxy

import (
	"net"
	"net/http"
	"sync"
)

// connLimiter is a listener that lets an http.Server hold at most max connections. When a
// new connection would exceed that, it closes the oldest connection that is not serving a
// request: one that has not sent a whole request header yet (http.StateNew) or one idle
// between requests (http.StateIdle). If every connection is serving a request, it closes
// the new one. A flood of idle or slow connections therefore holds max descriptors, never
// more, and a caller that sends its request at once still gets through: it is the newest
// connection, the last to be evicted.
type connLimiter struct {
	net.Listener
	max int

	mu    sync.Mutex
	seq   uint64
	conns map[net.Conn]*limitedConn
}

// limitedConn is what the limiter knows of a connection.
type limitedConn struct {
	seq   uint64 // accept order
	state http.ConnState
}

func newConnLimiter(ln net.Listener, max int) *connLimiter {
	return &connLimiter{Listener: ln, max: max, conns: map[net.Conn]*limitedConn{}}
}

// Accept returns the next connection, making room for it as the type's comment says.
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if victim, ok := l.admit(c); ok {
			if victim != nil {
				victim.Close()
			}
			return c, nil
		}
		c.Close()
	}
}

// admit registers c if there is room, or makes room by evicting the oldest connection that
// is not serving a request, which it returns for the caller to close.
func (l *connLimiter) admit(c net.Conn) (victim net.Conn, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.conns) >= l.max {
		var oldest *limitedConn
		for vc, e := range l.conns {
			if (e.state == http.StateNew || e.state == http.StateIdle) && (oldest == nil || e.seq < oldest.seq) {
				victim, oldest = vc, e
			}
		}
		if victim == nil {
			return nil, false
		}
		delete(l.conns, victim)
	}
	l.seq++
	l.conns[c] = &limitedConn{seq: l.seq, state: http.StateNew}
	return victim, true
}

// track follows the server's connection states (http.Server.ConnState).
func (l *connLimiter) track(c net.Conn, s http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.conns[c]
	if !ok {
		return // evicted
	}
	switch s {
	case http.StateClosed, http.StateHijacked:
		delete(l.conns, c)
	default:
		e.state = s
	}
}

// open returns how many connections the limiter holds.
func (l *connLimiter) open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}
