package proxy

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// A session as the wire carries it, built packet by packet: what the client sends and what
// the server answers, in the order they happen.

const (
	capDeprecateEOF = 1 << 24
	testCaps        = capProtocol41 | 0x8000 /* secure connection */ | 0x00080000 /* plugin auth */ | 0x00010000 /* multi statements */
)

// pkt frames payload as one packet with sequence id seq (payloads of 16 MiB and more are split).
func pkt(seq byte, payload []byte) []byte {
	var b []byte
	for {
		n := min(len(payload), maxPayload)
		b = append(b, byte(n), byte(n>>8), byte(n>>16), seq)
		b = append(b, payload[:n]...)
		payload = payload[n:]
		seq++
		if n < maxPayload {
			return b
		}
	}
}

func greeting() []byte {
	p := []byte{10}
	p = append(p, "5.5.5-10.11.6-MariaDB\x00"...)
	p = append(p, 1, 0, 0, 0)            // connection id
	p = append(p, "abcdefgh"...)         // auth data 1
	p = append(p, 0)                     // filler
	p = append(p, 0xfe, 0xf7)            // caps low
	p = append(p, 8, 2, 0)               // charset, status
	p = append(p, 0xff, 0x81)            // caps high
	p = append(p, 21)                    // auth data length
	p = append(p, make([]byte, 10)...)   // reserved
	p = append(p, "ijklmnopqrst\x00"...) // auth data 2
	p = append(p, "mysql_native_password\x00"...)
	return pkt(0, p)
}

func login(caps uint32) []byte {
	p := binary.LittleEndian.AppendUint32(nil, caps)
	p = append(p, 0, 0, 0, 1, 45)
	p = append(p, make([]byte, 23)...)
	p = append(p, "root\x00"...)
	p = append(p, 0)
	return pkt(1, p)
}

func okPacket(seq byte, status uint16) []byte {
	return pkt(seq, []byte{0, 0, 0, byte(status), byte(status >> 8), 0, 0})
}

func eofPacket(seq byte, status uint16) []byte {
	return pkt(seq, []byte{0xfe, 0, 0, byte(status), byte(status >> 8)})
}

func query(q string) []byte { return pkt(0, append([]byte{rwComQuery}, q...)) }

func colDef(seq byte, name string) []byte {
	var p []byte
	for _, s := range []string{"def", "", "", "", name, name} {
		p = appendLenenc(p, uint64(len(s)))
		p = append(p, s...)
	}
	p = append(p, 0x0c, 8, 0, 0xff, 0, 0, 0, 0xfd, 0, 0, 0, 0, 0)
	return pkt(seq, p)
}

// null is a NULL cell in row.
const null = "\x00NULL"

func row(seq byte, cells ...string) []byte {
	var p []byte
	for _, c := range cells {
		if c == null {
			p = append(p, 0xfb)
			continue
		}
		p = appendLenenc(p, uint64(len(c)))
		p = append(p, c...)
	}
	return pkt(seq, p)
}

// result is a whole result set: its columns and rows, the end carrying status.
func result(deprecateEOF bool, status uint16, cols []string, rows ...[]string) []byte {
	seq := byte(1)
	b := pkt(seq, appendLenenc(nil, uint64(len(cols))))
	for _, c := range cols {
		seq++
		b = append(b, colDef(seq, c)...)
	}
	if !deprecateEOF {
		seq++
		b = append(b, eofPacket(seq, 0)...)
	}
	for _, r := range rows {
		seq++
		b = append(b, row(seq, r...)...)
	}
	seq++
	if deprecateEOF {
		return append(b, pkt(seq, []byte{0xfe, 0, 0, byte(status), byte(status >> 8), 0, 0})...)
	}
	return append(b, eofPacket(seq, status)...)
}

// exchange is one step of a session: bytes from the client, then the server's answer.
type exchange struct{ client, server []byte }

