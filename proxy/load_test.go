package proxy

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

const (
	loadConns = 1000
	loadBytes = 1 << 20
)

// stream writes size bytes of the seeded stream id to w, hashing them into h.
func stream(w io.Writer, id uint64, size int, h io.Writer) error {
	r := rand.NewChaCha8([32]byte{byte(id), byte(id >> 8), byte(id >> 16)})
	buf := make([]byte, 32<<10)
	for size > 0 {
		k := min(size, len(buf))
		r.Read(buf[:k])
		h.Write(buf[:k])
		if _, err := w.Write(buf[:k]); err != nil {
			return err
		}
		size -= k
	}
	return nil
}

// sink reads r to its end, hashing and counting.
func sink(r io.Reader) ([32]byte, int64, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum, n, err
}

// exchangeServer reads each connection's first 8 bytes, a packet holding its id, waits for
// start, then sends loadBytes of stream id+1<<32 while reading what the client sends, and
// reports the hash it received.
type exchangeServer struct {
	ln       net.Listener
	wg       sync.WaitGroup // the accept loop and every connection
	handlers sync.WaitGroup // every connection, until it has recorded what it received
	ids      atomic.Int64   // connections whose id has arrived
	goOnce   sync.Once
	goCh     chan struct{} // closed when the connections may start streaming
	mu       sync.Mutex
	got      map[uint64][32]byte
}

// start lets every connection stream.
func (s *exchangeServer) start() { s.goOnce.Do(func() { close(s.goCh) }) }

func newExchangeServer(t *testing.T) *exchangeServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &exchangeServer{ln: ln, got: map[uint64][32]byte{}, goCh: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			s.handlers.Add(1)
			go func() {
				defer s.wg.Done()
				defer s.handlers.Done()
				defer c.Close()
				c.SetDeadline(time.Now().Add(2 * time.Minute))
				var idb [8]byte
				if _, err := io.ReadFull(c, idb[:]); err != nil {
					return
				}
				id := uint64(idb[4]) | uint64(idb[5])<<8 | uint64(idb[6])<<16
				s.ids.Add(1)
				<-s.goCh
				done := make(chan struct{})
				go func() {
					defer close(done)
					stream(c, id|1<<32, loadBytes, io.Discard)
					c.(*net.TCPConn).CloseWrite()
				}()
				sum, _, _ := sink(c)
				<-done
				// Record late on purpose: the clients finish first, and the test must wait
				// for the server side.
				time.Sleep(200 * time.Millisecond)
				s.mu.Lock()
				s.got[id] = sum
				s.mu.Unlock()
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); s.start(); s.wg.Wait() })
	return s
}

// recorded waits up to d for every connection the server accepted to record the hash of
// what it received: a client's last byte can still be on its way to the server when the
// client has finished.
func (s *exchangeServer) recorded(d time.Duration) bool {
	done := make(chan struct{})
	go func() { s.handlers.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// TestLoadIntegrity moves 1 MiB each way over 1,000 concurrent connections while the node
// switches between freeze, blackhole, stall, slow and heal: every byte arrives, in order.
func TestLoadIntegrity(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	srv := newExchangeServer(t)
	var logBuf syncBuffer
	_, n := start(t, srv.ln.Addr().String(), "heal", func(c *Config) {
		c.Log = zerolog.New(&logBuf).Level(zerolog.WarnLevel)
		c.DialTimeout = time.Minute // a loaded machine must not fail the set-up
	})
	defer func() {
		if t.Failed() {
			t.Logf("the proxy's warnings:\n%s", logBuf.String())
		}
	}()

	conns := make([]net.Conn, loadConns)
	for i := range conns {
		c, err := net.DialTimeout("tcp", n.Addr(), 10*time.Second)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(2 * time.Minute))
		id := uint64(i)
		// The id goes as one whole MySQL packet: the proxy holds an incomplete packet
		// header until the rest of it arrives.
		if _, err := c.Write([]byte{4, 0, 0, 0, byte(id), byte(id >> 8), byte(id >> 16), 0}); err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns[i] = c
	}
	// Every connection reaches the server before the streams start: the proxy's upstream
	// dials are not the subject here, and under full load their goroutines can starve. It
	// also means the proxy holds every connection before the modes switch (blackhole
	// replaces the listener, which resets what is still in its accept queue).
	for deadline := time.Now().Add(2 * time.Minute); srv.ids.Load() < loadConns; {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d connections reached the server in two minutes; %+v", srv.ids.Load(), loadConns, n.Status())
		}
		time.Sleep(5 * time.Millisecond)
	}
	srv.start()

	type result struct {
		sent, recv [32]byte
		n          int64
		err        error
	}
	results := make([]result, loadConns)
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := uint64(i)
			done := make(chan error, 1)
			go func() {
				h := sha256.New()
				err := stream(c, id, loadBytes, h)
				copy(results[i].sent[:], h.Sum(nil))
				c.(*net.TCPConn).CloseWrite()
				done <- err
			}()
			results[i].recv, results[i].n, results[i].err = sink(c)
			results[i].err = errors.Join(results[i].err, <-done)
		}()
	}

	// Switch modes under load; every one of them must lose nothing once healed.
	for _, mode := range []string{"freeze", "heal", "stall", "heal", "blackhole", "heal",
		"slow 1ms", "heal", "freeze after 100000 bytes", "heal", "freeze", "heal"} {
		time.Sleep(30 * time.Millisecond)
		set(t, n, mode)
	}
	wg.Wait()
	if !srv.recorded(2 * time.Minute) {
		t.Errorf("the server had not finished reading every connection two minutes after the clients")
	}

	// What the server received first: that is the side the clients do not wait for.
	failed, notRecorded, differs := 0, 0, 0
	srv.mu.Lock()
	for i, r := range results {
		got, ok := srv.got[uint64(i)]
		switch {
		case r.err != nil:
			failed++
			if failed <= 3 {
				t.Errorf("connection %d: received %d bytes, %v", i, r.n, r.err)
			}
		case !ok:
			notRecorded++
			if notRecorded <= 3 {
				t.Errorf("connection %d: the server recorded nothing for it (the client received %d bytes)", i, r.n)
			}
		case got != r.sent:
			differs++
			if differs == 1 {
				t.Errorf("connection %d: the server received a different stream than was sent", i)
			}
		}
	}
	srv.mu.Unlock()
	if failed+notRecorded+differs > 0 {
		t.Fatalf("of %d connections, %d failed, %d not recorded by the server, %d received differently",
			loadConns, failed, notRecorded, differs)
	}
	for i, r := range results {
		want := sha256.New()
		stream(io.Discard, uint64(i)|1<<32, loadBytes, want)
		if r.n != loadBytes || string(r.recv[:]) != string(want.Sum(nil)) {
			t.Fatalf("connection %d: received %d bytes, hash differs from what the server sent", i, r.n)
		}
	}
	if st := n.Status(); st.BytesUp != loadConns*(loadBytes+8) || st.BytesDown != loadConns*loadBytes {
		t.Errorf("byte counters up %d down %d", st.BytesUp, st.BytesDown)
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
