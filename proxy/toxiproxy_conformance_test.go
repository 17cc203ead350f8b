package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"

	"github.com/failsim/failsim/fault"
)

// The side-by-side conformance test: real toxiproxy v2.5.0 (its server package, in process)
// and failsim, each in front of its own copy of the same upstream, given the same toxic with
// the same attributes and the same client traffic; what the client sees on each (the bytes,
// when they came, whether and when the connection ended with a FIN or a RST) must agree,
// the times within the tolerance below, or, where failsim differs on purpose, be what
// docs/proxy.md's "toxiproxy's toxics" table says each does. A scenario has up to three
// attempts (runScenario).

// The timing tolerance: two times agree when they are within max(conformanceFloor,
// conformanceShare of the larger one); a time is "about" d within the same of d.
const (
	conformanceFloor = 50 * time.Millisecond
	conformanceShare = 0.20
)

// closeEnd is how a client saw its connection end.
type closeEnd string

const (
	endFIN  closeEnd = "FIN"  // a read returned io.EOF
	endRST  closeEnd = "RST"  // a read returned ECONNRESET
	endOpen closeEnd = "open" // still open when the client stopped waiting
)

// seen is what a client saw on one connection, its times from the scenario's start.
type seen struct {
	data        []byte
	first, last time.Duration // when the first and the last byte came; 0 with no bytes
	end         closeEnd
	endAt       time.Duration // when the end came; 0 if open
}

func (s seen) String() string {
	return fmt.Sprintf("%d bytes (first at %v, last at %v), %s at %v", len(s.data),
		s.first.Round(time.Millisecond), s.last.Round(time.Millisecond), s.end, s.endAt.Round(time.Millisecond))
}

// within reports whether two times agree within the tolerance.
func within(a, b time.Duration) bool {
	slack := max(conformanceFloor, time.Duration(conformanceShare*float64(max(a, b))))
	return a-b <= slack && b-a <= slack
}

// observe reads c until it ends or until start+wait, recording what came and when.
func observe(c net.Conn, start time.Time, wait time.Duration) seen {
	var s seen
	c.SetReadDeadline(start.Add(wait))
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		at := time.Since(start)
		if n > 0 {
			if len(s.data) == 0 {
				s.first = at
			}
			s.last = at
			s.data = append(s.data, buf[:n]...)
		}
		switch {
		case err == nil:
			continue
		case errors.Is(err, io.EOF):
			s.end, s.endAt = endFIN, at
		case errors.Is(err, syscall.ECONNRESET):
			s.end, s.endAt = endRST, at
		default: // the deadline
			s.end = endOpen
		}
		return s
	}
}

// payload is n bytes of a fixed pseudo-random stream, the same on every run.
func payload(n int) []byte {
	p := make([]byte, n)
	rand.NewChaCha8([32]byte{'t', 'o', 'x'}).Read(p)
	return p
}

