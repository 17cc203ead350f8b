package proxy

import (
	"bytes"
	"encoding/binary"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Topology rewriting. A manager or router that discovers its topology asks a server for its
// own name and port and for its replicas' and source's addresses, then connects to what it
// learned: through a proxy, the real servers' addresses, so it would go around the proxies.
// A node with rewriting on follows a session's text protocol (the client's commands one way,
// the server's replies the other) and rewrites, in the replies to the queries that report
// them, each real server address the proxy knows to the proxy address that stands for it:
//
//	SHOW SLAVE HOSTS, SHOW REPLICA HOSTS, SHOW REPLICAS        Host, Port
//	SHOW [ALL] SLAVE[S] STATUS, SHOW [ALL] REPLICA[S] STATUS   Master_Host, Master_Port (Source_*)
//	SELECT @@hostname, @@port, @@report_host, @@report_port    the node's proxy host or port
//	SHOW [GLOBAL|SESSION] VARIABLES                            the rows of those four variables
//
// Everything else passes byte for byte, in the chunks it came in. Only the rows of such a
// result are held, each whole (at most rwHoldMax bytes; a longer one passes untouched), so the
// rewriter buffers a few kilobytes at most.

// Bounds of what a rewriter keeps of a session.
const (
	rwQueryMax   = 4 << 10   // bytes of a COM_QUERY's text it classifies; the rest is not read
	rwHoldMax    = 256 << 10 // the longest row it holds to rewrite; a longer one passes untouched
	rwColMax     = 512       // bytes of a column definition it reads for the column's name
	rwPrefix     = 32        // bytes of any other packet it reads (an OK's or EOF's status)
	rwPendingMax = 64        // commands sent and not yet answered; a client deeper than that gives up rewriting
	rwStmtMax    = 16        // statements of one COM_QUERY it classifies; the later ones pass
	rwItemMax    = 64        // select-list items it classifies
	rwColsMax    = 4096      // columns of a result it follows; a wider result passes
)

// MySQL protocol constants the rewriter needs.
const (
	maxPayload = 0xffffff // a packet of this payload length continues in the next

	capProtocol41      = 0x00000200
	capQueryAttributes = 0x08000000 // CLIENT_QUERY_ATTRIBUTES: a COM_QUERY starts with its parameters

	statusMoreResults = 0x0008 // SERVER_MORE_RESULTS_EXISTS

	rwComInitDB    = 0x02
	rwComQuery     = 0x03
	rwComRefresh   = 0x07
	rwComKill      = 0x0c
	rwComDebug     = 0x0d
	rwComPing      = 0x0e
	rwComLongData  = 0x18
	rwComStmtClose = 0x19
	rwComStmtReset = 0x1a
	rwComSetOption = 0x1b
	rwComResetConn = 0x1f
)

// hostPort is a proxy address, split: what a rewritten Host or Port cell says.
type hostPort struct{ host, port string }

// topoRoute is one server address a proxy knows and the proxy address that stands for it.
type topoRoute struct {
	real  string // the server's "host:port": a node's upstream, or another address of the same server
	proxy string // the node's listening "host:port"
}

// role is what a result column reports.
type role uint8

const (
	roleNone role = iota
	roleHostname
	rolePort
	roleReportHost
	roleReportPort
)

// stmtKind is what a statement's result reports.
type stmtKind uint8

const (
	stmtOther     stmtKind = iota
	stmtVars               // SELECT naming @@ variables
	stmtHosts              // SHOW SLAVE HOSTS
	stmtStatus             // SHOW SLAVE STATUS
	stmtVariables          // SHOW VARIABLES
)

// stmt is one classified statement of a COM_QUERY.
type stmt struct {
	kind  stmtKind
	items []role // stmtVars: the select list's items, when it was read whole; else nil
}

// cmdKind is the shape of a command's answer.
type cmdKind uint8

const (
	cmdQuery  cmdKind = iota // text protocol: OK, ERR, LOCAL INFILE or result sets
	cmdOne                   // one packet: OK or ERR (EOF for COM_SET_OPTION)
	cmdOpaque                // anything else: passed until the next command's answer begins
)

// command is one command sent to the server and not yet answered.
type command struct {
	kind  cmdKind
	stmts []stmt // cmdQuery: its statements, nil when none reports topology
}

// phase is where the server's stream is.
type phase uint8

const (
	phGreeting phase = iota // the server's first packet
	phAuth                  // the login exchange, until OK or ERR
	phIdle                  // no command awaits an answer
	phFirst                 // the first packet of a query's answer, or of its next result
	phCols                  // column definitions
	phColsEnd               // after the last column definition: EOF, a row, or the end
	phRows                  // rows until EOF, OK or ERR
	phOne                   // a one-packet answer
	phOpaque                // an answer the rewriter does not follow
)

// rwResult is the result set being read.
type rwResult struct {
	kind      stmtKind
	items     []role
	ncols     int
	seen      int    // column definitions seen
	roles     []role // stmtVars: per column
	hostCol   int    // stmtHosts, stmtStatus: the host and port columns; stmtVariables: name and value
	portCol   int
	rewriting bool // its rows are held and rewritten
}

// rewriter rewrites the topology in one session's server replies. client sees the bytes that
// go to the server, before the server can see them; server takes the bytes from the server
// and returns what goes to the client. It is safe for use by the two pumps at once.
type rewriter struct {
	mu       sync.Mutex
	routes   map[string]hostPort // normalized real "host:port" -> proxy address
	self     hostPort            // this node's proxy address
	rewrites *atomic.Uint64      // counts rewritten values; may be nil
	raw      bool                // not following any more: every byte passes
	loggedIn bool

	// The client's stream.
	cHdr     [headerLen]byte
	cNHdr    int
	cLeft    int  // payload bytes left of the current packet
	cLen     int  // its payload length
	cCont    bool // the current packet continues a 16 MiB one
	cCmd     bool // the current logical packet is a command
	cPackets int  // client packets seen: the first is the login
	cBuf     []byte
	caps     uint32
	pending  []command

	// The server's stream.
	sHdr    [headerLen]byte
	sNHdr   int
	sLeft   int
	sLen    int  // the current physical packet's payload length
	sLogLen int  // the current logical packet's length so far, saturating at 2*maxPayload
	sCont   bool // the current physical packet continues a logical one
	holding bool // the current packet is held in hold
	hold    []byte
	prefix  []byte // the current logical packet's first bytes
	prefMax int
	ph      phase
	cur     command
	stmtAt  int
	res     rwResult
	out     []byte // what server returns, when not its input
	row     []byte // a rewritten row
}

// newRewriter returns a rewriter for a node whose proxy address is self, with every address
// the proxy knows in routes. rewrites, if not nil, counts the values it rewrites.
func newRewriter(self string, routes []topoRoute, rewrites *atomic.Uint64) *rewriter {
	r := &rewriter{routes: map[string]hostPort{}, rewrites: rewrites, prefMax: rwPrefix}
	r.self = splitHostPort(self)
	for _, rt := range routes {
		if k, ok := routeKey(rt.real); ok {
			r.routes[k] = splitHostPort(rt.proxy)
		}
	}
	return r
}

// splitHostPort splits "host:port"; an address that does not split is all host.
func splitHostPort(a string) hostPort {
	h, p, err := net.SplitHostPort(a)
	if err != nil {
		return hostPort{host: a}
	}
	return hostPort{h, p}
}

// routeKey normalizes a "host:port": the host lower case, localhost as 127.0.0.1, the port as
// a decimal number.
func routeKey(a string) (string, bool) {
	h, p, err := net.SplitHostPort(a)
	if err != nil {
		return "", false
	}
	return hostKey(h, p)
}

func hostKey(h, p string) (string, bool) {
	var buf [64]byte
	k, ok := appendHostKey(buf[:0], []byte(h), []byte(p))
	return string(k), ok
}

// appendHostKey appends the route key of host h and port p to dst.
func appendHostKey(dst, h, p []byte) ([]byte, bool) {
	n, err := strconv.ParseUint(strings.TrimSpace(string(p)), 10, 16)
	h = bytes.Trim(h, "[]")
	if err != nil || len(h) == 0 {
		return dst, false
	}
	if bytes.EqualFold(h, []byte("localhost")) {
		h = []byte("127.0.0.1")
	}
	for _, c := range h {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	dst = append(dst, ':')
	return strconv.AppendUint(dst, n, 10), true
}

// giveUp stops following the session: every byte from now on passes untouched. What the
// server side holds (a row, a header cut short: the client side may give up meanwhile) goes
// out first, with the server's next bytes (takePending).
func (r *rewriter) giveUp() {
	r.raw = true
	r.cBuf, r.pending, r.prefix = nil, nil, nil
}

// takePending returns the server bytes held and not yet sent, and forgets them.
func (r *rewriter) takePending() []byte {
	var b []byte
	switch {
	case r.holding:
		b = r.hold
	case r.sNHdr > 0 && r.sNHdr < headerLen:
		b = r.sHdr[:r.sNHdr]
	}
	r.holding, r.sNHdr, r.hold = false, 0, nil
	return b
}

// client observes p, the next bytes on their way to the server. It never changes them.
func (r *rewriter) client(p []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := 0; i < len(p) && !r.raw; {
		if r.cNHdr < headerLen {
			r.cHdr[r.cNHdr] = p[i]
			r.cNHdr++
			i++
			if r.cNHdr == headerLen {
				r.clientStart()
			}
			continue
		}
		k := min(r.cLeft, len(p)-i)
		if limit := r.clientLimit(); len(r.cBuf) < limit {
			r.cBuf = append(r.cBuf, p[i:i+min(k, limit-len(r.cBuf))]...)
		}
		r.cLeft -= k
		i += k
		if r.cLeft == 0 {
			r.clientEnd()
		}
	}
}

// clientLimit is how many payload bytes of the current client packet are kept.
func (r *rewriter) clientLimit() int {
	switch {
	case r.cPackets == 1:
		return 32 // the login: its capability flags
	case r.cCmd:
		return 1 + rwQueryMax
	}
	return 0
}

// clientStart runs when a client packet's header is complete.
func (r *rewriter) clientStart() {
	r.cLen = int(r.cHdr[0]) | int(r.cHdr[1])<<8 | int(r.cHdr[2])<<16
	r.cLeft = r.cLen
	if !r.cCont {
		r.cPackets++
		r.cCmd = r.loggedIn && r.cHdr[3] == 0 && r.cPackets > 1
		r.cBuf = r.cBuf[:0]
	}
	if r.cLeft == 0 {
		r.clientEnd()
	}
}

// clientEnd runs when a client packet's payload is complete.
func (r *rewriter) clientEnd() {
	r.cNHdr = 0
	if r.cLen == maxPayload {
		r.cCont = true
		return
	}
	r.cCont = false
	switch {
	case r.cPackets == 1:
		// The login (protocol 4.1) starts with 4 bytes of capability flags. A client that
		// asks for TLS or compression, or speaks the old protocol, is not followed.
		if len(r.cBuf) < 4 {
			r.giveUp()
			return
		}
		r.caps = binary.LittleEndian.Uint32(r.cBuf)
		if r.caps&capProtocol41 == 0 || r.caps&(capSSL|capCompress) != 0 {
			r.giveUp()
		}
	case r.cCmd && len(r.cBuf) > 0:
		r.command(r.cBuf[0], r.cBuf[1:])
	}
}

// command queues the command cmd, whose payload after the command byte begins with arg.
func (r *rewriter) command(cmd byte, arg []byte) {
	var c command
	switch cmd {
	case comQuit, rwComLongData, rwComStmtClose:
		return // no answer
	case rwComQuery:
		if r.caps&capQueryAttributes != 0 {
			// parameter_count and parameter_set_count; a query with parameters is not read
			if len(arg) < 2 || arg[0] != 0 {
				arg = nil
			} else {
				arg = arg[2:]
			}
		}
		c = command{kind: cmdQuery, stmts: classify(arg)}
	case rwComInitDB, rwComRefresh, rwComKill, rwComDebug, rwComPing, rwComStmtReset, rwComSetOption, rwComResetConn:
		c = command{kind: cmdOne}
	default:
		c = command{kind: cmdOpaque}
	}
	if len(r.pending) >= rwPendingMax {
		r.giveUp()
		return
	}
	r.pending = append(r.pending, c)
	if r.ph == phIdle {
		r.next()
	}
}

// next starts on the oldest unanswered command's answer, or idles.
func (r *rewriter) next() {
	r.res = rwResult{}
	if len(r.pending) == 0 {
		r.ph, r.cur = phIdle, command{}
		return
	}
	r.cur = r.pending[0]
	copy(r.pending, r.pending[1:])
	r.pending[len(r.pending)-1] = command{}
	r.pending = r.pending[:len(r.pending)-1]
	r.stmtAt = 0
	switch r.cur.kind {
	case cmdQuery:
		r.ph = phFirst
	case cmdOne:
		r.ph = phOne
	default:
		r.ph = phOpaque
	}
}

// emitter collects what server returns: slices of its input while they follow each other
// from its start, a copy in out as soon as anything else is added.
type emitter struct {
	src    []byte // server's input
	end    int    // while direct: src[:end] is the output so far
	direct bool
	out    []byte // once not direct: the output so far
}

// pass adds src[i:j].
func (e *emitter) pass(i, j int) {
	if i == j {
		return
	}
	if e.direct && i == e.end {
		e.end = j
		return
	}
	e.bytes(e.src[i:j])
}

// bytes adds b, which is not a slice of src that follows what came before: the output becomes
// a copy.
func (e *emitter) bytes(b []byte) {
	if len(b) == 0 {
		return
	}
	if e.direct {
		e.out = append(e.out[:0], e.src[:e.end]...)
		e.direct = false
	}
	e.out = append(e.out, b...)
}

// result is the output.
func (e *emitter) result() []byte {
	if e.direct {
		return e.src[:e.end]
	}
	return e.out
}

// server takes p, the next bytes from the server, and returns the bytes to send the client in
// their place: p itself, or a prefix of it, when nothing is held or rewritten. The result is
// valid until the next call.
func (r *rewriter) server(p []byte) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := emitter{src: p, direct: true, out: r.out}
	if r.raw {
		e.bytes(r.takePending())
		e.pass(0, len(p))
		r.out = e.out[:0]
		return e.result()
	}
	hdrFrom := 0 // where in p the header in progress began
	for i := 0; i < len(p); {
		if r.raw {
			e.bytes(r.takePending())
			e.pass(i, len(p))
			break
		}
		if r.sNHdr < headerLen {
			if r.sNHdr == 0 {
				hdrFrom = i
			}
			k := min(headerLen-r.sNHdr, len(p)-i)
			copy(r.sHdr[r.sNHdr:], p[i:i+k])
			began := r.sNHdr == 0
			r.sNHdr += k
			i += k
			if r.sNHdr < headerLen {
				break // the rest of the header comes with the next bytes; flush has these
			}
			r.serverStart()
			if r.holding {
				r.hold = append(r.hold[:0], r.sHdr[:]...)
			} else if began {
				e.pass(hdrFrom, i)
			} else {
				e.bytes(r.sHdr[:])
			}
			if r.sLeft == 0 {
				r.serverEnd(&e)
			}
			continue
		}
		k := min(r.sLeft, len(p)-i)
		chunk := p[i : i+k]
		if r.holding {
			r.hold = append(r.hold, chunk...)
		} else {
			e.pass(i, i+k)
		}
		if len(r.prefix) < r.prefMax {
			r.prefix = append(r.prefix, chunk[:min(k, r.prefMax-len(r.prefix))]...)
		}
		r.sLeft -= k
		i += k
		if r.sLeft == 0 {
			r.serverEnd(&e)
		}
	}
	r.out = e.out[:0]
	return e.result()
}

// flush returns the bytes held when the server's stream ends: a packet or header it cut short.
func (r *rewriter) flush() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := append([]byte(nil), r.takePending()...)
	r.giveUp()
	return b
}

