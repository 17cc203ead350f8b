package proxy

import (
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
)

// The proxy releases what it holds for a client that leaves (watch.go): for every fault that
// holds a connection, the upstream is closed when the client closes. The upstream here is
// the test itself, playing a MySQL server on a plain socket, so that it sees exactly what
// reaches the server.

// testGreeting is a protocol-10 greeting, enough for the proxy's framer and the raw client.
func testGreeting() []byte {
	p := []byte{10}
	p = append(p, "8.0-test"...)
	p = append(p, 0, 1, 0, 0, 0)           // NUL, connection id
	p = append(p, "abcdefgh"...)           // auth data, part 1
	p = append(p, 0, 0xff, 0xf7, 33, 2, 0) // filler, capabilities (low), charset, status
	p = append(p, 0xff, 0x81, 21)          // capabilities (high), auth data length
	p = append(p, make([]byte, 10)...)     // reserved
	p = append(p, "ijklmnopqrst\x00"...)   // auth data, part 2
	p = append(p, "mysql_native_password\x00"...)
	return p
}

// packet frames payload with sequence id seq.
func packet(seq byte, payload []byte) []byte {
	n := len(payload)
	return append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...)
}

// mysqlSession logs a raw client in through the node, the test answering as the server
// behind it; it returns the client and the server's end of the upstream connection.
func mysqlSession(t *testing.T, n *Node, conns <-chan net.Conn) (*rawClient, net.Conn) {
	t.Helper()
	rc := newRaw(mustDial(t, n.Addr()))
	up := accepted(t, conns)
	if _, err := up.Write(packet(0, testGreeting())); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() {
		login := make([]byte, headerLen+40) // the raw client's login
		up.SetReadDeadline(time.Now().Add(wait))
		if _, err := io.ReadFull(up, login); err != nil {
			served <- err
			return
		}
		_, err := up.Write(packet(2, []byte{0, 0, 0, 2, 0, 0, 0}))
		served <- err
	}()
	rc.login(t)
	if err := <-served; err != nil {
		t.Fatalf("server side of the login: %v", err)
	}
	return rc, up
}

// expectUpClosed fails t unless the server's end of the upstream is closed (FIN or RST) with
// no byte before it; then it closes that end, as a server ends its session.
func expectUpClosed(t *testing.T, up net.Conn, what string) {
	t.Helper()
	up.SetReadDeadline(time.Now().Add(wait))
	k, err := up.Read(make([]byte, 64))
	if k > 0 || !(errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)) {
		t.Fatalf("%s: the server read %d bytes, %v; want its connection closed, no byte before", what, k, err)
	}
	up.Close()
}

// waitFaults waits until the node counted want injections of kind.
func waitFaults(t *testing.T, n *Node, kind string, want uint64) {
	t.Helper()
	for deadline := time.Now().Add(wait); n.Status().Faults[kind] < want; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the node counted %d %s faults, want %d", n.Status().Faults[kind], kind, want)
		}
	}
}

var comPing = packet(0, []byte{0x0e})

// TestHeldCommandReleasedWhenClientLeaves: stall and slow hold a command before it reaches
// the server; a client that gives up and closes (FIN) or resets its socket takes its server
// connection with it, at once, and the held command never reaches the server.
func TestHeldCommandReleasedWhenClientLeaves(t *testing.T) {
	for _, tc := range []struct{ mode, kind string }{{"stall", "stall"}, {"slow 1h", "slow"}} {
		for _, rst := range []bool{false, true} {
			name := tc.mode + "/fin"
			if rst {
				name = tc.mode + "/rst"
			}
			t.Run(name, func(t *testing.T) {
				addr, conns := upstreamSink(t)
				_, n := start(t, addr, "heal", func(c *Config) { c.Clock = clock.NewMock() })
				rc, up := mysqlSession(t, n, conns)
				set(t, n, tc.mode)
				rc.c.Write(comPing)
				waitFaults(t, n, tc.kind, 1) // the ping is held
				if rst {
					rc.c.SetLinger(0)
				}
				rc.c.Close()
				expectUpClosed(t, up, tc.mode)
				waitOpen(t, n, 0)
			})
		}
	}
}

// TestFrozenConnectionReleasedWhenClientLeaves: freeze and blackhole hold every byte of an
// open connection; a MySQL client that closes its socket, with a command held or with
// nothing sent, takes its server connection with it.
func TestFrozenConnectionReleasedWhenClientLeaves(t *testing.T) {
	for _, mode := range []string{"freeze", "blackhole"} {
		for _, sends := range []bool{true, false} {
			name := mode + "/idle"
			if sends {
				name = mode + "/command-held"
			}
			t.Run(name, func(t *testing.T) {
				addr, conns := upstreamSink(t)
				_, n := start(t, addr, "heal")
				rc, up := mysqlSession(t, n, conns)
				set(t, n, mode)
				if sends {
					rc.c.Write(comPing)
				}
				rc.c.Close()
				expectUpClosed(t, up, mode)
				waitOpen(t, n, 0)
			})
		}
	}
}

// TestFrozenSetUpReleasedWhenClientLeaves: a connection accepted while frozen is held before
// its server is dialled; a client that gives up on it is let go, and its server is never
// dialled, not even at heal.
func TestFrozenSetUpReleasedWhenClientLeaves(t *testing.T) {
	addr, conns := upstreamSink(t)
	_, n := start(t, addr, "freeze")
	c := mustDial(t, n.Addr())
	waitOpen(t, n, 1)
	c.Close()
	waitOpen(t, n, 0)
	set(t, n, "heal")
	select {
	case <-conns:
		t.Fatal("the server was dialled for a client that had left")
	case <-time.After(silence):
	}
}

// TestDelayedEndReachesServer: under delay the client's FIN follows its bytes, delay late,
// and the server's connection closes then, as over a slow network.
func TestDelayedEndReachesServer(t *testing.T) {
	mock := clock.NewMock()
	addr, conns := upstreamSink(t)
	_, n := start(t, addr, "heal", func(c *Config) { c.Clock = mock })
	rc, up := mysqlSession(t, n, conns)
	set(t, n, "delay 1h")
	before := n.Status().BytesUp
	rc.c.Write(comPing)
	waitBytesUp(t, n, before+uint64(len(comPing)))
	rc.c.Close()
	expectSilence(t, up, "before the delay")
	mock.Add(time.Hour)
	expectBytes(t, up, comPing, "the ping, an hour late")
	expectUpClosed(t, up, "after the ping")
	waitOpen(t, n, 0)
}

// TestFrozenHalfCloseOfPlainStreamHeld: on a stream that is not MySQL a FIN may be a
// half-close by a client that still reads: freeze holds it like any byte, and heal passes it.
func TestFrozenHalfCloseOfPlainStreamHeld(t *testing.T) {
	addr, conns := upstreamSink(t)
	_, n := start(t, addr, "heal")
	c := mustDial(t, n.Addr())
	up := accepted(t, conns)
	set(t, n, "freeze")
	c.Write([]byte("last words"))
	c.CloseWrite()
	expectSilence(t, up, "frozen")
	if n.Status().Open != 1 {
		t.Fatal("the proxy let go of a half-closed plain stream")
	}
	set(t, n, "heal")
	expectBytes(t, up, []byte("last words"), "after heal")
	up.SetReadDeadline(time.Now().Add(wait))
	if k, err := up.Read(make([]byte, 1)); k != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("after heal: %d bytes, %v; want the held FIN", k, err)
	}
	up.Write([]byte("answer"))
	expectBytes(t, c, []byte("answer"), "the half-closed client still reads")
}
