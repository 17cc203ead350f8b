package proxy

// MySQL framing: only as much as the proxy needs. Every packet is a 3-byte little-endian
// payload length, a 1-byte sequence id, then the payload.

const (
	headerLen = 4

	capCompress = 0x0020 // CLIENT_COMPRESS, low byte of the lower capability flags
	capSSL      = 0x0800 // CLIENT_SSL, high byte of the lower capability flags

	maxGreetingLen = 1 << 16 // a greeting longer than this is not a MySQL server
)

// serverState is where the server framer is in the connection phase.
type serverState uint8

const (
	srvGreeting serverState = iota // reading the greeting (or the ERR sent instead of it)
	srvAuth                        // login exchange: auth switch, more data, until OK or ERR
	srvCommand                     // login done: the framer only counts, never looks
	srvRaw                         // not MySQL: plain byte forwarding
)

// serverFramer follows the server-to-client stream through the connection phase. It observes
// the bytes and changes exactly two bits: CLIENT_COMPRESS and CLIENT_SSL in the greeting's
// capability flags, so the client neither compresses nor switches to TLS and the rest of the
// session stays parseable. Its zero value expects a greeting.
type serverFramer struct {
	state serverState
	hdr   [headerLen]byte
	nhdr  int // header bytes seen of the current packet
	left  int // payload bytes left in the current packet
	pos   int // position in the current payload
	first bool

	verDone bool   // the greeting's NUL-terminated server version has been passed
	capsAt  int    // greeting payload offset of the capability flags, once known
	reason  string // why the stream fell back to raw, for the warning
}

// scan observes p, the next bytes from the server, patching the greeting in place. Bytes are
// never added or removed. After scan, done reports whether the login finished.
func (f *serverFramer) scan(p []byte) {
	for i := 0; i < len(p); {
		switch f.state {
		case srvCommand, srvRaw:
			return
		}
		if f.left == 0 && f.nhdr < headerLen {
			f.hdr[f.nhdr] = p[i]
			f.nhdr++
			i++
			if f.nhdr == headerLen {
				f.startPacket()
			}
			continue
		}
		// inside a payload
		if f.state == srvGreeting {
			f.greetingByte(&p[i])
			f.pos++
			f.left--
			i++
		} else {
			if f.first {
				f.first = false
				switch p[i] {
				case 0x00: // OK: logged in
					f.state = srvCommand
				case 0xff: // ERR: login refused, the server closes
					f.state = srvCommand
				}
			}
			k := min(f.left, len(p)-i)
			f.left -= k
			f.pos += k
			i += k
		}
		if f.left == 0 {
			f.endPacket()
		}
	}
}

// startPacket runs when a header is complete.
func (f *serverFramer) startPacket() {
	n := int(f.hdr[0]) | int(f.hdr[1])<<8 | int(f.hdr[2])<<16
	f.left, f.pos, f.first = n, 0, true
	if f.state == srvGreeting {
		if f.hdr[3] != 0 || n == 0 || n > maxGreetingLen {
			f.raw("the first packet from the server is not a MySQL greeting")
			return
		}
	}
	if n == 0 {
		f.endPacket()
	}
}

// endPacket runs when a payload is complete.
func (f *serverFramer) endPacket() {
	f.nhdr = 0
	if f.state != srvGreeting {
		return
	}
	switch {
	case f.errGreeting():
		f.state = srvCommand // an ERR instead of the greeting: the server closes
	case f.capsAt <= 0 || f.pos < f.capsAt+2:
		f.raw("the server's greeting is too short to hold capability flags")
	default:
		f.state = srvAuth
	}
}

// errGreeting reports whether the greeting packet was an ERR.
func (f *serverFramer) errGreeting() bool { return f.verDone && f.capsAt < 0 }

// greetingByte looks at the greeting payload byte at f.pos and patches it if it is one of
// the two capability bytes.
func (f *serverFramer) greetingByte(b *byte) {
	switch {
	case f.pos == 0:
		switch *b {
		case 10: // protocol 10
		case 0xff: // ERR instead of the greeting (1040 and friends)
			f.verDone, f.capsAt = true, -1
		default:
			f.raw("the server's greeting is not protocol 10")
		}
	case !f.verDone:
		if *b == 0 {
			f.verDone = true
			// NUL, then connection id (4), auth data part 1 (8), filler (1)
			f.capsAt = f.pos + 1 + 4 + 8 + 1
		}
	case f.capsAt > 0 && f.pos == f.capsAt:
		*b &^= capCompress
	case f.capsAt > 0 && f.pos == f.capsAt+1:
		*b &^= capSSL >> 8
	}
}

// raw gives up on parsing: the rest of the stream is forwarded as plain bytes.
func (f *serverFramer) raw(reason string) {
	f.state, f.reason = srvRaw, reason
}

// done reports whether the framer has stopped looking: login finished, or raw.
func (f *serverFramer) done() bool { return f.state >= srvCommand }

// packetStart is one client packet as the client framer reports it at its first byte.
type packetStart struct {
	seq   byte // the sequence id: 0 starts a command
	cmd   int  // the first payload byte (the command for seq 0); -1 for an empty payload
	total int  // header plus payload bytes
}

// clientFramer finds where each client packet begins. It never changes a byte. Its zero value
// expects a packet header.
type clientFramer struct {
	left int // bytes of the current packet (header included) not yet passed
}

// next scans p and returns n, how many leading bytes of p belong to the packet in progress.
// If n < len(p), p[n:] begins a packet: when ok, start describes it and the framer now
// counts it as in progress; when !ok, p[n:] holds too few bytes to see its header and first
// payload byte, and the caller must offer them again with what follows.
func (f *clientFramer) next(p []byte) (n int, start packetStart, ok bool) {
	if f.left > 0 {
		n = min(f.left, len(p))
		f.left -= n
		if n == len(p) {
			return n, packetStart{}, false
		}
	}
	rest := p[n:]
	if len(rest) < headerLen {
		return n, packetStart{}, false
	}
	size := int(rest[0]) | int(rest[1])<<8 | int(rest[2])<<16
	start = packetStart{seq: rest[3], cmd: -1, total: headerLen + size}
	if size > 0 {
		if len(rest) < headerLen+1 {
			return n, packetStart{}, false
		}
		start.cmd = int(rest[4])
	}
	f.left = start.total
	return n, start, true
}