// serverStart runs when a server packet's header is complete: it decides whether the packet
// is held.
func (r *rewriter) serverStart() {
	r.sLen = int(r.sHdr[0]) | int(r.sHdr[1])<<8 | int(r.sHdr[2])<<16
	r.sLeft = r.sLen
	if r.sCont {
		r.sLogLen = min(r.sLogLen+r.sLen, 2*maxPayload)
		return // a continuation: as its packet's start was
	}
	r.sLogLen = r.sLen
	r.prefix = r.prefix[:0]
	r.prefMax = rwPrefix
	r.holding = false
	if r.ph == phOpaque && len(r.pending) > 0 {
		r.next() // a later command was sent: the opaque answer is taken to be over
	}
	switch r.ph {
	case phGreeting:
		if r.sHdr[3] != 0 || r.sLen == 0 || r.sLen > maxGreetingLen {
			r.giveUp() // not a MySQL server
		}
	case phCols:
		if r.res.kind != stmtOther {
			r.prefMax = rwColMax
		}
	case phColsEnd, phRows:
		r.holding = r.res.rewriting && r.sLen < maxPayload && r.sLen <= rwHoldMax
	}
}

// serverEnd runs when a server packet's payload is complete: it forwards a held packet,
// rewritten if it is a row, and moves on.
func (r *rewriter) serverEnd(e *emitter) {
	r.sNHdr = 0
	if r.sLen == maxPayload {
		r.sCont = true
		return
	}
	r.sCont = false
	if r.holding {
		r.holding = false
		payload := r.hold[headerLen:]
		if r.isRow(payload) {
			if row, n := r.rewriteRow(payload); n > 0 && len(row) < maxPayload {
				hdr := [headerLen]byte{byte(len(row)), byte(len(row) >> 8), byte(len(row) >> 16), r.hold[3]}
				e.bytes(hdr[:])
				e.bytes(row)
				if r.rewrites != nil {
					r.rewrites.Add(uint64(n))
				}
				r.step()
				return
			}
		}
		e.bytes(r.hold)
	}
	r.step()
}

