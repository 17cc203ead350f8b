package proxy

import (
	"bytes"
	"io"
	"net"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/failsim/failsim/fault"
)

// TestHooksForEveryWireFault checks the one lookup: every fault a proxy makes real has its
// hooks, of its own kind, and no simulator-only fault has any.
func TestHooksForEveryWireFault(t *testing.T) {
	var chance []fault.Kind
	for _, k := range fault.Kinds() {
		f := hooksFor(Mode{Fault: fault.Fault{Kind: k}})
		if !k.Wire() {
			if f != nil {
				t.Errorf("%s is simulator-only but has hooks %T", k, f)
			}
			continue
		}
		if f == nil {
			t.Errorf("%s: no hooks", k)
			continue
		}
		if f.kind() != k {
			t.Errorf("hooks for %s say they are %s", k, f.kind())
		}
		if _, ok := f.(takesChance); ok {
			chance = append(chance, k)
		}
	}
	// Mode.validate's message names these: change it with them.
	if want := []fault.Kind{fault.Reset, fault.Close, fault.Slow}; !slices.Equal(chance, want) {
		t.Errorf("faults taking a chance %v, want %v", chance, want)
	}
}

// countingShaper is a test fault that shapes both directions: it writes each chunk in pieces
// of at most piece bytes and counts what it wrote. It counts each piece before writing it:
// once a write has returned, the peer may have read the piece, and a test that has read
// everything must find everything counted.
type countingShaper struct {
	piece    int
	up, down *atomic.Int64
}

func (countingShaper) kind() fault.Kind      { return fault.Heal }
func (countingShaper) shapes(direction) bool { return true }

func (s countingShaper) write(_ *conn, d direction, w io.Writer, p []byte) error {
	n := s.up
	if d == dirDown {
		n = s.down
	}
	for len(p) > 0 {
		k := min(s.piece, len(p))
		n.Add(int64(k))
		if _, err := w.Write(p[:k]); err != nil {
			return err
		}
		p = p[k:]
	}
	return nil
}

// echo is an upstream that is not MySQL: it sends back what it receives.
func echo(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				io.Copy(c, c)
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}

// roundTrip sends p through c and reads back as many bytes.
func roundTrip(t *testing.T, c net.Conn, p []byte) {
	t.Helper()
	errs := make(chan error, 1)
	go func() { _, err := c.Write(p); errs <- err }()
	got := make([]byte, len(p))
	c.SetReadDeadline(time.Now().Add(wait))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatalf("read back: %v", err)
	}
	if err := <-errs; err != nil {
		t.Fatalf("write: %v", err)
	}
	if !bytes.Equal(got, p) {
		t.Fatal("the bytes came back changed")
	}
}

// TestShaperTakesBytesOffSplice installs a fault that shapes bytes on an open connection:
// every byte, both ways, goes through it, byte-exact; once the mode changes, none does, and
// the server's bytes are spliced again.
func TestShaperTakesBytesOffSplice(t *testing.T) {
	_, n := start(t, echo(t), "heal")
	c := mustDial(t, n.Addr())
	for deadline := time.Now().Add(wait); n.Status().Open != 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the connection was not accepted")
		}
	}
	s := countingShaper{piece: 1000, up: new(atomic.Int64), down: new(atomic.Int64)}
	n.mu.Lock()
	for cn := range n.conns {
		cn.setMode(Mode{}, s)
	}
	n.mu.Unlock()

	const size = 256 << 10
	roundTrip(t, c, pattern(size))
	if up, down := s.up.Load(), s.down.Load(); up != size || down != size {
		t.Fatalf("the shaper wrote %d bytes up and %d down, want %d each", up, down, size)
	}
	set(t, n, "heal")
	roundTrip(t, c, pattern(size))
	if up, down := s.up.Load(), s.down.Load(); up != size || down != size {
		t.Fatalf("after heal the shaper still wrote: %d bytes up and %d down, want %d each", up, down, size)
	}
}