// testRoutes are the proxies of a three-node cluster: db1 is the node the session goes through.
var testRoutes = []topoRoute{
	{real: "127.0.0.1:3306", proxy: "127.0.0.1:4001"},
	{real: "127.0.0.1:3307", proxy: "127.0.0.1:4002"},
	{real: "db3.example:3308", proxy: "127.0.0.1:4003"},
	{real: "127.0.0.1:5555", proxy: "127.0.0.1:4001"}, // another address of db1's server
}

// session runs the exchanges through a rewriter, feeding the server's bytes in chunks of
// chunk bytes (all at once for 0); it returns what the client received and the rewrites.
func session(t testing.TB, chunk int, xs ...exchange) ([]byte, uint64) {
	t.Helper()
	var n atomic.Uint64
	r := newRewriter("127.0.0.1:4001", testRoutes, &n)
	var out []byte
	for _, x := range xs {
		r.client(x.client)
		s := x.server
		for len(s) > 0 {
			k := len(s)
			if chunk > 0 {
				k = min(chunk, k)
			}
			out = append(out, r.server(s[:k])...)
			s = s[k:]
		}
	}
	return append(out, r.flush()...), n.Load()
}

// loginExchanges are the connection phase: greeting, login, OK.
func loginExchanges(caps uint32) []exchange {
	return []exchange{{server: greeting()}, {client: login(caps), server: okPacket(2, 0)}}
}

// rows decodes the result sets of a server stream after the login: each packet's sequence id
// and, for rows, the cells; it fails t on a framing error.
func decodeRows(t testing.TB, b []byte) (rows [][]string) {
	t.Helper()
	for len(b) > 0 {
		if len(b) < 4 {
			t.Fatalf("a header cut short: % x", b)
		}
		n := int(b[0]) | int(b[1])<<8 | int(b[2])<<16
		if len(b) < 4+n {
			t.Fatalf("a packet of %d bytes with %d left", n, len(b)-4)
		}
		p := b[4 : 4+n]
		b = b[4+n:]
		var cells []string
		q := p
		for len(q) > 0 {
			if q[0] == 0xfb {
				cells = append(cells, "NULL")
				q = q[1:]
				continue
			}
			s, w, ok := lenencStr(q)
			if !ok {
				cells = nil
				break
			}
			cells = append(cells, string(s))
			q = q[w:]
		}
		if cells != nil {
			rows = append(rows, cells)
		}
	}
	return rows
}

// seqs returns the sequence id of each packet of b, and whether b splits into whole packets.
func seqs(b []byte) ([]byte, bool) {
	var s []byte
	for len(b) > 0 {
		if len(b) < 4 {
			return s, false
		}
		n := int(b[0]) | int(b[1])<<8 | int(b[2])<<16
		if len(b) < 4+n {
			return s, false
		}
		s = append(s, b[3])
		b = b[4+n:]
	}
	return s, true
}

// afterLogin cuts what the client received down to the answers after the login.
func afterLogin(out []byte) []byte {
	return out[len(greeting())+len(okPacket(2, 0)):]
}

func TestRewriteShowSlaveHosts(t *testing.T) {
	for _, deprecate := range []bool{false, true} {
		for _, q := range []string{"SHOW SLAVE HOSTS", "show replica hosts", "/* orchestrator */ SHOW   REPLICAS", "  Show Slave\nHosts;"} {
			t.Run(fmt.Sprintf("%s/deprecate=%v", q, deprecate), func(t *testing.T) {
				res := result(deprecate, 0, []string{"Server_id", "Host", "Port", "Master_id"},
					[]string{"2", "127.0.0.1", "3307", "1"},
					[]string{"3", "DB3.example", "3308", "1"},
					[]string{"4", "10.0.0.9", "3306", "1"}, // a server no proxy knows
					[]string{"5", null, "3309", "1"})
				xs := append(loginExchanges(testCaps), exchange{client: query(q), server: res})
				out, n := session(t, 0, xs...)
				got := decodeRows(t, afterLogin(out))
				want := [][]string{{"2", "127.0.0.1", "4002", "1"}, {"3", "127.0.0.1", "4003", "1"}, {"4", "10.0.0.9", "3306", "1"}, {"5", "NULL", "3309", "1"}}
				if !slices.ContainsFunc(got, func(r []string) bool { return slices.Equal(r, want[0]) }) ||
					!slices.ContainsFunc(got, func(r []string) bool { return slices.Equal(r, want[1]) }) ||
					!slices.ContainsFunc(got, func(r []string) bool { return slices.Equal(r, want[2]) }) ||
					!slices.ContainsFunc(got, func(r []string) bool { return slices.Equal(r, want[3]) }) {
					t.Fatalf("rows %q, want %q among them", got, want)
				}
				if n != 3 {
					t.Errorf("%d values rewritten, want 3 (one port, one host and port)", n)
				}
				in, _ := seqs(res)
				o, ok := seqs(afterLogin(out))
				if !ok || !bytes.Equal(in, o) {
					t.Errorf("sequence ids %v (whole %v), want %v", o, ok, in)
				}
			})
		}
	}
}

