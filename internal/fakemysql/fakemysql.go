// Package fakemysql is a small MySQL-protocol responder for tests: it greets, accepts any
// login (or refuses it with 1045), answers every query with one row holding 1, answers
// COM_PING, and closes on COM_QUIT. It listens on 127.0.0.1 only. It knows just enough of
// the protocol for github.com/go-sql-driver/mysql to connect, ping and run "SELECT 1".
package fakemysql

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Capability flags the greeting advertises.
const (
	capLongPassword  = 0x00000001
	capFoundRows     = 0x00000002
	capLongFlag      = 0x00000004
	capConnectWithDB = 0x00000008
	capCompress      = 0x00000020
	capProtocol41    = 0x00000200
	capSSL           = 0x00000800
	capTransactions  = 0x00002000
	capSecureConn    = 0x00008000
	capMultiStmts    = 0x00010000
	capMultiResults  = 0x00020000
	capPluginAuth    = 0x00080000
	capLenencAuth    = 0x00200000

	// Capabilities is what the greeting advertises, without CLIENT_SSL and CLIENT_COMPRESS.
	Capabilities = capLongPassword | capFoundRows | capLongFlag | capConnectWithDB | capProtocol41 |
		capTransactions | capSecureConn | capMultiStmts | capMultiResults | capPluginAuth | capLenencAuth
)

// Config chooses the responder's behaviour. The zero value is a well-behaved server.
type Config struct {
	// Version is the server version in the greeting; empty means "8.0.36-fakemysql".
	Version string
	// OfferTLS adds CLIENT_SSL and CLIENT_COMPRESS to the greeting, to test that a proxy
	// clears them. The responder speaks neither: a client that asks for TLS is disconnected.
	OfferTLS bool
	// DenyLogin answers every login with ERR 1045 (access denied).
	DenyLogin bool
	// TooManyConnections sends ERR 1040 instead of the greeting, then closes.
	TooManyConnections bool
	// Silent accepts connections and never writes a byte.
	Silent bool
	// QueryDelay holds every query's reply this long; zero means none.
	QueryDelay time.Duration
}

// Server is a running responder.
type Server struct {
	cfg Config
	ln  net.Listener

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup

	logins  atomic.Int64
	queries atomic.Int64
	nextID  atomic.Uint32
}

