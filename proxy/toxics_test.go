package proxy

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/failsim/failsim/fault"
)

// addToxic adds the toxic written as words (fault.Parse) to n, or fails the test.
func addToxic(t testing.TB, n *Node, name, words string, toxicity float64) Toxic {
	t.Helper()
	f, err := fault.Parse(strings.Fields(words))
	if err != nil {
		t.Fatal(err)
	}
	got, err := n.AddToxic(Toxic{Name: name, Stream: f.Stream, Toxicity: toxicity, Fault: f})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// readAll reads c until it ends, within wait; it returns the bytes and how it ended.
func readAll(t testing.TB, c net.Conn) ([]byte, error) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(wait))
	var got []byte
	buf := make([]byte, 4096)
	for {
		k, err := c.Read(buf)
		got = append(got, buf[:k]...)
		if err != nil {
			if err == io.EOF {
				return got, nil
			}
			return got, err
		}
	}
}

// TestLatencyActsOnItsStreamOnly: latency downstream makes the server's bytes late and leaves
// the client's alone; upstream the other way round.
func TestLatencyActsOnItsStreamOnly(t *testing.T) {
	const d = 200 * time.Millisecond
	for _, stream := range []string{"downstream", "upstream"} {
		t.Run(stream, func(t *testing.T) {
			addr, conns := upstreamSink(t)
			_, n := start(t, addr, "heal")
			addToxic(t, n, "", "latency 200ms "+stream, 1)
			c := mustDial(t, n.Addr())
			up := accepted(t, conns)
			from, to := net.Conn(c), net.Conn(up)
			if stream == "downstream" {
				from, to = up, c
			}
			// (A client's bytes are framed as MySQL packets: more than a 4-byte header passes.)
			at := time.Now()
			from.Write([]byte("late bytes"))
			expectBytes(t, to, []byte("late bytes"), stream)
			if took := time.Since(at); took < d {
				t.Errorf("%s bytes came after %v, want no sooner than %v", stream, took, d)
			}
			// The other stream passes at once: nothing holds it for the latency.
			at = time.Now()
			to.Write([]byte("early bytes"))
			expectBytes(t, from, []byte("early bytes"), "the other stream")
			if took := time.Since(at); took >= d {
				t.Logf("the other stream took %v (a loaded machine?)", took)
			}
		})
	}
}