func TestRewriteSlaveStatus(t *testing.T) {
	cols := []string{"Slave_IO_State", "Master_Host", "Master_User", "Master_Port", "Connect_Retry"}
	for _, q := range []string{"SHOW SLAVE STATUS", "SHOW REPLICA STATUS", "SHOW ALL SLAVES STATUS", "SHOW SLAVE 'a' STATUS", "show slave status for channel ''"} {
		res := result(false, 0, cols, []string{"Waiting for master", "127.0.0.1", "repl", "5555", "1"})
		out, n := session(t, 0, append(loginExchanges(testCaps), exchange{client: query(q), server: res})...)
		got := decodeRows(t, afterLogin(out))
		want := []string{"Waiting for master", "127.0.0.1", "repl", "4001", "1"}
		if !slices.ContainsFunc(got, func(r []string) bool { return slices.Equal(r, want) }) || n != 1 {
			t.Errorf("%s: rows %q (%d rewrites), want %q", q, got, n, want)
		}
	}
	// MySQL 8's names.
	res := result(true, 0, []string{"Source_Host", "Source_Port"}, []string{"localhost", "3307"})
	out, _ := session(t, 0, append(loginExchanges(testCaps), exchange{client: query("SHOW REPLICA STATUS"), server: res})...)
	if got := decodeRows(t, afterLogin(out)); !slices.ContainsFunc(got, func(r []string) bool { return slices.Equal(r, []string{"127.0.0.1", "4002"}) }) {
		t.Errorf("Source_Host/Port: rows %q", got)
	}
}

func TestRewriteSelectVariables(t *testing.T) {
	cases := []struct {
		q     string
		cols  []string
		cells []string
		want  []string
	}{
		{"SELECT @@hostname, @@port", []string{"@@hostname", "@@port"}, []string{"realhost", "3306"}, []string{"127.0.0.1", "4001"}},
		{"select @@global.hostname, ifnull(@@global.report_host, ''), @@global.server_id, @@global.version",
			[]string{"@@global.hostname", "ifnull(@@global.report_host, '')", "@@global.server_id", "@@global.version"},
			[]string{"realhost", "127.0.0.1", "1", "10.11.6-MariaDB"}, []string{"127.0.0.1", "127.0.0.1", "1", "10.11.6-MariaDB"}},
		{"SELECT @@hostname AS h, @@port p, @@report_port AS `rp`, 3306 AS port", []string{"h", "p", "rp", "port"},
			[]string{"realhost", "3306", "3306", "3306"}, []string{"127.0.0.1", "4001", "4001", "3306"}},
		{"SELECT @@report_host, @@report_port", []string{"@@report_host", "@@report_port"}, []string{null, "0"}, []string{"NULL", "0"}},
		{"SELECT ifnull(@@report_host, '')", []string{"ifnull(@@report_host, '')"}, []string{""}, []string{""}},
		// The select list is not the column list: the columns' names tell.
		{"SELECT *, @@port FROM t", []string{"a", "b", "@@port"}, []string{"x", "y", "3306"}, []string{"x", "y", "4001"}},
		// An @@ variable with no topology in it: untouched.
		{"SELECT @@version, 'hostname'", []string{"@@version", "hostname"}, []string{"10.11", "hostname"}, []string{"10.11", "hostname"}},
		{"SHOW GLOBAL VARIABLES WHERE Variable_name IN ('hostname', 'port', 'report_port', 'version')", []string{"Variable_name", "Value"},
			nil, nil},
	}
	for _, c := range cases {
		var res []byte
		var want [][]string
		if c.cells != nil {
			res = result(true, 0, c.cols, c.cells)
			want = [][]string{c.want}
		} else {
			res = result(true, 0, c.cols, []string{"hostname", "realhost"}, []string{"port", "3306"}, []string{"report_port", "3306"}, []string{"version", "3306"})
			want = [][]string{{"hostname", "127.0.0.1"}, {"port", "4001"}, {"report_port", "4001"}, {"version", "3306"}}
		}
		out, _ := session(t, 0, append(loginExchanges(testCaps), exchange{client: query(c.q), server: res})...)
		got := decodeRows(t, afterLogin(out))
		for _, w := range want {
			if !slices.ContainsFunc(got, func(r []string) bool { return slices.Equal(r, w) }) {
				t.Errorf("%s: rows %q, want %q among them", c.q, got, w)
			}
		}
	}
}