// upstreamOf serves each connection it accepts with serve, on a free loopback port, until
// cleanup, when it closes what it holds and waits for its goroutines.
func upstreamOf(t testing.TB, serve func(c *net.TCPConn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
		wg    sync.WaitGroup
	)
	accepting := make(chan struct{})
	go func() {
		defer close(accepting)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				serve(c.(*net.TCPConn))
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-accepting
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}

// The upstreams of the scenarios.

// sendThen writes p as soon as a client connects; then it closes (hangUp) or reads until the
// client leaves.
func sendThen(p []byte, hangUp bool) func(*net.TCPConn) {
	return func(c *net.TCPConn) {
		if _, err := c.Write(p); err != nil || hangUp {
			return
		}
		io.Copy(io.Discard, c)
	}
}

// drip writes p in k pieces, one every gap, then reads until the client leaves.
func drip(p []byte, k int, gap time.Duration) func(*net.TCPConn) {
	return func(c *net.TCPConn) {
		for i := range k {
			if _, err := c.Write(p[i*len(p)/k : (i+1)*len(p)/k]); err != nil {
				return
			}
			time.Sleep(gap)
		}
		io.Copy(io.Discard, c)
	}
}

// afterFIN reads until the client's FIN, then sends p and closes: a server that answers a
// request the client ended with a half-close.
func afterFIN(p []byte) func(*net.TCPConn) {
	return func(c *net.TCPConn) {
		io.Copy(io.Discard, c)
		c.Write(p)
	}
}

// echoBack sends back what it reads until the client's FIN, then closes; with n > 0 it closes
// once it has sent back n bytes.
func echoBack(n int) func(*net.TCPConn) {
	return func(c *net.TCPConn) {
		if n <= 0 {
			io.Copy(c, c)
			return
		}
		io.CopyN(c, c, int64(n))
	}
}

// toxicSpec is one toxic as each proxy is told it: toxiproxy's JSON (as its API's POST
// /proxies/{proxy}/toxics takes it) and failsim's Toxic (as Node.AddToxic takes it).
type toxicSpec struct {
	json    string // toxiproxy's body
	name    string // the toxic's name on both sides, to remove it by
	failsim Toxic
}

// side is one proxy under test: where the client dials, and how a toxic is added and removed.
type side interface {
	addr() string
	add(t testing.TB, s toxicSpec)
	remove(t testing.TB, s toxicSpec)
}

// toxiproxySide is real toxiproxy, configured through its Go API.
type toxiproxySide struct{ p *toxiproxy.Proxy }

func (s toxiproxySide) addr() string { return s.p.Listen }
func (s toxiproxySide) add(t testing.TB, ts toxicSpec) {
	if ts.json != "" {
		addToxiproxyToxic(t, s.p, ts.json)
	}
}
func (s toxiproxySide) remove(t testing.TB, ts toxicSpec) { removeToxiproxyToxic(t, s.p, ts.name) }

// failsimSide is failsim's node, configured through its Go API.
type failsimSide struct{ n *Node }

func (s failsimSide) addr() string { return s.n.Addr() }
func (s failsimSide) add(t testing.TB, ts toxicSpec) {
	t.Helper()
	if ts.json == "" {
		return
	}
	if _, err := s.n.AddToxic(ts.failsim); err != nil {
		t.Errorf("failsim: add toxic %+v: %v", ts.failsim, err)
	}
}
func (s failsimSide) remove(t testing.TB, ts toxicSpec) {
	t.Helper()
	if err := s.n.RemoveToxic(ts.name); err != nil {
		t.Errorf("failsim: remove toxic %s: %v", ts.name, err)
	}
}

// span is a time a client should see something at: from lo to hi, each widened by the
// tolerance. about(d) is the span of d alone.
type span struct{ lo, hi time.Duration }

func about(d time.Duration) span { return span{d, d} }

func (s span) holds(d time.Duration) bool {
	slack := func(x time.Duration) time.Duration {
		return max(conformanceFloor, time.Duration(conformanceShare*float64(x)))
	}
	return d >= s.lo-slack(s.lo) && d <= s.hi+slack(s.hi)
}

func (s span) String() string {
	if s.lo == s.hi {
		return "about " + s.lo.String()
	}
	return fmt.Sprintf("%v to %v", s.lo, s.hi)
}

// expect is what a client must see on one side.
type expect struct {
	data  []byte // exactly these bytes
	first *span  // when the first byte comes; nil: not checked (or no bytes)
	end   closeEnd
	endAt *span // when the end comes; nil: not checked
}

func (e expect) judge(p *problems, who string, s seen) {
	if !bytes.Equal(s.data, e.data) {
		p.add("%s: got %d bytes, want %d (the first %d of what was sent: %v)", who, len(s.data), len(e.data), len(e.data), s)
	}
	if e.first != nil && len(s.data) > 0 && !e.first.holds(s.first) {
		p.add("%s: the first byte came at %v, want %v (%v)", who, s.first, e.first, s)
	}
	if s.end != e.end {
		p.add("%s: the connection ended %s, want %s (%v)", who, s.end, e.end, s)
	} else if e.endAt != nil && !e.endAt.holds(s.endAt) {
		p.add("%s: the %s came at %v, want %v (%v)", who, s.end, s.endAt, e.endAt, s)
	}
}

// problems collects what one attempt of a scenario found wrong.
type problems []string

func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

// scenario is one case of the conformance test.
type scenario struct {
	name  string
	serve func(*net.TCPConn) // the upstream, the same on both sides
	toxic toxicSpec
	// open: the client connects first and the toxic is added 100 ms later, at the scenario's
	// start, so it meets a connection already flowing; otherwise the toxic is there before
	// the dial and the scenario starts at the dial.
	open   bool
	send   []byte        // what the client writes at the start (nothing if nil)
	fin    bool          // the client sends a FIN after send (a half-close)
	remove time.Duration // > 0: the toxic is removed this long after the start
	wait   time.Duration // how long the client waits for the connection's end
	want   expect        // what toxiproxy does (its toxics/*.go), and failsim too unless differs
	// differs, when set, is what failsim does instead, on purpose (docs/proxy.md's table).
	differs *expect
	// drawn: the toxic draws its timing at random, so the two sides' times need not agree
	// (each must still be within want's spans).
	drawn bool
}

// run plays sc on one side and returns what its client saw.
func (sc scenario) run(t *testing.T, sd side) seen {
	if !sc.open {
		sd.add(t, sc.toxic)
	}
	start := time.Now()
	c, err := net.DialTimeout("tcp", sd.addr(), 2*time.Second)
	if errors.Is(err, syscall.ECONNRESET) {
		// On loopback a reset can come before the dial has looked at its socket: the client
		// sees it at the connect instead of its first read.
		return seen{end: endRST, endAt: time.Since(start)}
	}
	if err != nil {
		t.Errorf("dial: %v", err)
		return seen{}
	}
	defer c.Close()
	if sc.open {
		time.Sleep(100 * time.Millisecond)
		sd.add(t, sc.toxic)
		start = time.Now()
	}
	if sc.send != nil {
		if _, err := c.Write(sc.send); err != nil {
			t.Errorf("write: %v", err)
		}
	}
	if sc.fin {
		c.(*net.TCPConn).CloseWrite()
	}
	removed := make(chan struct{})
	if sc.remove > 0 {
		time.AfterFunc(sc.remove, func() { defer close(removed); sd.remove(t, sc.toxic) })
	} else {
		close(removed)
	}
	s := observe(c, start, sc.wait)
	<-removed
	return s
}

// compare notes where what failsim's client saw (f) and what toxiproxy's saw (x) disagree.
func compare(p *problems, f, x seen, timed bool) {
	if !bytes.Equal(f.data, x.data) {
		p.add("bytes differ: failsim %v; toxiproxy %v", f, x)
	}
	if f.end != x.end {
		p.add("ends differ: failsim %v; toxiproxy %v", f, x)
	}
	if !timed {
		return
	}
	if len(f.data) > 0 && len(x.data) > 0 && (!within(f.first, x.first) || !within(f.last, x.last)) {
		p.add("the bytes came at different times: failsim %v; toxiproxy %v", f, x)
	}
	if f.end == x.end && f.end != endOpen && !within(f.endAt, x.endAt) {
		p.add("the %s came at different times: failsim %v; toxiproxy %v", f.end, f, x)
	}
}

// attempts is how many times runScenario plays a scenario before it fails: on a machine
// shared with other work a timer can fire late on one side, so a scenario passes when one
// attempt is right throughout. A difference in behaviour shows in every attempt.
const attempts = 3

// runScenario plays sc on real toxiproxy and on failsim at once, each in front of its own
// upstream serving sc.serve, and judges what their clients saw.
func runScenario(t *testing.T, sc scenario) {
	var p problems
	for try := 1; try <= attempts; try++ {
		tp := toxiproxySide{startToxiproxy(t, upstreamOf(t, sc.serve))}
		_, n := start(t, upstreamOf(t, sc.serve), "heal")
		fs := failsimSide{n}
		var x, f seen
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); x = sc.run(t, tp) }()
		go func() { defer wg.Done(); f = sc.run(t, fs) }()
		wg.Wait()
		t.Logf("attempt %d: toxiproxy: %v", try, x)
		t.Logf("attempt %d: failsim:   %v", try, f)
		p = nil
		sc.want.judge(&p, "toxiproxy", x)
		if sc.differs != nil {
			sc.differs.judge(&p, "failsim", f)
		} else {
			sc.want.judge(&p, "failsim", f)
			compare(&p, f, x, !sc.drawn)
		}
		if len(p) == 0 || t.Failed() {
			break
		}
	}
	for _, e := range p {
		t.Errorf("in each of %d attempts, for one: %s", attempts, e)
	}
}