// isRow reports whether payload, in the rows of a result, is a row rather than its end.
func (r *rewriter) isRow(payload []byte) bool {
	if len(payload) == 0 {
		return true
	}
	switch payload[0] {
	case 0xff:
		return false
	case 0xfe:
		return r.sLogLen >= maxPayload
	}
	return true
}

// step moves the server's stream on past the packet that just ended, whose first bytes are
// r.prefix.
func (r *rewriter) step() {
	p := r.prefix
	var b byte
	if len(p) > 0 {
		b = p[0]
	}
	switch r.ph {
	case phGreeting:
		if b == 10 {
			r.ph = phAuth
		} else {
			r.giveUp() // an ERR instead of the greeting (the server closes), or not MySQL
		}
	case phAuth:
		switch {
		case len(p) == 0:
		case b == 0x00:
			r.loggedIn = true
			r.next()
		case b == 0xff:
			r.giveUp() // login refused: the server closes
		}
	case phFirst:
		r.first(p)
	case phCols:
		if r.res.kind != stmtOther {
			r.column(p)
		}
		r.res.seen++
		if r.res.seen == r.res.ncols {
			r.columnsDone()
			r.ph = phColsEnd
		}
	case phColsEnd, phRows:
		switch {
		case len(p) > 0 && b == 0xff:
			r.next() // ERR: the statement and the query end
		case len(p) > 0 && b == 0xfe && r.sLogLen < maxPayload:
			if r.ph == phColsEnd && r.sLogLen == 5 {
				r.ph = phRows // the EOF after the column definitions
				return
			}
			r.resultEnd(r.endStatus(p))
		default:
			r.ph = phRows
		}
	case phOne:
		r.next()
	}
}