// TestLatencyJitterIsSeeded: the jitter of a connection's latency is drawn from the proxy's
// seed, the node and the connection's number: the same three give the same delays, another
// seed others; each within [latency-jitter, latency+jitter).
func TestLatencyJitterIsSeeded(t *testing.T) {
	f := fault.Fault{Kind: fault.Latency, Delay: 100 * time.Millisecond, Jitter: 50 * time.Millisecond}
	draws := func(seed uint64, seq uint64) []time.Duration {
		p := &Proxy{seed: seed}
		c := &conn{n: &Node{p: p, seedHi: nameSeed("db1")}, seq: seq}
		l := (&latency{f: f}).fresh(c.toxicRand("latency_downstream"), nil).(*latency)
		var ds []time.Duration
		for range 64 {
			d, ok := l.lateBy(dirDown)
			if !ok {
				t.Fatal("latency downstream does not act downstream")
			}
			if d < 50*time.Millisecond || d >= 150*time.Millisecond || d%time.Millisecond != 0 {
				t.Fatalf("delay %v: want whole milliseconds in [50ms, 150ms)", d)
			}
			ds = append(ds, d)
		}
		if _, ok := l.lateBy(dirUp); ok {
			t.Fatal("latency downstream acts upstream")
		}
		return ds
	}
	a, b := draws(7, 3), draws(7, 3)
	if !equalDurations(a, b) {
		t.Fatal("the same seed, node and connection drew different jitter")
	}
	if equalDurations(a, draws(8, 3)) || equalDurations(a, draws(7, 4)) {
		t.Fatal("another seed or connection drew the same 64 jitters")
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestBandwidthPacesTheStream: 3000 bytes at 10 KB/s take no less than 300 ms, arrive whole
// and in order.
func TestBandwidthPacesTheStream(t *testing.T) {
	addr, conns := upstreamSink(t)
	_, n := start(t, addr, "heal")
	addToxic(t, n, "", "bandwidth 10KB/s", 1)
	c := mustDial(t, n.Addr())
	up := accepted(t, conns)
	want := bytes.Repeat([]byte("0123456789"), 300)
	at := time.Now()
	up.Write(want)
	expectBytes(t, c, want, "3000 bytes")
	if took := time.Since(at); took < 300*time.Millisecond {
		t.Errorf("3000 bytes at 10 KB/s took %v, want no less than 300ms", took)
	}
}

// TestSlowCloseHoldsTheFIN: the server's bytes pass at once, its FIN no sooner than the delay.
func TestSlowCloseHoldsTheFIN(t *testing.T) {
	addr, conns := upstreamSink(t)
	_, n := start(t, addr, "slow-close 300ms")
	c := mustDial(t, n.Addr())
	up := accepted(t, conns)
	up.Write([]byte("bye"))
	expectBytes(t, c, []byte("bye"), "the bytes before the FIN")
	at := time.Now()
	up.(*net.TCPConn).CloseWrite()
	got, err := readAll(t, c)
	if err != nil || len(got) != 0 {
		t.Fatalf("after the server's FIN: %q, %v; want a clean end", got, err)
	}
	if took := time.Since(at); took < 300*time.Millisecond {
		t.Errorf("the FIN came after %v, want no sooner than 300ms", took)
	}
}

// TestTimeoutDropsThenCloses: timeout 0 drops the server's bytes for as long as it is there,
// and its removal closes the connection (toxiproxy's Cleanup); timeout 300ms closes it by
// itself, no sooner than 300 ms, and nothing the server sent arrives.
func TestTimeoutDropsThenCloses(t *testing.T) {
	t.Run("0 until removed", func(t *testing.T) {
		addr, conns := upstreamSink(t)
		_, n := start(t, addr, "heal")
		addToxic(t, n, "t", "timeout 0", 1)
		c := mustDial(t, n.Addr())
		up := accepted(t, conns)
		up.Write([]byte("dropped"))
		expectSilence(t, c, "timeout 0")
		if err := n.RemoveToxic("t"); err != nil {
			t.Fatal(err)
		}
		got, err := readAll(t, c)
		if err != nil || len(got) != 0 {
			t.Fatalf("after the removal: %q, %v; want the connection closed, nothing delivered", got, err)
		}
	})
	t.Run("300ms", func(t *testing.T) {
		addr, conns := upstreamSink(t)
		_, n := start(t, addr, "timeout 300ms")
		at := time.Now()
		c := mustDial(t, n.Addr())
		up := accepted(t, conns)
		up.Write([]byte("dropped"))
		got, err := readAll(t, c)
		if err != nil || len(got) != 0 {
			t.Fatalf("timeout 300ms: %q, %v; want a close and nothing delivered", got, err)
		}
		if took := time.Since(at); took < 300*time.Millisecond {
			t.Errorf("closed after %v, want no sooner than 300ms", took)
		}
	})
}

// TestResetPeerResets: the server's first bytes are dropped and the client meets a reset.
func TestResetPeerResets(t *testing.T) {
	for _, words := range []string{"reset-peer", "reset-peer 200ms"} {
		t.Run(words, func(t *testing.T) {
			addr, conns := upstreamSink(t)
			_, n := start(t, addr, words)
			c := mustDial(t, n.Addr())
			up := accepted(t, conns)
			at := time.Now()
			up.Write([]byte("dropped"))
			got, err := readAll(t, c)
			if !errors.Is(err, syscall.ECONNRESET) || len(got) != 0 {
				t.Fatalf("%s: read %q, %v; want a reset and nothing delivered", words, got, err)
			}
			if words != "reset-peer" && time.Since(at) < 200*time.Millisecond {
				t.Errorf("%s: reset after %v, want no sooner than 200ms", words, time.Since(at))
			}
		})
	}
}

// TestSlicerCutsButKeepsEveryByte: the bytes arrive whole, in order, no piece larger than
// size + variation, and the pauses add up.
func TestSlicerCutsButKeepsEveryByte(t *testing.T) {
	addr, conns := upstreamSink(t)
	_, n := start(t, addr, "slicer 100 variation 20 delay 20ms")
	c := mustDial(t, n.Addr())
	up := accepted(t, conns)
	want := make([]byte, 1000)
	for i := range want {
		want[i] = byte(i)
	}
	at := time.Now()
	up.Write(want)
	expectBytes(t, c, want, "1000 bytes sliced")
	if took := time.Since(at); took < 5*20*time.Millisecond {
		t.Errorf("1000 bytes in pieces of at most 120, 20ms apart, took %v: want no less than 100ms", took)
	}
	s := &slicer{f: fault.Fault{Kind: fault.Slicer, Size: 100, Variation: 20}, rng: rand.New(rand.NewPCG(1, 2))}
	cuts := s.cut(nil, 0, 1000)
	for i := 1; i < len(cuts); i += 2 {
		if k := cuts[i] - cuts[i-1]; k <= 0 || k > 120 {
			t.Fatalf("piece %d..%d: want 1 to 120 bytes", cuts[i-1], cuts[i])
		}
		if i > 1 && cuts[i-1] != cuts[i-2] {
			t.Fatalf("pieces %v leave a gap", cuts)
		}
	}
	if cuts[0] != 0 || cuts[len(cuts)-1] != 1000 {
		t.Fatalf("pieces %v do not cover 0..1000", cuts)
	}
}

// TestLimitDataClosesAtTheLimit: exactly the limit's bytes arrive, then a clean close; the
// count survives an update of the toxic.
func TestLimitDataClosesAtTheLimit(t *testing.T) {
	addr, conns := upstreamSink(t)
	_, n := start(t, addr, "heal")
	addToxic(t, n, "lim", "limit-data 100", 1)
	c := mustDial(t, n.Addr())
	up := accepted(t, conns)
	up.Write(bytes.Repeat([]byte("a"), 60))
	expectBytes(t, c, bytes.Repeat([]byte("a"), 60), "under the limit")
	lim, _ := n.Toxic("lim")
	lim.Fault.Bytes = 120
	if _, err := n.UpdateToxic("lim", lim); err != nil {
		t.Fatal(err)
	}
	up.Write(bytes.Repeat([]byte("b"), 300))
	got, err := readAll(t, c)
	if err != nil || !bytes.Equal(got, bytes.Repeat([]byte("b"), 60)) {
		t.Fatalf("after 60 of 120 bytes: %d bytes %q, %v; want the 60 left and a clean close", len(got), got, err)
	}
}

// TestChainOfToxics: toxics add up in one chain: names default to toxiproxy's, a name is
// taken once, the chain lists upstream first, a toxicity 0 toxic never acts, and SetMode
// replaces the whole chain.
func TestChainOfToxics(t *testing.T) {
	addr, conns := upstreamSink(t)
	_, n := start(t, addr, "heal")
	lat := addToxic(t, n, "", "latency 100ms", 1)
	if lat.Name != "latency_downstream" || lat.Type != "latency" || lat.Toxicity != 1 {
		t.Fatalf("added %+v: want toxiproxy's default name latency_downstream", lat)
	}
	if _, err := n.AddToxic(lat); !errors.Is(err, ErrToxicExists) {
		t.Fatalf("the same name again: %v, want ErrToxicExists", err)
	}
	addToxic(t, n, "never", "limit-data 1", 0)
	addToxic(t, n, "", "slicer 10 upstream", 1)
	var names []string
	for _, tx := range n.Toxics() {
		names = append(names, tx.Name)
	}
	if got := strings.Join(names, " "); got != "slicer_upstream latency_downstream never" {
		t.Fatalf("chain %q: want upstream first, then downstream in the order added", got)
	}
	if got := n.Status().Mode; got != "latency_downstream=latency 100ms downstream, never=limit-data 1 downstream toxicity 0, slicer_upstream=slicer 10 upstream" {
		t.Errorf("status mode %q", got)
	}
	c := mustDial(t, n.Addr())
	up := accepted(t, conns)
	at := time.Now()
	up.Write([]byte("through the chain"))
	expectBytes(t, c, []byte("through the chain"), "latency, and a limit that never acts")
	if took := time.Since(at); took < 100*time.Millisecond {
		t.Errorf("through latency 100ms after %v", took)
	}
	c.Write([]byte("sliced up"))
	expectBytes(t, up, []byte("sliced up"), "upstream through the slicer")
	if err := n.RemoveToxic("nope"); !errors.Is(err, ErrToxicNotFound) {
		t.Fatalf("removing a toxic that is not there: %v", err)
	}
	set(t, n, "freeze")
	if ts := n.Toxics(); len(ts) != 1 || ts[0].Name != "freeze_downstream" || n.Mode().Fault.Kind != fault.Freeze {
		t.Fatalf("after SetMode(freeze): chain %+v, mode %v", ts, n.Mode())
	}
	set(t, n, "freeze after 10 bytes")
	if _, err := n.AddToxic(lat); !errors.Is(err, ErrModeStandsAlone) {
		t.Fatalf("a toxic beside an armed mode: %v, want ErrModeStandsAlone", err)
	}
	n.ResetToxics()
	if _, err := n.AddToxic(Toxic{Type: "noop", Toxicity: 1}); err != nil {
		t.Fatalf("toxiproxy's noop: %v", err)
	}
	c2 := mustDial(t, n.Addr())
	up2 := accepted(t, conns)
	up2.Write([]byte("noop passes"))
	expectBytes(t, c2, []byte("noop passes"), "through a noop")
	n.ResetToxics()
	if len(n.Toxics()) != 0 || n.Status().Mode != "heal" {
		t.Fatalf("after ResetToxics: %+v, %q", n.Toxics(), n.Status().Mode)
	}
}

// TestToxicityIsDrawnPerConnectionFromTheSeed: a toxic at toxicity 0.5 acts on some
// connections and not others; the same seed picks the same ones, another seed others.
func TestToxicityIsDrawnPerConnectionFromTheSeed(t *testing.T) {
	pattern := func(seed uint64) string {
		addr, conns := upstreamSink(t)
		_, n := start(t, addr, "heal", func(c *Config) { c.Seed = seed })
		addToxic(t, n, "", "limit-data 1", 0.5)
		var b strings.Builder
		for range 24 {
			c := mustDial(t, n.Addr())
			up := accepted(t, conns)
			up.Write([]byte("xy"))
			c.SetReadDeadline(time.Now().Add(wait))
			buf := make([]byte, 2)
			k, err := io.ReadFull(c, buf)
			switch {
			case k == 1 && err == io.ErrUnexpectedEOF:
				b.WriteByte('1') // limited to its 1 byte, then closed
			case k == 2 && err == nil:
				b.WriteByte('0')
			default:
				t.Fatalf("read %q, %v: want 1 byte and a close, or both", buf[:k], err)
			}
			c.Close()
			up.Close()
		}
		return b.String()
	}
	a := pattern(1)
	if !strings.Contains(a, "1") || !strings.Contains(a, "0") {
		t.Fatalf("toxicity 0.5 over 24 connections: %s, want some limited and some not", a)
	}
	if b := pattern(1); b != a {
		t.Fatalf("the same seed: %s then %s", a, b)
	}
	if b := pattern(2); b == a {
		t.Fatalf("seeds 1 and 2 drew the same 24 toxicities: %s", a)
	}
}

// TestTimeoutArmedStartsAtItsTrigger: "timeout 200ms after 5 bytes" lets five bytes through,
// drops the rest, and closes the connection no sooner than 200 ms after the trigger fired.
func TestTimeoutArmedStartsAtItsTrigger(t *testing.T) {
	addr, conns := upstreamSink(t)
	_, n := start(t, addr, "timeout 200ms after 5 bytes")
	c := mustDial(t, n.Addr())
	up := accepted(t, conns)
	expectSilence(t, c, "before any byte, an armed timeout closes nothing")
	at := time.Now()
	up.Write([]byte("12345dropped"))
	got, err := readAll(t, c)
	if err != nil || string(got) != "12345" {
		t.Fatalf("read %q, %v: want the 5 bytes before the trigger, then a close", got, err)
	}
	if took := time.Since(at); took < 200*time.Millisecond {
		t.Errorf("closed %v after the trigger, want no sooner than 200ms", took)
	}
}

// TestClientFirstStreamIsNotFramed: a client that speaks before its server (not MySQL: an
// HTTP or Redis client through toxiproxy's API) has its bytes forwarded as they come, a
// message shorter than a MySQL header included; so does one whose server greets otherwise.
func TestClientFirstStreamIsNotFramed(t *testing.T) {
	_, n := start(t, echo(t), "heal")
	c := mustDial(t, n.Addr())
	c.Write([]byte("hi\n"))
	expectBytes(t, c, []byte("hi\n"), "3 bytes before the server spoke")
	c.Write([]byte("ok"))
	expectBytes(t, c, []byte("ok"), "then 2 more")

	addr, conns := upstreamSink(t)
	_, n2 := start(t, addr, "heal")
	c2 := mustDial(t, n2.Addr())
	up := accepted(t, conns)
	up.Write([]byte("+OK redis-like greeting\r\n"))
	expectBytes(t, c2, []byte("+OK redis-like greeting\r\n"), "a greeting that is not MySQL's")
	c2.Write([]byte("Q\r\n"))
	expectBytes(t, up, []byte("Q\r\n"), "3 bytes after a greeting that is not MySQL's")
}

// TestRawStreamSplicedThenFrozen: a stream that is not MySQL passes its client's bytes by
// splice; a freeze set meanwhile holds the next ones, and heal lets them go, in order.
func TestRawStreamSplicedThenFrozen(t *testing.T) {
	addr, conns := upstreamSink(t)
	_, n := start(t, addr, "heal")
	c := mustDial(t, n.Addr())
	up := accepted(t, conns)
	c.Write([]byte("before the freeze"))
	expectBytes(t, up, []byte("before the freeze"), "spliced")
	set(t, n, "freeze")
	c.Write([]byte("held"))
	expectSilence(t, up, "frozen")
	set(t, n, "heal")
	expectBytes(t, up, []byte("held"), "after heal")
	c.Write([]byte("and on"))
	expectBytes(t, up, []byte("and on"), "spliced again")
	c.CloseWrite() // a splice counts its bytes when its stretch ends
	waitBytesUp(t, n, uint64(len("before the freezeheldand on")))
}
