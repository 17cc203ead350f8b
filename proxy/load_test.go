package proxy

import (
	"crypto/sha256"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"
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

// exchangeServer reads each connection's first 8 bytes as its id, then sends loadBytes of
// stream id+1<<32 while reading what the client sends, and reports the hash it received.
type exchangeServer struct {
	ln  net.Listener
	wg  sync.WaitGroup
	mu  sync.Mutex
	got map[uint64][32]byte
}

func newExchangeServer(t *testing.T) *exchangeServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &exchangeServer{ln: ln, got: map[uint64][32]byte{}}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				c.SetDeadline(time.Now().Add(2 * time.Minute))
				var idb [8]byte
				if _, err := io.ReadFull(c, idb[:]); err != nil {
					return
				}
				id := uint64(idb[0]) | uint64(idb[1])<<8 | uint64(idb[2])<<16
				done := make(chan struct{})
				go func() {
					defer close(done)
					stream(c, id|1<<32, loadBytes, io.Discard)
					c.(*net.TCPConn).CloseWrite()
				}()
				sum, _, _ := sink(c)
				<-done
				s.mu.Lock()
				s.got[id] = sum
				s.mu.Unlock()
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return s
}

// TestLoadIntegrity moves 1 MiB each way over 1,000 concurrent connections while the node
// switches between freeze, blackhole, stall, slow and heal: every byte arrives, in order.
func TestLoadIntegrity(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	srv := newExchangeServer(t)
	_, n := start(t, srv.ln.Addr().String(), "heal")

	conns := make([]net.Conn, loadConns)
	for i := range conns {
		c, err := net.DialTimeout("tcp", n.Addr(), 10*time.Second)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(2 * time.Minute))
		conns[i] = c
	}

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
			hdr := []byte{byte(id), byte(id >> 8), byte(id >> 16), 0, 0, 0, 0, 0}
			done := make(chan error, 1)
			go func() {
				h := sha256.New()
				if _, err := c.Write(hdr); err != nil {
					done <- err
					return
				}
				err := stream(c, id, loadBytes, h)
				copy(results[i].sent[:], h.Sum(nil))
				c.(*net.TCPConn).CloseWrite()
				done <- err
			}()
			results[i].recv, results[i].n, results[i].err = sink(c)
			results[i].err = errors.Join(results[i].err, <-done)
		}()
	}

	// A dialled connection may still sit in the listener's accept queue; blackhole replaces
	// the listener, which resets what it never accepted. Start switching once the proxy holds
	// every connection: those are the ones that must lose nothing.
	for deadline := time.Now().Add(time.Minute); n.Status().Accepted < loadConns; {
		if time.Now().After(deadline) {
			t.Fatalf("the proxy accepted %d of %d connections in a minute", n.Status().Accepted, loadConns)
		}
		time.Sleep(5 * time.Millisecond)
	}

	// Switch modes under load; every one of them must lose nothing once healed.
	for _, mode := range []string{"freeze", "heal", "stall", "heal", "blackhole", "heal",
		"slow 1ms", "heal", "freeze after 100000 bytes", "heal", "freeze", "heal"} {
		time.Sleep(30 * time.Millisecond)
		set(t, n, mode)
	}
	wg.Wait()

	for i, r := range results {
		if r.err != nil {
			t.Fatalf("connection %d: %v", i, r.err)
		}
		want := sha256.New()
		stream(io.Discard, uint64(i)|1<<32, loadBytes, want)
		if r.n != loadBytes || string(r.recv[:]) != string(want.Sum(nil)) {
			t.Fatalf("connection %d: received %d bytes, hash differs from what the server sent", i, r.n)
		}
		srv.mu.Lock()
		got := srv.got[uint64(i)]
		srv.mu.Unlock()
		if got != r.sent {
			t.Fatalf("connection %d: the server received a different stream than was sent", i)
		}
	}
	if st := n.Status(); st.BytesUp != loadConns*(loadBytes+8) || st.BytesDown != loadConns*loadBytes {
		t.Errorf("byte counters up %d down %d", st.BytesUp, st.BytesDown)
	}
}