// first reads the first packet of a query's answer or next result.
func (r *rewriter) first(p []byte) {
	if len(p) == 0 {
		r.ph = phOpaque
		return
	}
	switch p[0] {
	case 0x00: // OK
		r.resultEnd(okStatus(p))
		return
	case 0xff: // ERR
		r.next()
		return
	case 0xfb: // LOCAL INFILE: the client sends the file, the server answers OK or ERR
		return
	}
	n, w := lenenc(p)
	if w == 0 || n == 0 || n > rwColsMax || r.sLogLen >= maxPayload {
		r.ph = phOpaque
		return
	}
	st := stmt{}
	if r.stmtAt < len(r.cur.stmts) {
		st = r.cur.stmts[r.stmtAt]
	}
	r.res = rwResult{kind: st.kind, items: st.items, ncols: int(n), hostCol: -1, portCol: -1}
	if len(p) > w && p[w] == 0 {
		// metadata_follows = 0 (CLIENT_OPTIONAL_RESULTSET_METADATA, MariaDB's cached
		// metadata): no column definitions, nothing to rewrite.
		r.res.kind = stmtOther
		r.ph = phColsEnd
		return
	}
	r.ph = phCols
}

// resultEnd ends a statement's result with the server status flags status.
func (r *rewriter) resultEnd(status uint16) {
	if status&statusMoreResults != 0 {
		r.stmtAt++
		r.res = rwResult{}
		r.ph = phFirst
		return
	}
	r.next()
}

