package proxy

import (
	"io"
	"net"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// rowStream returns at least size bytes of whole row packets of cols columns, each cell of
// width bytes: a result's rows, to be repeated.
func rowStream(size, cols, width int) []byte {
	cells := make([]string, cols)
	for i := range cells {
		cells[i] = strings.Repeat(string(rune('a'+i%26)), width)
	}
	var b []byte
	for seq := byte(0); len(b) < size; seq++ {
		b = append(b, row(seq, cells...)...)
	}
	return b
}

// loggedIn returns a rewriter past the login and the query q, with the column definitions of
// cols read.
func loggedIn(q string, cols []string) *rewriter {
	r := newRewriter("127.0.0.1:4001", testRoutes, &atomic.Uint64{})
	for _, x := range loginExchanges(testCaps) {
		r.client(x.client)
		r.server(x.server)
	}
	r.client(query(q))
	head := pkt(1, appendLenenc(nil, uint64(len(cols))))
	for i, c := range cols {
		head = append(head, colDef(byte(2+i), c)...)
	}
	head = append(head, eofPacket(byte(2+len(cols)), 0)...)
	r.server(head)
	return r
}

// BenchmarkRewriter feeds a result's rows through a rewriter in 64 KiB chunks: a result that
// does not report topology (pass: the rewriter only follows the packet headers), and the
// worst case, a SHOW SLAVE HOSTS of endless rows, every one held, parsed and rewritten.
func BenchmarkRewriter(b *testing.B) {
	cases := []struct {
		name, q string
		cols    []string
		stream  []byte
	}{
		{"pass", "SELECT * FROM t", []string{"a", "b", "c", "d"}, rowStream(1<<20, 4, 50)},
		{"topology", "SHOW SLAVE HOSTS", []string{"Server_id", "Host", "Port", "Master_id"}, func() []byte {
			var s []byte
			for len(s) < 1<<20 {
				s = append(s, row(0, "2", "127.0.0.1", "3307", "1")...)
			}
			return s
		}()},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			r := loggedIn(c.q, c.cols)
			b.SetBytes(benchChunk)
			b.ReportAllocs()
			off := 0
			b.ResetTimer()
			for range b.N {
				end := min(off+benchChunk, len(c.stream))
				r.server(c.stream[off:end])
				off = end % len(c.stream)
			}
		})
	}
}

// rowServer serves, per connection, a login and then, for the client's one query, an endless
// result: its column definitions, then the rows of stream over and over.
func rowServer(b *testing.B, stream []byte) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
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
				c.Write(greeting())
				if _, err := io.ReadFull(c, make([]byte, len(login(testCaps)))); err != nil {
					return
				}
				c.Write(okPacket(2, 0))
				if _, err := io.ReadFull(c, make([]byte, len(query("SELECT * FROM t")))); err != nil {
					return
				}
				head := pkt(1, []byte{4})
				for i, name := range []string{"a", "b", "c", "d"} {
					head = append(head, colDef(byte(2+i), name)...)
				}
				c.Write(append(head, eofPacket(6, 0)...))
				for {
					if _, err := c.Write(stream); err != nil {
						return
					}
				}
			}()
		}
	}()
	b.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRewriteProxy moves a result's rows, 64 KiB per iteration, through a real proxy node
// with rewriting off (spliced) and on (copied through the rewriter), and reports the whole
// process's CPU seconds per GB moved (the server, the client and the proxy, all in process:
// the difference between the two is the rewriting's).
func BenchmarkRewriteProxy(b *testing.B) {
	stream := rowStream(1<<20, 4, 50)
	for _, rewrite := range []bool{false, true} {
		name := "off"
		if rewrite {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			p, err := New(Config{Seed: 1, Nodes: []NodeConfig{{Name: "db", Listen: "127.0.0.1:0", Upstream: rowServer(b, stream), RewriteTopology: rewrite}}})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			n, _ := p.Node("db")
			c, err := net.Dial("tcp", n.Addr())
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			if _, err := io.ReadFull(c, make([]byte, len(greeting()))); err != nil {
				b.Fatal(err)
			}
			c.Write(login(testCaps))
			if _, err := io.ReadFull(c, make([]byte, len(okPacket(2, 0)))); err != nil {
				b.Fatal(err)
			}
			c.Write(query("SELECT * FROM t"))
			buf := make([]byte, benchChunk)
			b.SetBytes(benchChunk)
			b.ResetTimer()
			cpu0 := cpuTime()
			for range b.N {
				if _, err := io.ReadFull(c, buf); err != nil {
					b.Fatal(err)
				}
			}
			cpu := cpuTime() - cpu0
			b.StopTimer()
			b.ReportMetric(cpu.Seconds()/(float64(b.N)*benchChunk/1e9), "cpu-s/GB")
		})
	}
}
