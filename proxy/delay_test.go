package proxy

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
)

// upstreamSink is an upstream that hands the test each connection it accepts.
func upstreamSink(t testing.TB) (string, <-chan net.Conn) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	conns := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
			conns <- c
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String(), conns
}

// accepted waits for the sink's next connection.
func accepted(t testing.TB, conns <-chan net.Conn) net.Conn {
	t.Helper()
	select {
	case c := <-conns:
		return c
	case <-time.After(wait):
		t.Fatal("the proxy did not dial the upstream")
		return nil
	}
}

// expectSilence fails t if c delivers a byte within silence.
func expectSilence(t testing.TB, c net.Conn, what string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(silence))
	if k, err := c.Read(make([]byte, 1)); !isTimeout(err) {
		t.Fatalf("%s: read %d bytes, %v; want nothing yet", what, k, err)
	}
}

// expectBytes fails t unless c delivers exactly want next.
func expectBytes(t testing.TB, c net.Conn, want []byte, what string) {
	t.Helper()
	got := make([]byte, len(want))
	c.SetReadDeadline(time.Now().Add(wait))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: got %q, want %q", what, got, want)
	}
}

// waitBytesUp waits until the node counted n bytes from its clients (a delay counts a chunk
// when it took it).
func waitBytesUp(t testing.TB, n *Node, want uint64) {
	t.Helper()
	for deadline := time.Now().Add(wait); n.stats.bytesUp.Load() < want; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the proxy took %d bytes from the client, want %d", n.stats.bytesUp.Load(), want)
		}
	}
}

// TestDelayPipelines: on the proxy's clock, each chunk is held for the delay counted from when
// it came, not from when the one before it left: a stream is late, not slowed down.
func TestDelayPipelines(t *testing.T) {
	mock := clock.NewMock()
	addr, conns := upstreamSink(t)
	_, n := start(t, addr, "delay 10s", func(c *Config) { c.Clock = mock })
	c := mustDial(t, n.Addr())
	up := accepted(t, conns)

	c.Write([]byte("first"))
	waitBytesUp(t, n, 5)
	mock.Add(5 * time.Second) // t=5s
	c.Write([]byte("second"))
	waitBytesUp(t, n, 11)
	expectSilence(t, up, "at 5s")
	mock.Add(5 * time.Second) // t=10s: the first is due, the second at 15s
	expectBytes(t, up, []byte("first"), "at 10s")
	expectSilence(t, up, "at 10s, the second")
	mock.Add(5 * time.Second)
	expectBytes(t, up, []byte("second"), "at 15s")
}

// TestDelayHoldsEveryByte: on real sockets and the wall clock, every chunk comes back through
// an echo server no sooner than twice the delay after it was sent (once each way), byte-exact
// and in order.
func TestDelayHoldsEveryByte(t *testing.T) {
	const d = 150 * time.Millisecond
	_, n := start(t, echo(t), "delay 150ms")
	c := mustDial(t, n.Addr())
	const chunks = 8
	sent := make(chan time.Time, chunks)
	go func() {
		for i := range chunks {
			sent <- time.Now()
			c.Write(bytes.Repeat([]byte{byte('a' + i)}, 1000))
			time.Sleep(20 * time.Millisecond)
		}
	}()
	for i := range chunks {
		at := <-sent
		expectBytes(t, c, bytes.Repeat([]byte{byte('a' + i)}, 1000), "chunk "+fmtInt(i))
		if took := time.Since(at); took < 2*d {
			t.Errorf("chunk %d came back after %v, want no sooner than %v", i, took, 2*d)
		}
	}
}

// TestDelayHealKeepsOrder: bytes a delay still holds when the mode heals go first; the ones
// sent after the heal, which pass at once, come after them.
func TestDelayHealKeepsOrder(t *testing.T) {
	addr, conns := upstreamSink(t)
	_, n := start(t, addr, "delay 300ms")
	c := mustDial(t, n.Addr())
	up := accepted(t, conns)
	sent := time.Now()
	c.Write([]byte("held-bytes"))
	waitBytesUp(t, n, 10)
	set(t, n, "heal")
	c.Write([]byte("+after"))
	expectBytes(t, up, []byte("held-bytes+after"), "after heal")
	if took := time.Since(sent); took < 300*time.Millisecond {
		t.Errorf("the held bytes came after %v, want no sooner than the 300ms delay", took)
	}
	// And the server's side: a delay set then healed leaves the down direction in order too.
	set(t, n, "delay 300ms")
	up.Write([]byte("down-held"))
	for deadline := time.Now().Add(wait); n.stats.bytesDown.Load() < 9; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the proxy did not take the server's bytes")
		}
	}
	set(t, n, "heal")
	up.Write([]byte("+spliced"))
	expectBytes(t, c, []byte("down-held+spliced"), "down after heal")
}