// A result that does not report topology passes byte for byte, whatever its columns are
// called, and so does the whole session, in any chunks.
func TestRewriteLeavesOtherResults(t *testing.T) {
	cols := []string{"Host", "Port", "Master_Host", "Master_Port", "@@hostname"}
	cells := []string{"127.0.0.1", "3307", "127.0.0.1", "3306", "realhost"}
	xs := loginExchanges(testCaps | capDeprecateEOF)
	xs = append(xs,
		exchange{client: query("SELECT Host, Port, Master_Host, Master_Port, `@@hostname` FROM hosts"), server: result(true, 0, cols, cells)},
		exchange{client: query("SELECT 'SHOW SLAVE HOSTS'"), server: result(true, 0, cols, cells)},
		exchange{client: query("-- SHOW SLAVE HOSTS\nSELECT 1"), server: result(true, 0, cols, cells)},
		exchange{client: pkt(0, []byte{rwComPing}), server: okPacket(1, 0)},
		exchange{client: query("INSERT INTO t VALUES (1)"), server: okPacket(1, 0)},
		exchange{client: query("SHOW SLAVE HOSTS"), server: pkt(1, []byte{0xff, 0x15, 0x04, '#', '4', '2', '0', '0', '0', 'n', 'o'})},
		exchange{client: query("SELECT 2"), server: result(false, 0, cols, cells)},
	)
	var want []byte
	for _, x := range xs {
		want = append(want, x.server...)
	}
	for _, chunk := range []int{0, 1, 2, 3, 5, 7, 64} {
		out, n := session(t, chunk, xs...)
		if !bytes.Equal(out, want) || n != 0 {
			t.Fatalf("chunks of %d: %d rewrites, the bytes differ:\n got % x\nwant % x", chunk, n, out, want)
		}
	}
}

// A rewritten session is the same whatever chunks its bytes arrive in.
func TestRewriteAnyChunks(t *testing.T) {
	xs := loginExchanges(testCaps)
	xs = append(xs,
		exchange{client: query("SELECT @@hostname, @@port"), server: result(false, 0, []string{"@@hostname", "@@port"}, []string{"realhost", "3306"})},
		exchange{client: query("SHOW SLAVE HOSTS"), server: result(false, 0, []string{"Server_id", "Host", "Port", "Master_id"}, []string{"2", "127.0.0.1", "3307", "1"})},
		exchange{client: query("SELECT 1"), server: result(false, 0, []string{"1"}, []string{"1"})},
	)
	whole, n := session(t, 0, xs...)
	if n != 3 {
		t.Fatalf("%d rewrites, want 3 (hostname, port, a replica's port)", n)
	}
	for chunk := 1; chunk < 40; chunk++ {
		out, m := session(t, chunk, xs...)
		if !bytes.Equal(out, whole) || m != n {
			t.Fatalf("chunks of %d: %d rewrites, the bytes differ from the whole stream's", chunk, m)
		}
	}
}

