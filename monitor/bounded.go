package monitor

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/go-sql-driver/mysql"
)

// What a server may make failsim hold. go-sql-driver/mysql allocates a packet's whole length as
// soon as it reads the packet's 4-byte header, and joins packets of 16 MiB-1 into one payload
// without end, so a server (or anything that answers on its port) that sends such headers as
// its greeting takes the process's memory before any timeout can act. Every connection failsim
// makes to a server goes through a packetGuard, which follows the packet framing of the bytes
// the server sends and fails the read that carries a header over the bound, before the driver
// sees it.
const (
	// GreetingMax bounds the server's first packet, its greeting: MariaDB's and MySQL's are
	// about 100 bytes.
	GreetingMax = 16 << 10
	// PacketMax bounds every later packet: a probe's or a replication statement's rows are
	// small, and a row of a megabyte is not what failsim asks for.
	PacketMax = 1 << 20
	// ProbeMax bounds all the bytes one probe reads, greeting, login and result together.
	ProbeMax = 4 << 20
)

// ProtocolError is a server's packet failsim refuses: a header longer than the bound, or more
// bytes in one probe than ProbeMax. A probe that meets one ends in unexpected_exception, as the
// reference checker's does on a packet it cannot read (docs/live.md).
type ProtocolError struct {
	What  string // "greeting", "packet" or "probe"
	Bytes int64  // the length the header claimed, or the bytes read so far
	Max   int64
}

func (e *ProtocolError) Error() string {
	if e.What == "probe" {
		return fmt.Sprintf("protocol error: the server sent over %d bytes in one probe", e.Max)
	}
	return fmt.Sprintf("protocol error: a %s of %d bytes, over the %d bytes failsim reads", e.What, e.Bytes, e.Max)
}

// packetGuard follows the MySQL packet framing of what a server sends (uncompressed: failsim
// turns the driver's compression off) and refuses what is over its bounds. The zero value has
// no total bound.
type packetGuard struct {
	hdr      [4]byte
	nhdr     int   // header bytes of the next packet seen so far
	left     int   // payload bytes of the current packet still to come
	packets  int   // headers seen
	total    int64 // bytes seen
	maxTotal int64 // 0: no bound
	err      error // the first refusal: every later read fails with it
}

// feed looks at bytes the server sent, in order, and returns a *ProtocolError once they break
// a bound.
func (g *packetGuard) feed(p []byte) error {
	if g.err != nil {
		return g.err
	}
	g.total += int64(len(p))
	if g.maxTotal > 0 && g.total > g.maxTotal {
		g.err = &ProtocolError{What: "probe", Bytes: g.total, Max: g.maxTotal}
		return g.err
	}
	for len(p) > 0 {
		if g.left > 0 {
			k := min(g.left, len(p))
			g.left -= k
			p = p[k:]
			continue
		}
		k := copy(g.hdr[g.nhdr:], p)
		g.nhdr += k
		p = p[k:]
		if g.nhdr < 4 {
			return nil
		}
		n := int(g.hdr[0]) | int(g.hdr[1])<<8 | int(g.hdr[2])<<16
		what, limit := "packet", PacketMax
		if g.packets == 0 {
			what, limit = "greeting", GreetingMax
		}
		if n > limit {
			g.err = &ProtocolError{What: what, Bytes: int64(n), Max: int64(limit)}
			return g.err
		}
		g.packets++
		g.left, g.nhdr = n, 0
	}
	return nil
}

// guardedConn hands the driver only what its guard lets through.
type guardedConn struct {
	net.Conn
	g packetGuard
}

func (c *guardedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if gerr := c.g.feed(p[:n]); gerr != nil {
		c.Conn.Close()
		return 0, gerr
	}
	return n, err
}

// Bound makes every connection of cfg go through a packetGuard and turns compression off. The
// live replay's pools (writer, admin, readers) use it; the checker's wire has its own guard.
func Bound(cfg *mysql.Config) {
	cfg.Apply(mysql.EnableCompression(false))
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		d := net.Dialer{Timeout: cfg.Timeout}
		if cfg.Timeout == 0 {
			d.Timeout = 30 * time.Second
		}
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &guardedConn{Conn: c}, nil
	}
}