// endStatus reads the status flags of the packet ending rows: an EOF (5 bytes) or an OK.
func (r *rewriter) endStatus(p []byte) uint16 {
	if r.sLogLen == 5 {
		if len(p) < 5 {
			return 0
		}
		return binary.LittleEndian.Uint16(p[3:5])
	}
	return okStatus(p)
}

// okStatus reads an OK packet's status flags; 0 if it is too short to hold them.
func okStatus(p []byte) uint16 {
	if len(p) < 1 {
		return 0
	}
	q := p[1:]
	for range 2 { // affected rows, last insert id
		_, w := lenenc(q)
		if w == 0 {
			return 0
		}
		q = q[w:]
	}
	if len(q) < 2 {
		return 0
	}
	return binary.LittleEndian.Uint16(q)
}

// column reads one column definition (ColumnDefinition41): its name is the fifth string.
func (r *rewriter) column(p []byte) {
	q := p
	var name []byte
	for i := range 5 {
		s, w, ok := lenencStr(q)
		if !ok {
			return // cut short by rwColMax, or malformed: the column reports nothing
		}
		if i == 4 {
			name = s
		}
		q = q[w:]
	}
	i := r.res.seen
	switch r.res.kind {
	case stmtVars:
		if r.res.roles == nil {
			r.res.roles = make([]role, r.res.ncols)
		}
		if len(r.res.items) == r.res.ncols {
			r.res.roles[i] = r.res.items[i]
		} else {
			r.res.roles[i] = exprRole(name)
		}
	case stmtHosts:
		r.pick(i, name, "host", "port")
	case stmtStatus:
		r.pick(i, name, "master_host", "master_port")
		r.pick(i, name, "source_host", "source_port")
	case stmtVariables:
		r.pick(i, name, "variable_name", "value")
	}
}