// Several statements in one COM_QUERY: each result is read as its own statement's.
func TestRewriteMultiStatement(t *testing.T) {
	first := result(false, statusMoreResults, []string{"Host", "Port"}, []string{"127.0.0.1", "3307"})
	second := result(false, statusMoreResults, []string{"Server_id", "Host", "Port"}, []string{"2", "127.0.0.1", "3307"})
	// the second result's packets count on from 1 again
	ok := okPacket(1, 0)
	xs := append(loginExchanges(testCaps), exchange{client: query("SELECT Host, Port FROM t; SHOW SLAVE HOSTS; DO 1"),
		server: slices.Concat(first, second, ok)})
	out, n := session(t, 3, xs...)
	rows := decodeRows(t, afterLogin(out))
	if !slices.ContainsFunc(rows, func(r []string) bool { return slices.Equal(r, []string{"127.0.0.1", "3307"}) }) ||
		!slices.ContainsFunc(rows, func(r []string) bool { return slices.Equal(r, []string{"2", "127.0.0.1", "4002"}) }) || n != 1 {
		t.Fatalf("rows %q, %d rewrites: want the SELECT's untouched and SHOW SLAVE HOSTS's rewritten", rows, n)
	}
}

// A row too long to hold passes untouched and unheld, and so does a 16 MiB one split in packets.
func TestRewriteBoundsHolding(t *testing.T) {
	var n atomic.Uint64
	r := newRewriter("127.0.0.1:4001", testRoutes, &n)
	for _, x := range loginExchanges(testCaps) {
		r.client(x.client)
		r.server(x.server)
	}
	r.client(query("SHOW SLAVE HOSTS"))
	big := strings.Repeat("x", maxPayload+100)
	for _, cells := range [][]string{{"127.0.0.1", "3307", strings.Repeat("y", rwHoldMax)}, {"127.0.0.1", "3307", big}} {
		res := result(false, 0, []string{"Host", "Port", "Note"}, cells)
		var out []byte
		for s := res; len(s) > 0; {
			k := min(len(s), 64<<10)
			o := r.server(s[:k])
			if len(o) > k || cap(r.hold) > rwHoldMax+2*headerLen+rwColMax {
				t.Fatalf("the rewriter holds %d bytes", cap(r.hold))
			}
			out = append(out, o...)
			s = s[k:]
		}
		if !bytes.Equal(out, res) {
			t.Fatalf("a row of %d bytes changed", len(cells[2]))
		}
		r.client(query("SHOW SLAVE HOSTS"))
	}
	if n.Load() != 0 {
		t.Errorf("%d rewrites of rows too long to hold", n.Load())
	}
	// and the next, short row is rewritten again
	res := result(false, 0, []string{"Host", "Port"}, []string{"127.0.0.1", "3307"})
	if rows := decodeRows(t, r.server(res)); !slices.ContainsFunc(rows, func(r []string) bool { return slices.Equal(r, []string{"127.0.0.1", "4002"}) }) {
		t.Errorf("after long rows, rows %q", rows)
	}
}