// spec is one toxic of type typ on stream, told to toxiproxy as attrs (its JSON attributes)
// and to failsim as the timeline's words (fault.Parse), both named "<type>_<stream>", with
// toxicity 1.
func spec(t *testing.T, typ, stream, attrs, words string) toxicSpec {
	return specToxicity(t, typ, stream, attrs, words, 1)
}

// specToxicity is spec with the chance that the toxic acts on a connection.
func specToxicity(t *testing.T, typ, stream, attrs, words string, toxicity float64) toxicSpec {
	t.Helper()
	f, err := fault.Parse(strings.Fields(words))
	if err != nil {
		t.Fatalf("%q: %v", words, err)
	}
	name := typ + "_" + stream
	return toxicSpec{
		json:    fmt.Sprintf(`{"name": %q, "type": %q, "stream": %q, "toxicity": %v, "attributes": %s}`, name, typ, stream, toxicity, attrs),
		name:    name,
		failsim: Toxic{Name: name, Type: typ, Stream: f.Stream, Toxicity: toxicity, Fault: f},
	}
}

func millis(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func at(d time.Duration) *span { s := about(d); return &s }

// TestToxiproxyConformance plays every toxiproxy toxic on real toxiproxy and on failsim
// side by side (runScenario). The expectations are toxiproxy's toxics/*.go and link.go read
// closely; where failsim differs on purpose, docs/proxy.md's "toxiproxy's toxics" says why.
func TestToxiproxyConformance(t *testing.T) {
	p1000, p1600, p5000, p50000 := payload(1000), payload(1600), payload(5000), payload(50000)
	scenarios := []scenario{{
		// No toxic: a client's half-close. toxiproxy's link ends both sockets at the first
		// end of either stream (link.go write: dest.Close()), so the server's answer to a
		// request ended with a FIN is lost; failsim passes a FIN on as a FIN (conn.go passEnd)
		// and the other stream flows on.
		name:    "pass-half-close",
		serve:   afterFIN(p1000),
		send:    p1000,
		fin:     true,
		wait:    2 * time.Second,
		want:    expect{data: nil, end: endFIN, endAt: at(0)},
		differs: &expect{data: p1000, first: at(0), end: endFIN, endAt: at(0)},
	}, {
		// latency.go: each chunk leaves latency after it came; the FIN follows the last chunk.
		name:  "latency/downstream",
		serve: sendThen(p1000, true),
		toxic: spec(t, "latency", "downstream", `{"latency": 200}`, "latency 200ms"),
		wait:  2 * time.Second,
		want:  expect{data: p1000, first: at(millis(200)), end: endFIN, endAt: at(millis(200))},
	}, {
		name:  "latency/upstream",
		serve: echoBack(len(p1000)),
		toxic: spec(t, "latency", "upstream", `{"latency": 200}`, "latency 200ms upstream"),
		send:  p1000,
		wait:  2 * time.Second,
		want:  expect{data: p1000, first: at(millis(200)), end: endFIN, endAt: at(millis(200))},
	}, {
		// latency.go: latency + Int63n(2*jitter) - jitter, drawn per chunk.
		name:  "latency-jitter/downstream",
		serve: sendThen(p1000, true),
		toxic: spec(t, "latency", "downstream", `{"latency": 200, "jitter": 100}`, "latency 200ms jitter 100ms"),
		wait:  2 * time.Second,
		want:  expect{data: p1000, first: &span{millis(100), millis(300)}, end: endFIN, endAt: &span{millis(100), millis(300)}},
		drawn: true,
	}, {
		// bandwidth.go: 100 KB/s is 10,000 bytes each 100 ms; the last piece of 50,000 bytes
		// leaves at 500 ms, and the FIN after it.
		name:  "bandwidth/downstream",
		serve: sendThen(p50000, true),
		toxic: spec(t, "bandwidth", "downstream", `{"rate": 100}`, "bandwidth 100KB/s"),
		wait:  3 * time.Second,
		want:  expect{data: p50000, end: endFIN, endAt: at(millis(500))},
	}, {
		// the same upstream: the client's 50,000 bytes paced to the echo server.
		name:  "bandwidth/upstream",
		serve: echoBack(len(p50000)),
		toxic: spec(t, "bandwidth", "upstream", `{"rate": 100}`, "bandwidth 100KB/s upstream"),
		send:  p50000,
		wait:  3 * time.Second,
		want:  expect{data: p50000, end: endFIN, endAt: at(millis(500))},
	}, {
		// slow_close.go: the bytes pass at once, the FIN waits delay.
		name:  "slow_close/downstream",
		serve: sendThen(p1000, true),
		toxic: spec(t, "slow_close", "downstream", `{"delay": 300}`, "slow-close 300ms"),
		wait:  2 * time.Second,
		want:  expect{data: p1000, first: at(0), end: endFIN, endAt: at(millis(300))},
	}, {
		// timeout.go: every byte is dropped, the connection closed after timeout.
		name:  "timeout/downstream",
		serve: sendThen(p1000, false),
		toxic: spec(t, "timeout", "downstream", `{"timeout": 300}`, "timeout 300ms"),
		wait:  2 * time.Second,
		want:  expect{data: nil, end: endFIN, endAt: at(millis(300))},
	}, {
		// upstream: the client's bytes never reach the echo server; closed after timeout.
		name:  "timeout/upstream",
		serve: echoBack(0),
		toxic: spec(t, "timeout", "upstream", `{"timeout": 300}`, "timeout 300ms upstream"),
		send:  p1000,
		wait:  2 * time.Second,
		want:  expect{data: nil, end: endFIN, endAt: at(millis(300))},
	}, {
		// timeout 0: dropped for ever, the connection open.
		name:  "timeout-0/downstream",
		serve: sendThen(p1000, false),
		toxic: spec(t, "timeout", "downstream", `{"timeout": 0}`, "timeout 0"),
		wait:  600 * time.Millisecond,
		want:  expect{data: nil, end: endOpen},
	}, {
		// timeout.go's Cleanup closes the stub: removing the toxic closes the connection.
		name:   "timeout-0-removed/downstream",
		serve:  sendThen(p1000, false),
		toxic:  spec(t, "timeout", "downstream", `{"timeout": 0}`, "timeout 0"),
		remove: millis(300),
		wait:   2 * time.Second,
		want:   expect{data: nil, end: endFIN, endAt: at(millis(300))},
	}, {
		// timeout.go makes a new time.After at each chunk: the timeout counts from the last
		// byte, not from the toxic's start. Five pieces 100 ms apart: closed at 400+300 ms.
		name:  "timeout-drip/downstream",
		serve: drip(p1000, 5, millis(100)),
		toxic: spec(t, "timeout", "downstream", `{"timeout": 300}`, "timeout 300ms"),
		wait:  2 * time.Second,
		want:  expect{data: nil, end: endFIN, endAt: at(millis(700))},
		// failsim's timeout counts from when the toxic began on the connection, as its
		// documentation says; bytes that it drops do not put the close off.
		differs: &expect{data: nil, end: endFIN, endAt: at(millis(300))},
	}, {
		// a toxic whose toxicity is 0 never acts.
		name:  "latency-toxicity-0/downstream",
		serve: sendThen(p1000, true),
		toxic: specToxicity(t, "latency", "downstream", `{"latency": 300}`, "latency 300ms", 0),
		wait:  2 * time.Second,
		want:  expect{data: p1000, first: at(0), end: endFIN, endAt: at(0)},
	}, {
		// reset_peer.go with link.go's SO_LINGER 0, set when the link starts with the toxic
		// there: the first chunk is dropped and the client reset after timeout.
		name:  "reset_peer-0/downstream",
		serve: sendThen(p1000, false),
		toxic: spec(t, "reset_peer", "downstream", `{"timeout": 0}`, "reset-peer"),
		wait:  2 * time.Second,
		want:  expect{data: nil, end: endRST, endAt: at(0)},
	}, {
		// upstream: the client's first bytes are dropped and both sides reset.
		name:  "reset_peer-0/upstream",
		serve: echoBack(0),
		toxic: spec(t, "reset_peer", "upstream", `{"timeout": 0}`, "reset-peer upstream"),
		send:  p1000,
		wait:  2 * time.Second,
		want:  expect{data: nil, end: endRST, endAt: at(0)},
	}, {
		name:  "reset_peer-300/downstream",
		serve: sendThen(p1000, false),
		toxic: spec(t, "reset_peer", "downstream", `{"timeout": 300}`, "reset-peer 300ms"),
		wait:  2 * time.Second,
		want:  expect{data: nil, end: endRST, endAt: at(millis(300))},
	}, {
		// link.go sets SO_LINGER 0 only on links that start with a reset_peer in the chain:
		// added to a connection already open, toxiproxy's reset_peer closes it with a FIN.
		name:  "reset_peer-open/downstream",
		serve: echoBack(0),
		toxic: spec(t, "reset_peer", "downstream", `{"timeout": 0}`, "reset-peer"),
		open:  true,
		send:  p1000,
		wait:  2 * time.Second,
		want:  expect{data: nil, end: endFIN, endAt: at(0)},
		// failsim's reset_peer resets whenever it was added: RST is what the toxic is for.
		differs: &expect{data: nil, end: endRST, endAt: at(0)},
	}, {
		// slicer.go with no variation cuts 1,600 bytes in halves down to 100: 16 pieces, each
		// followed by delay, then the FIN.
		name:  "slicer/downstream",
		serve: sendThen(p1600, true),
		toxic: spec(t, "slicer", "downstream", `{"average_size": 100, "size_variation": 0, "delay": 20000}`, "slicer 100 delay 20ms"),
		wait:  3 * time.Second,
		want:  expect{data: p1600, first: at(0), end: endFIN, endAt: at(16 * millis(20))},
	}, {
		// upstream: the echo server gets the 16 pieces 20 ms apart and sends each back.
		name:  "slicer/upstream",
		serve: echoBack(len(p1600)),
		toxic: spec(t, "slicer", "upstream", `{"average_size": 100, "size_variation": 0, "delay": 20000}`, "slicer 100 delay 20ms upstream"),
		send:  p1600,
		wait:  3 * time.Second,
		want:  expect{data: p1600, first: at(0), end: endFIN, endAt: at(15 * millis(20))},
	}, {
		// with a variation the number of pieces is drawn (16 to 32 here), so their time is.
		name:  "slicer-variation/downstream",
		serve: sendThen(p1600, true),
		toxic: spec(t, "slicer", "downstream", `{"average_size": 100, "size_variation": 20, "delay": 20000}`, "slicer 100 variation 20 delay 20ms"),
		wait:  3 * time.Second,
		want:  expect{data: p1600, first: at(0), end: endFIN, endAt: &span{8 * millis(20), 32 * millis(20)}},
		drawn: true,
	}, {
		// limit_data.go: the first bytes pass, then the stub closes: a FIN.
		name:  "limit_data/downstream",
		serve: sendThen(p5000, false),
		toxic: spec(t, "limit_data", "downstream", `{"bytes": 1000}`, "limit-data 1000"),
		wait:  2 * time.Second,
		want:  expect{data: p1000, first: at(0), end: endFIN, endAt: at(0)},
	}}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			runScenario(t, sc)
		})
	}
}