// Listen starts a responder on a free port of 127.0.0.1.
func Listen(cfg Config) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fakemysql: %w", err)
	}
	s := &Server{cfg: cfg, ln: ln, conns: map[net.Conn]struct{}{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// TB is the part of testing.TB that Start uses.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// Start is Listen for a test: it fails the test on error and closes the server at cleanup.
func Start(tb TB, cfg Config) *Server {
	tb.Helper()
	s, err := Listen(cfg)
	if err != nil {
		tb.Fatalf("%v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// Addr returns the address the responder listens on, "127.0.0.1:port".
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Logins returns how many logins the responder accepted.
func (s *Server) Logins() int64 { return s.logins.Load() }

// Queries returns how many COM_QUERY commands the responder answered.
func (s *Server) Queries() int64 { return s.queries.Load() }

// Close stops accepting, closes every connection and waits for its goroutines.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	err := s.ln.Close()
	s.wg.Wait()
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			s.serve(c)
			c.Close()
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
		}()
	}
}

// serve speaks the protocol on one connection until it ends.
func (s *Server) serve(c net.Conn) {
	if s.cfg.Silent {
		io.Copy(io.Discard, c)
		return
	}
	r := bufio.NewReader(c)
	if s.cfg.TooManyConnections {
		writePacket(c, 0, errPayload(1040, "08004", "Too many connections"))
		return
	}
	if writePacket(c, 0, s.greeting()) != nil {
		return
	}
	seq, login, err := readPacket(r)
	if err != nil {
		return
	}
	if len(login) >= 4 && binary.LittleEndian.Uint32(login)&capSSL != 0 && len(login) == 32 {
		return // an SSL request: no TLS here
	}
	if s.cfg.DenyLogin {
		writePacket(c, seq+1, errPayload(1045, "28000", "Access denied for user (fakemysql)"))
		return
	}
	if writePacket(c, seq+1, okPayload()) != nil {
		return
	}
	s.logins.Add(1)
	for {
		_, cmd, err := readPacket(r)
		if err != nil || len(cmd) == 0 {
			return
		}
		switch cmd[0] {
		case 0x01: // COM_QUIT
			return
		case 0x0e, 0x02: // COM_PING, COM_INIT_DB
			err = writePacket(c, 1, okPayload())
		case 0x03: // COM_QUERY
			s.queries.Add(1)
			if s.cfg.QueryDelay > 0 {
				time.Sleep(s.cfg.QueryDelay)
			}
			err = writeResult(c)
		default:
			err = writePacket(c, 1, errPayload(1047, "08S01", "Unknown command"))
		}
		if err != nil {
			return
		}
	}
}

// greeting builds a protocol-10 handshake with mysql_native_password.
func (s *Server) greeting() []byte {
	version := s.cfg.Version
	if version == "" {
		version = "8.0.36-fakemysql"
	}
	caps := uint32(Capabilities)
	if s.cfg.OfferTLS {
		caps |= capSSL | capCompress
	}
	scramble := []byte("abcdefghijklmnopqrst") // 20 bytes; any login is accepted anyway
	b := []byte{10}
	b = append(b, version...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint32(b, s.nextID.Add(1))
	b = append(b, scramble[:8]...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint16(b, uint16(caps))
	b = append(b, 0x21)                             // utf8_general_ci
	b = binary.LittleEndian.AppendUint16(b, 0x0002) // autocommit
	b = binary.LittleEndian.AppendUint16(b, uint16(caps>>16))
	b = append(b, 21)
	b = append(b, make([]byte, 10)...)
	b = append(b, scramble[8:]...)
	b = append(b, 0)
	b = append(b, "mysql_native_password"...)
	return append(b, 0)
}

// okPayload is an OK packet: no rows affected, autocommit.
func okPayload() []byte { return []byte{0x00, 0, 0, 0x02, 0, 0, 0} }

// eofPayload is an EOF packet: no warnings, autocommit.
func eofPayload() []byte { return []byte{0xfe, 0, 0, 0x02, 0} }

// errPayload is an ERR packet.
func errPayload(code uint16, state, msg string) []byte {
	b := []byte{0xff}
	b = binary.LittleEndian.AppendUint16(b, code)
	b = append(b, '#')
	b = append(b, state...)
	return append(b, msg...)
}

// writeResult answers a query with one BIGINT column named "1" and one row holding 1.
func writeResult(w io.Writer) error {
	col := []byte{}
	for _, s := range []string{"def", "", "", "", "1", ""} {
		col = append(col, byte(len(s)))
		col = append(col, s...)
	}
	col = append(col, 0x0c)
	col = binary.LittleEndian.AppendUint16(col, 63) // binary
	col = binary.LittleEndian.AppendUint32(col, 1)
	col = append(col, 0x08)                           // MYSQL_TYPE_LONGLONG
	col = binary.LittleEndian.AppendUint16(col, 0x81) // NOT_NULL | BINARY
	col = append(col, 0, 0, 0)
	var out []byte
	for i, p := range [][]byte{{1}, col, eofPayload(), {1, '1'}, eofPayload()} {
		out = appendPacket(out, byte(i+1), p)
	}
	_, err := w.Write(out)
	return err
}

func appendPacket(b []byte, seq byte, payload []byte) []byte {
	n := len(payload)
	b = append(b, byte(n), byte(n>>8), byte(n>>16), seq)
	return append(b, payload...)
}

func writePacket(w io.Writer, seq byte, payload []byte) error {
	_, err := w.Write(appendPacket(nil, seq, payload))
	return err
}

// readPacket reads one packet (joining none: tests never send 16 MiB).
func readPacket(r *bufio.Reader) (byte, []byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	p := make([]byte, n)
	if _, err := io.ReadFull(r, p); err != nil {
		return 0, nil, err
	}
	return h[3], p, nil
}
