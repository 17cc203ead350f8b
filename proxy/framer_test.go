package proxy

import (
	"bytes"
	"testing"
)

// splits cuts data into chunks at the positions cuts chooses (its bytes, taken as lengths).
func splits(data, cuts []byte) [][]byte {
	var out [][]byte
	for i := 0; len(data) > 0; i++ {
		k := len(data)
		if i < len(cuts) {
			k = min(k, int(cuts[i])+1)
		}
		out = append(out, data[:k])
		data = data[k:]
	}
	return out
}

// runServer feeds the chunks through a server framer, as the server pump does.
func runServer(chunks [][]byte) ([]byte, serverFramer) {
	var f serverFramer
	var out []byte
	for _, c := range chunks {
		c = bytes.Clone(c)
		if !f.done() {
			f.scan(c)
		}
		out = append(out, c...)
	}
	return out, f
}

// runClient feeds the chunks through a client framer with the client pump's carry, and
// returns the bytes passed on and the packet starts seen.
func runClient(chunks [][]byte) ([]byte, []packetStart) {
	var f clientFramer
	var out []byte
	var starts []packetStart
	var carry []byte
	for i, c := range chunks {
		p := append(carry, c...)
		carry = nil
		last := i == len(chunks)-1
		for len(p) > 0 {
			n, st, ok := f.next(p)
			out = append(out, p[:n]...)
			p = p[n:]
			if !ok {
				if last {
					out = append(out, p...)
				} else {
					carry = bytes.Clone(p)
				}
				break
			}
			starts = append(starts, st)
		}
	}
	return out, starts
}

// FuzzFramer checks both framers on any bytes cut anywhere: no panic, no byte lost or added,
// the client stream unchanged, the server stream changed in at most the two capability bits,
// and the same result however the stream is cut.
func FuzzFramer(f *testing.F) {
	greeting := []byte("\x4a\x00\x00\x00\x0a8.0.36\x00\x01\x00\x00\x00abcdefgh\x00\xff\xff\x21\x02\x00\xff\x01\x15" +
		"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00ijklmnopqrst\x00mysql_native_password\x00")
	f.Add(greeting, []byte{3, 10, 200})
	f.Add(append(bytes.Clone(greeting), "\x07\x00\x00\x02\x00\x00\x00\x02\x00\x00\x00"...), []byte{0, 0, 0, 0, 0})
	f.Add([]byte("\x01\x00\x00\x00\x0e\x05\x00\x00\x00\x03SELECT 1"), []byte{1, 2})
	f.Add([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), []byte{})
	f.Add([]byte("\x17\x00\x00\x00\xff\x10\x04#08004Too many connections"), []byte{5})
	f.Add([]byte{}, []byte{})
	f.Fuzz(func(t *testing.T, data, cuts []byte) {
		whole, wf := runServer([][]byte{data})
		cut, cf := runServer(splits(data, cuts))
		if !bytes.Equal(whole, cut) || wf.state != cf.state {
			t.Fatalf("server framer depends on the cuts: %q vs %q", whole, cut)
		}
		if len(whole) != len(data) {
			t.Fatalf("server framer changed the length: %d -> %d", len(data), len(whole))
		}
		changed := 0
		for i := range data {
			if d := data[i] ^ whole[i]; d != 0 {
				changed++
				if d&^(capCompress|capSSL>>8) != 0 || whole[i]&d != 0 {
					t.Fatalf("byte %d changed beyond the capability bits: %#x -> %#x", i, data[i], whole[i])
				}
			}
		}
		if changed > 2 {
			t.Fatalf("%d bytes changed", changed)
		}

		cw, sw := runClient([][]byte{data})
		cc, sc := runClient(splits(data, cuts))
		if !bytes.Equal(cw, data) || !bytes.Equal(cc, data) {
			t.Fatalf("client framer lost or changed bytes")
		}
		if len(sw) != len(sc) {
			t.Fatalf("client framer found %d packets whole, %d cut", len(sw), len(sc))
		}
		for i := range sw {
			if sw[i] != sc[i] {
				t.Fatalf("packet %d: %+v whole, %+v cut", i, sw[i], sc[i])
			}
		}
	})
}

func TestServerFramerGreetingAndLogin(t *testing.T) {
	greeting := []byte("\x4a\x00\x00\x00\x0a8.0.36\x00\x01\x00\x00\x00abcdefgh\x00\xff\xff\x21\x02\x00\xff\x01\x15" +
		"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00ijklmnopqrst\x00mysql_native_password\x00")
	out, f := runServer(splits(greeting, []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}))
	i := 4 + 1 + len("8.0.36") + 1 + 4 + 8 + 1
	if out[i] != 0xff&^capCompress || out[i+1] != 0xff&^(capSSL>>8) {
		t.Fatalf("capabilities %x %x", out[i], out[i+1])
	}
	if f.state != srvAuth {
		t.Fatalf("state %d after the greeting", f.state)
	}
	f.scan([]byte("\x02\x00\x00\x02\x01\x03")) // auth more data: fast auth ok
	if f.done() {
		t.Fatal("done before the OK")
	}
	f.scan([]byte("\x07\x00\x00\x03\x00\x00\x00\x02\x00\x00\x00"))
	if !f.done() || f.state != srvCommand {
		t.Fatal("login not seen")
	}
	var g serverFramer
	g.scan([]byte("HTTP/1.1 200 OK\r\n"))
	if g.state != srvRaw || g.reason == "" {
		t.Fatal("garbage not detected")
	}
}
