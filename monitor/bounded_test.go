package monitor

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/failsim/failsim/statemap"
)

// hugeGreeter listens on a free loopback port and answers every connection with packet headers
// of 16 MiB-1 bytes, followed by as many payload bytes as the client takes, until it goes: the
// greeting that drove watch to 1.75 GB and out of memory.
func hugeGreeter(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				chunk := make([]byte, 1<<16)
				for seq := byte(0); ; seq++ {
					if _, err := c.Write([]byte{0xff, 0xff, 0xff, seq}); err != nil {
						return
					}
					for left := 0xffffff; left > 0; left -= len(chunk) {
						if _, err := c.Write(chunk[:min(left, len(chunk))]); err != nil {
							return
						}
					}
				}
			}(c)
		}
	}()
	return ln.Addr().String()
}

// A probe of a server whose greeting is huge ends at once in unexpected_exception, having
// allocated nothing near the packet's size.
func TestProbeRefusesHugeGreeting(t *testing.T) {
	addr := hugeGreeter(t)
	chk, err := NewChecker(CheckerConfig{DSN: "probe:pw@tcp(" + addr + ")/", Budget: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var res Result
	for range 5 {
		res = chk.Probe(context.Background())
	}
	runtime.ReadMemStats(&after)
	if res.Condition != statemap.UnexpectedException {
		t.Fatalf("probe = %s (%v), want unexpected_exception", res.Condition, res.Err)
	}
	var pe *ProtocolError
	if !errors.As(res.Err, &pe) || pe.What != "greeting" || pe.Bytes != 0xffffff {
		t.Fatalf("probe's error = %v, want the greeting's protocol error", res.Err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Fatalf("5 probes allocated %d bytes, want well under one 16 MiB packet", got)
	}
}

// The live replay's pools go through the same guard.
func TestBoundPool(t *testing.T) {
	addr := hugeGreeter(t)
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "writer", "tcp", addr
	cfg.Timeout = 2 * time.Second
	cfg.Logger = &mysql.NopLogger{}
	Bound(cfg)
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err = db.PingContext(context.Background())
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("Ping of a server with a huge greeting succeeded")
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Fatalf("a refused ping allocated %d bytes", got)
	}
}

// The guard follows the framing whatever the reads' sizes: a header split over reads, several
// packets in one read; a healthy exchange passes and the first oversized header is caught.
func TestPacketGuardFraming(t *testing.T) {
	pkt := func(n int) []byte {
		b := []byte{byte(n), byte(n >> 8), byte(n >> 16), 0}
		return append(b, make([]byte, n)...)
	}
	var stream []byte
	stream = append(stream, pkt(90)...) // greeting
	stream = append(stream, pkt(7)...)  // OK
	stream = append(stream, pkt(PacketMax)...)
	for _, step := range []int{1, 3, 4, 5, 4096, len(stream)} {
		var g packetGuard
		for i := 0; i < len(stream); i += step {
			if err := g.feed(stream[i:min(i+step, len(stream))]); err != nil {
				t.Fatalf("step %d: healthy stream refused at %d: %v", step, i, err)
			}
		}
		if g.packets != 3 || g.left != 0 || g.nhdr != 0 {
			t.Fatalf("step %d: guard at packets=%d left=%d nhdr=%d", step, g.packets, g.left, g.nhdr)
		}
		bad := append(append([]byte{}, pkt(5)...), 1, 0, 0x10, 0) // a packet of 1 MiB + 1
		if err := g.feed(bad[:len(bad)-1]); err != nil {
			t.Fatalf("step %d: refused before the header was whole: %v", step, err)
		}
		var pe *ProtocolError
		if err := g.feed(bad[len(bad)-1:]); !errors.As(err, &pe) || pe.What != "packet" || pe.Bytes != PacketMax+1 {
			t.Fatalf("step %d: oversized packet = %v", step, err)
		}
	}
	var g packetGuard
	if err := g.feed(pkt(GreetingMax + 1)[:4]); err == nil {
		t.Fatal("a greeting over GreetingMax passed")
	}
	g = packetGuard{maxTotal: 10}
	if err := g.feed(make([]byte, 11)); err == nil {
		t.Fatal("a probe over its total passed")
	}
}