// TestDelayThenFreezeHoldsTheLine: a freeze set while a delay holds bytes holds them too; heal
// lets them go.
func TestDelayThenFreezeHoldsTheLine(t *testing.T) {
	addr, conns := upstreamSink(t)
	_, n := start(t, addr, "delay 50ms")
	c := mustDial(t, n.Addr())
	up := accepted(t, conns)
	c.Write([]byte("queued"))
	waitBytesUp(t, n, 6)
	set(t, n, "freeze")
	expectSilence(t, up, "frozen")
	expectSilence(t, up, "still frozen")
	set(t, n, "heal")
	expectBytes(t, up, []byte("queued"), "after heal")
}

// TestDelayPassesTheEndAfterTheBytes: a client that sends and then closes its side has its
// bytes delivered before the FIN, which passes the echo's answer and FIN back the same way.
func TestDelayPassesTheEndAfterTheBytes(t *testing.T) {
	_, n := start(t, echo(t), "delay 100ms")
	c := mustDial(t, n.Addr())
	msg := pattern(200 << 10)
	go func() {
		c.Write(msg)
		c.CloseWrite()
	}()
	expectBytes(t, c, msg, "echo")
	c.SetReadDeadline(time.Now().Add(wait))
	if k, err := c.Read(make([]byte, 1)); k != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("after the echo: %d bytes, %v; want EOF", k, err)
	}
}

// TestDelayLineTakesManySmallChunks: a line is bounded by the bytes it holds, not by its
// chunks: on the proxy's clock, with no time passing, a delay takes a thousand small packets,
// each read as a chunk of its own, and delivers them all, in order, once they are due. (A
// line of 256 chunks slowed any stream of more than 256 packets per delay.)
func TestDelayLineTakesManySmallChunks(t *testing.T) {
	mock := clock.NewMock()
	addr, conns := upstreamSink(t)
	_, n := start(t, addr, "delay 10s", func(c *Config) { c.Clock = mock })
	c := mustDial(t, n.Addr())
	up := accepted(t, conns)
	const packets, size = 1000, 96
	var want []byte
	for i := range packets {
		p := packet(1, bytes.Repeat([]byte{byte(i)}, size)) // whole packets: none waits for the next
		want = append(want, p...)
		c.Write(p)
		waitBytesUp(t, n, uint64(len(want))) // the proxy took it, alone
	}
	expectSilence(t, up, "before the delay")
	mock.Add(10 * time.Second)
	expectBytes(t, up, want, "every packet, due")
}

// TestDelayLineBoundedByBytes: what a line holds is bounded (lineBytes): a stream faster than
// that per delay waits for the oldest bytes to go, and loses nothing.
func TestDelayLineBoundedByBytes(t *testing.T) {
	mock := clock.NewMock()
	addr, conns := upstreamSink(t)
	_, n := start(t, addr, "delay 10s", func(c *Config) { c.Clock = mock })
	c := mustDial(t, n.Addr())
	up := accepted(t, conns)
	msg := pattern(2 * lineBytes)
	go c.Write(msg)
	waitBytesUp(t, n, lineBytes-2*bufSize)
	expectSilence(t, up, "before the delay")
	if got := n.stats.bytesUp.Load(); got > lineBytes {
		t.Fatalf("the line took %d bytes, more than its %d", got, lineBytes)
	}
	got := make(chan error, 1)
	go func() {
		b := make([]byte, len(msg))
		up.SetReadDeadline(time.Now().Add(time.Minute))
		if _, err := io.ReadFull(up, b); err != nil {
			got <- err
			return
		}
		if !bytes.Equal(b, msg) {
			got <- errors.New("the bytes came changed")
			return
		}
		got <- nil
	}()
	for {
		select {
		case err := <-got:
			if err != nil {
				t.Fatal(err)
			}
			return
		case <-time.After(time.Millisecond):
			mock.Add(10 * time.Second)
		}
	}
}