// A row held when the client side gives up (a client pipelining more commands than the
// rewriter follows) still goes out, whole and in order.
func TestRewriteGivesUpWhileHolding(t *testing.T) {
	var n atomic.Uint64
	r := newRewriter("127.0.0.1:4001", testRoutes, &n)
	var in, out []byte
	for _, x := range loginExchanges(testCaps) {
		r.client(x.client)
		in = append(in, x.server...)
		out = append(out, r.server(x.server)...)
	}
	r.client(query("SHOW SLAVE HOSTS"))
	res := result(false, 0, []string{"Host", "Port"}, []string{"127.0.0.1", "3307"})
	cut := len(res) - len(eofPacket(0, 0)) - 3 // inside the row
	in = append(in, res...)
	out = append(out, r.server(res[:cut])...)
	if !r.holding {
		t.Fatal("the row is not held: the test tests nothing")
	}
	for range rwPendingMax + 1 {
		r.client(pkt(0, []byte{rwComPing}))
	}
	if !r.raw {
		t.Fatal("the rewriter still follows the session")
	}
	out = append(out, r.server(res[cut:])...)
	out = append(out, r.flush()...)
	if !bytes.Equal(in, out) || n.Load() != 0 {
		t.Errorf("%d rewrites; the bytes differ:\n got % x\nwant % x", n.Load(), out, in)
	}
}

// A client that asks for TLS or compression, or a server that is not MySQL, is not followed.
func TestRewriteGivesUp(t *testing.T) {
	res := result(false, 0, []string{"Host", "Port"}, []string{"127.0.0.1", "3307"})
	for name, xs := range map[string][]exchange{
		"ssl":       {{server: greeting()}, {client: login(testCaps | capSSL), server: okPacket(2, 0)}, {client: query("SHOW SLAVE HOSTS"), server: res}},
		"compress":  {{server: greeting()}, {client: login(testCaps | capCompress), server: okPacket(2, 0)}, {client: query("SHOW SLAVE HOSTS"), server: res}},
		"old":       {{server: greeting()}, {client: login(0x8000), server: okPacket(2, 0)}, {client: query("SHOW SLAVE HOSTS"), server: res}},
		"not mysql": {{server: []byte("HTTP/1.1 200 OK\r\n\r\n")}, {client: query("SHOW SLAVE HOSTS"), server: res}},
		"refused":   {{server: greeting()}, {client: login(testCaps), server: pkt(2, []byte{0xff, 0x15, 0x04, 'x'})}, {client: query("SHOW SLAVE HOSTS"), server: res}},
	} {
		var want []byte
		for _, x := range xs {
			want = append(want, x.server...)
		}
		if out, n := session(t, 5, xs...); !bytes.Equal(out, want) || n != 0 {
			t.Errorf("%s: %d rewrites; the bytes differ", name, n)
		}
	}
}

func TestClassify(t *testing.T) {
	cases := map[string]stmtKind{
		"SHOW SLAVE HOSTS":                stmtHosts,
		"show replicas":                   stmtHosts,
		"SHOW SLAVE STATUS":               stmtStatus,
		"SHOW ALL REPLICAS STATUS":        stmtStatus,
		"SHOW VARIABLES LIKE 'hostname'":  stmtVariables,
		"SHOW SESSION VARIABLES":          stmtVariables,
		"select @@port":                   stmtVars,
		"SELECT DISTINCT @@hostname":      stmtVars,
		"SHOW TABLES":                     stmtOther,
		"SELECT '@@hostname'":             stmtOther,
		"SELECT 1 /* @@port */":           stmtOther,
		"SHOW SLAVE":                      stmtOther,
		"/* SHOW SLAVE HOSTS */ SELECT 1": stmtOther,
	}
	for q, want := range cases {
		got := stmtOther
		if st := classify([]byte(q)); len(st) > 0 {
			got = st[0].kind
		}
		if got != want {
			t.Errorf("%q: kind %d, want %d", q, got, want)
		}
	}
	st := classify([]byte("SELECT @@hostname AS h, 1, ifnull(@@report_host, '') rh, @@GLOBAL.Report_Port, (@@port) FROM dual"))
	if len(st) != 1 || !slices.Equal(st[0].items, []role{roleHostname, roleNone, roleReportHost, roleReportPort, roleNone}) {
		t.Errorf("select list roles %v", st)
	}
}