// pick records column i as the result's host or port column if its name is one of them.
func (r *rewriter) pick(i int, name []byte, host, port string) {
	switch {
	case strings.EqualFold(string(name), host):
		r.res.hostCol = i
	case strings.EqualFold(string(name), port):
		r.res.portCol = i
	}
}

// columnsDone decides, once every column is known, whether the rows are rewritten.
func (r *rewriter) columnsDone() {
	switch r.res.kind {
	case stmtVars:
		for _, ro := range r.res.roles {
			if ro != roleNone {
				r.res.rewriting = true
			}
		}
	case stmtHosts, stmtStatus, stmtVariables:
		r.res.rewriting = r.res.hostCol >= 0 && r.res.portCol >= 0
	}
}

// cell is one value of a row: its bytes, or NULL.
type cell struct {
	v    []byte
	null bool
}

// rewriteRow returns the row payload rewritten, in r.row, and how many values changed; 0 and
// nil when nothing changes or the row does not parse.
func (r *rewriter) rewriteRow(payload []byte) ([]byte, int) {
	if r.res.ncols > rwColsMax {
		return nil, 0
	}
	var cellsBuf [64]cell
	cells := cellsBuf[:0]
	q := payload
	for range r.res.ncols {
		if len(q) > 0 && q[0] == 0xfb {
			cells = append(cells, cell{null: true})
			q = q[1:]
			continue
		}
		s, w, ok := lenencStr(q)
		if !ok {
			return nil, 0
		}
		cells = append(cells, cell{v: s})
		q = q[w:]
	}
	if len(q) != 0 {
		return nil, 0
	}
	var replBuf [64]string
	var repl []string // per column: the new value, "" to keep
	set := func(i int, v string) {
		if cells[i].null || string(cells[i].v) == v || v == "" {
			return
		}
		if repl == nil {
			repl = replBuf[:0]
			if len(cells) > len(replBuf) {
				repl = make([]string, 0, len(cells))
			}
			repl = repl[:len(cells)]
		}
		repl[i] = v
	}
	switch r.res.kind {
	case stmtVars:
		for i, ro := range r.res.roles {
			if v, ok := r.selfValue(ro, cells[i]); ok {
				set(i, v)
			}
		}
	case stmtHosts, stmtStatus:
		h, pc := cells[r.res.hostCol], cells[r.res.portCol]
		if h.null || pc.null {
			break
		}
		var buf [64]byte
		k, ok := appendHostKey(buf[:0], h.v, pc.v)
		if !ok {
			break
		}
		if to, ok := r.routes[string(k)]; ok {
			set(r.res.hostCol, to.host)
			set(r.res.portCol, to.port)
		}
	case stmtVariables:
		name := cells[r.res.hostCol]
		if name.null {
			break
		}
		if v, ok := r.selfValue(varRole(strings.ToLower(string(name.v))), cells[r.res.portCol]); ok {
			set(r.res.portCol, v)
		}
	}
	if repl == nil {
		return nil, 0
	}
	out := r.row[:0]
	n := 0
	for i, c := range cells {
		switch {
		case repl[i] != "":
			out = appendLenenc(out, uint64(len(repl[i])))
			out = append(out, repl[i]...)
			n++
		case c.null:
			out = append(out, 0xfb)
		default:
			out = appendLenenc(out, uint64(len(c.v)))
			out = append(out, c.v...)
		}
	}
	r.row = out
	return out, n
}

