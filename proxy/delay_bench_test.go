package proxy

import (
	"encoding/binary"
	"io"
	"slices"
	"strconv"
	"testing"
	"time"
)

// BenchmarkDelayLateness streams 200-byte packets (about a row event of a replication
// stream) at a fixed rate for 3 s through a proxy under delay 1s, on the wall clock, and
// reports how much later than the delay they reach the server: a faithful delay adds only
// scheduling noise, a delay that slows the stream adds more and more. Each sub-benchmark is
// one rate; b.N is ignored (run it with -benchtime 1x).
//
//	go test ./proxy/ -run '^$' -bench DelayLateness -benchtime 1x
func BenchmarkDelayLateness(b *testing.B) {
	const (
		d      = time.Second
		length = 3 * time.Second
		size   = 200
	)
	for _, rate := range []int{200, 1000, 5000, 20000, 50000} {
		b.Run("packets/s="+strconv.Itoa(rate), func(b *testing.B) {
			addr, conns := upstreamSink(b)
			_, n := start(b, addr, "delay 1s")
			c := mustDial(b, n.Addr())
			up := accepted(b, conns)
			total := rate * int(length/time.Second)
			late := make(chan []time.Duration, 1)
			go func() { // the server: each packet's lateness beyond the delay
				var ls []time.Duration
				p := make([]byte, headerLen+size)
				up.SetReadDeadline(time.Now().Add(length + 30*d))
				for range total {
					if _, err := io.ReadFull(up, p); err != nil {
						break
					}
					sent := time.Unix(0, int64(binary.LittleEndian.Uint64(p[headerLen:])))
					ls = append(ls, time.Since(sent)-d)
				}
				late <- ls
			}()
			// The client: every millisecond, the packets due by then, each a write of its own.
			payload := make([]byte, size)
			begin := time.Now()
			for sent := 0; sent < total; {
				due := int(time.Since(begin) * time.Duration(rate) / time.Second)
				for ; sent < min(due, total); sent++ {
					binary.LittleEndian.PutUint64(payload, uint64(time.Now().UnixNano()))
					if _, err := c.Write(packet(1, payload)); err != nil {
						b.Fatal(err)
					}
				}
				time.Sleep(time.Millisecond)
			}
			ls := <-late
			if len(ls) < total {
				b.Fatalf("%d of %d packets arrived", len(ls), total)
			}
			slices.Sort(ls)
			over := 0
			for _, l := range ls {
				if l > d/10 {
					over++
				}
			}
			ms := func(l time.Duration) float64 { return float64(l) / float64(time.Millisecond) }
			b.ReportMetric(ms(ls[len(ls)/2]), "p50-late-ms")
			b.ReportMetric(ms(ls[len(ls)*99/100]), "p99-late-ms")
			b.ReportMetric(ms(ls[len(ls)-1]), "max-late-ms")
			b.ReportMetric(100*float64(over)/float64(len(ls)), "%-over-100ms")
		})
	}
}
