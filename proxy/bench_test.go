package proxy

import (
	"io"
	"math/rand/v2"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/failsim/failsim/internal/fakemysql"
)

const benchChunk = 64 << 10

// streamServer accepts connections and, per connection, either sends an endless random stream
// (down) or reads everything it is sent (up).
func streamServer(b *testing.B, down bool) string {
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
				if !down {
					io.Copy(io.Discard, c)
					return
				}
				buf := make([]byte, benchChunk)
				rand.NewChaCha8([32]byte{1}).Read(buf)
				for {
					if _, err := c.Write(buf); err != nil {
						return
					}
				}
			}()
		}
	}()
	b.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}

// BenchmarkThroughput moves 64 KiB per iteration over one connection, directly and through a
// proxy in pass mode, server to client (down) and client to server (up).
func BenchmarkThroughput(b *testing.B) {
	for _, dir := range []string{"down", "up"} {
		for _, via := range []string{"direct", "proxy"} {
			b.Run(dir+"/"+via, func(b *testing.B) {
				addr := streamServer(b, dir == "down")
				if via == "proxy" {
					_, n := start(b, addr, "heal")
					addr = n.Addr()
				}
				c, err := net.Dial("tcp", addr)
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				buf := make([]byte, benchChunk)
				rand.NewChaCha8([32]byte{2}).Read(buf)
				b.SetBytes(benchChunk)
				b.ResetTimer()
				for range b.N {
					if dir == "down" {
						_, err = io.ReadFull(c, buf)
					} else {
						_, err = c.Write(buf)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
			})
		}
	}
}

// BenchmarkRoundTrip measures COM_PING round trips against the fake MySQL server, directly
// and through a proxy in pass mode, and reports their p50 and p99 in microseconds.
func BenchmarkRoundTrip(b *testing.B) {
	for _, via := range []string{"direct", "proxy"} {
		b.Run(via, func(b *testing.B) {
			addr := fakemysql.Start(b, fakemysql.Config{}).Addr()
			if via == "proxy" {
				_, n := start(b, addr, "heal")
				addr = n.Addr()
			}
			c, err := net.Dial("tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			rc := newRaw(c.(*net.TCPConn))
			rc.login(b)
			c.SetReadDeadline(time.Time{})
			ping := []byte{1, 0, 0, 0, 0x0e}
			reply := make([]byte, 11)
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				if _, err := c.Write(ping); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(rc.r, reply); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
		})
	}
}