// selfValue returns what a value of role ro becomes: the node's proxy host or port. An unset
// report_host (NULL or empty) or report_port (0) stays as it is.
func (r *rewriter) selfValue(ro role, c cell) (string, bool) {
	if c.null {
		return "", false
	}
	switch ro {
	case roleHostname:
		return r.self.host, r.self.host != ""
	case rolePort:
		return r.self.port, r.self.port != ""
	case roleReportHost:
		return r.self.host, len(c.v) > 0 && r.self.host != ""
	case roleReportPort:
		return r.self.port, len(c.v) > 0 && string(c.v) != "0" && r.self.port != ""
	}
	return "", false
}

// lenenc reads a length-encoded integer; w is its width, 0 if p is too short or it is not one.
func lenenc(p []byte) (n uint64, w int) {
	if len(p) == 0 {
		return 0, 0
	}
	switch b := p[0]; {
	case b < 0xfb:
		return uint64(b), 1
	case b == 0xfc && len(p) >= 3:
		return uint64(binary.LittleEndian.Uint16(p[1:])), 3
	case b == 0xfd && len(p) >= 4:
		return uint64(p[1]) | uint64(p[2])<<8 | uint64(p[3])<<16, 4
	case b == 0xfe && len(p) >= 9:
		return binary.LittleEndian.Uint64(p[1:]), 9
	}
	return 0, 0
}

// lenencStr reads a length-encoded string; w is how many bytes it takes.
func lenencStr(p []byte) (s []byte, w int, ok bool) {
	n, k := lenenc(p)
	if k == 0 || n > uint64(len(p)-k) {
		return nil, 0, false
	}
	return p[k : k+int(n)], k + int(n), true
}

// appendLenenc appends n as a length-encoded integer.
func appendLenenc(b []byte, n uint64) []byte {
	switch {
	case n < 0xfb:
		return append(b, byte(n))
	case n < 1<<16:
		return append(b, 0xfc, byte(n), byte(n>>8))
	case n < 1<<24:
		return append(b, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	}
	b = append(b, 0xfe)
	return binary.LittleEndian.AppendUint64(b, n)
}