// FuzzRewrite feeds a session, both directions in fuzzed chunks, to a rewriter after a valid
// login. It must never panic; it changes no byte unless it counts a rewrite; it never holds
// more than its bounds; and a server stream of whole packets stays whole packets with the same
// sequence ids.
func FuzzRewrite(f *testing.F) {
	seed := func(xs ...exchange) []byte {
		// encoding: a byte of direction and length, then the bytes
		var b []byte
		for _, x := range xs {
			for _, part := range []struct {
				dir byte
				p   []byte
			}{{0, x.client}, {1, x.server}} {
				for p := part.p; len(p) > 0; {
					k := min(len(p), 127)
					b = append(b, part.dir<<7|byte(k))
					b = append(b, p[:k]...)
					p = p[k:]
				}
			}
		}
		return b
	}
	f.Add(seed(exchange{client: query("SHOW SLAVE HOSTS"), server: result(false, 0, []string{"Host", "Port"}, []string{"127.0.0.1", "3307"})}))
	f.Add(seed(exchange{client: query("SELECT @@hostname, @@port; SHOW SLAVE STATUS"),
		server: slices.Concat(result(true, statusMoreResults, []string{"@@hostname", "@@port"}, []string{"h", "1"}), result(true, 0, []string{"Master_Host", "Master_Port"}, []string{"localhost", "3306"}))}))
	f.Add(seed(exchange{client: query("SHOW VARIABLES"), server: result(false, 0, []string{"Variable_name", "Value"}, []string{"port", "3306"})},
		exchange{client: pkt(0, []byte{rwComPing}), server: okPacket(1, 0)}))
	f.Add(seed(exchange{client: query("SELECT 1"), server: pkt(1, []byte{0xfb, 'f'})}, exchange{client: pkt(2, []byte("data")), server: okPacket(3, 0)}))
	f.Fuzz(func(t *testing.T, data []byte) {
		var n atomic.Uint64
		r := newRewriter("127.0.0.1:4001", testRoutes, &n)
		for _, x := range loginExchanges(testCaps) {
			r.client(x.client)
			r.server(x.server)
		}
		var in, out []byte
		for len(data) > 0 {
			dir, k := data[0]>>7, int(data[0]&0x7f)
			data = data[1:]
			k = min(k, len(data))
			p := data[:k]
			data = data[k:]
			if dir == 0 {
				r.client(p)
			} else {
				in = append(in, p...)
				out = append(out, r.server(p)...)
			}
			if cap(r.hold) > rwHoldMax+headerLen || len(r.pending) > rwPendingMax || len(r.cBuf) > 1+rwQueryMax || len(r.prefix) > rwColMax {
				t.Fatalf("bounds: hold %d, pending %d, client %d, prefix %d", cap(r.hold), len(r.pending), len(r.cBuf), len(r.prefix))
			}
		}
		out = append(out, r.flush()...)
		if n.Load() == 0 && !bytes.Equal(in, out) {
			t.Fatalf("no rewrite counted, but the bytes differ:\n in % x\nout % x", in, out)
		}
		if si, ok := seqs(in); ok {
			so, ok := seqs(out)
			if !ok || !bytes.Equal(si, so) {
				t.Fatalf("whole packets in (%v), out whole %v with sequence ids %v", si, ok, so)
			}
		}
	})
}

// FuzzClassify reads any text as a COM_QUERY's: it never panics, and what it returns stays
// within its bounds.
func FuzzClassify(f *testing.F) {
	for _, q := range []string{"SHOW SLAVE HOSTS", "select @@hostname h, ifnull(@@report_host, '') from dual; show all slaves status",
		"SELECT 'a;b' /* ; */, `@@port` -- x\n; SHOW VARIABLES", "SELECT (((@@port", "show slave 'x", "SELECT @@"} {
		f.Add([]byte(q))
	}
	f.Fuzz(func(t *testing.T, q []byte) {
		st := classify(q)
		if len(st) > rwStmtMax {
			t.Fatalf("%d statements", len(st))
		}
		for _, s := range st {
			if len(s.items) > rwItemMax || s.kind != stmtVars && s.items != nil {
				t.Fatalf("statement %+v", s)
			}
		}
	})
}
