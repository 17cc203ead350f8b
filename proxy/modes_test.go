package proxy

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/go-sql-driver/mysql"

	"github.com/failsim/failsim/internal/fakemysql"
)

const wait = 2 * time.Second           // generous bound for what must happen
const silence = 150 * time.Millisecond // how long "nothing happens" is watched

func TestHealPassesAndClearsTLS(t *testing.T) {
	_, n := start(t, fake(t, fakemysql.Config{OfferTLS: true}), "heal")
	rc := newRaw(mustDial(t, n.Addr()))
	g := rc.login(t)
	i := 1 + len("8.0.36-fakemysql") + 1 + 4 + 8 + 1
	caps := binary.LittleEndian.Uint16(g[i:])
	if caps&capSSL != 0 || caps&capCompress != 0 {
		t.Errorf("greeting capabilities %#x still offer SSL or compression", caps)
	}
	if caps|capSSL|capCompress != uint16(fakemysql.Capabilities&0xffff|0x0820) {
		t.Errorf("greeting capabilities %#x: other bits changed", caps)
	}
	if err := rc.ping(wait); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := mysqlConnect(ctx, n.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := selectOne(c, wait); err != nil {
		t.Fatal(err)
	}
}

func TestRefuse(t *testing.T) {
	_, n := start(t, fake(t, fakemysql.Config{}), "heal")
	rc := newRaw(mustDial(t, n.Addr()))
	rc.login(t)
	set(t, n, "refuse")
	if _, err := dial(t, n.Addr()); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("new connect: %v, want connection refused", err)
	}
	if err := rc.ping(wait); !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("existing connection: %v, want connection reset", err)
	}
	set(t, n, "heal")
	newRaw(mustDial(t, n.Addr())).login(t)
}

func TestReset(t *testing.T) {
	_, n := start(t, fake(t, fakemysql.Config{}), "heal")
	rc := newRaw(mustDial(t, n.Addr()))
	rc.login(t)
	set(t, n, "reset")
	if err := rc.ping(wait); !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("existing connection: %v, want connection reset", err)
	}
	// The RST can beat the connect's own return: either way the client sees a reset.
	if c, err := dial(t, n.Addr()); err == nil {
		_, _, err = newRaw(c).read(wait)
		if !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("new connection: %v, want connection reset", err)
		}
	} else if !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("new connection: %v, want connection reset", err)
	}
	if got := n.Status().Faults["reset"]; got != 2 {
		t.Errorf("reset injections %d, want 2", got)
	}
}

func TestClose(t *testing.T) {
	_, n := start(t, fake(t, fakemysql.Config{}), "heal")
	rc := newRaw(mustDial(t, n.Addr()))
	rc.login(t)
	set(t, n, "close")
	if err := rc.ping(wait); !errors.Is(err, io.EOF) {
		t.Errorf("existing connection: %v, want EOF", err)
	}
	c := mustDial(t, n.Addr())
	c.SetReadDeadline(time.Now().Add(wait))
	if k, err := c.Read(make([]byte, 1)); k != 0 || !errors.Is(err, io.EOF) {
		t.Errorf("new connection: %d bytes, %v; want EOF before any byte", k, err)
	}
}

func TestFreezeResumesByteExact(t *testing.T) {
	_, n := start(t, fake(t, fakemysql.Config{}), "heal")
	rc := newRaw(mustDial(t, n.Addr()))
	rc.login(t)
	set(t, n, "freeze")
	if err := rc.ping(silence); !isTimeout(err) {
		t.Fatalf("existing connection while frozen: %v, want silence", err)
	}
	fresh := newRaw(mustDial(t, n.Addr())) // the connect itself succeeds
	if _, _, err := fresh.read(silence); !isTimeout(err) {
		t.Fatalf("new connection while frozen: %v, want silence", err)
	}
	set(t, n, "heal")
	// The held OK arrives whole: the reply to the ping sent while frozen.
	if _, p, err := rc.read(wait); err != nil || p[0] != 0 {
		t.Fatalf("after heal: %v %x", err, p)
	}
	if err := rc.ping(wait); err != nil {
		t.Fatal(err)
	}
	fresh.login(t)
}

func TestBlackhole(t *testing.T) {
	_, n := start(t, fake(t, fakemysql.Config{}), "heal")
	rc := newRaw(mustDial(t, n.Addr()))
	rc.login(t)
	set(t, n, "blackhole")
	c, err := net.DialTimeout("tcp", n.Addr(), silence)
	if err == nil {
		c.Close()
		t.Fatal("connect succeeded while blackholed")
	}
	if !isTimeout(err) {
		t.Fatalf("connect: %v, want a dial timeout", err)
	}
	if err := rc.ping(silence); !isTimeout(err) {
		t.Fatalf("existing connection: %v, want silence", err)
	}
	set(t, n, "heal")
	if _, p, err := rc.read(wait); err != nil || p[0] != 0 {
		t.Fatalf("after heal: %v %x", err, p)
	}
	newRaw(mustDial(t, n.Addr())).login(t)
}

func TestStallLoginWorksQueriesHang(t *testing.T) {
	_, n := start(t, fake(t, fakemysql.Config{}), "heal")
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	old, err := mysqlConnect(ctx, n.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	set(t, n, "stall")
	c, err := mysqlConnect(ctx, n.Addr())
	if err != nil {
		t.Fatalf("login while stalled: %v", err)
	}
	defer c.Close()
	for _, conn := range []any{old, c} {
		_ = conn
	}
	errs := make(chan error, 2)
	go func() { errs <- selectOne(c, 10*time.Second) }()
	rc := newRaw(mustDial(t, n.Addr()))
	rc.login(t)
	if err := rc.ping(silence); !isTimeout(err) {
		t.Fatalf("ping while stalled: %v, want no reply", err)
	}
	select {
	case err := <-errs:
		t.Fatalf("query returned while stalled: %v", err)
	case <-time.After(silence):
	}
	set(t, n, "heal")
	if err := <-errs; err != nil {
		t.Fatalf("query after heal: %v", err)
	}
	if _, p, err := rc.read(wait); err != nil || p[0] != 0 {
		t.Fatalf("held ping after heal: %v %x", err, p)
	}
	if err := selectOne(old, wait); err != nil {
		t.Fatal(err)
	}
}

func TestStallLetsQuitThrough(t *testing.T) {
	_, n := start(t, fake(t, fakemysql.Config{}), "stall")
	rc := newRaw(mustDial(t, n.Addr()))
	rc.login(t)
	rc.write(0, []byte{0x01})
	if _, _, err := rc.read(wait); !errors.Is(err, io.EOF) {
		t.Fatalf("after COM_QUIT: %v, want EOF", err)
	}
}

func TestSlowHoldsEachReply(t *testing.T) {
	mock := clock.NewMock()
	_, n := start(t, fake(t, fakemysql.Config{}), "slow 1h", func(c *Config) { c.Clock = mock })
	rc := newRaw(mustDial(t, n.Addr()))
	rc.login(t) // the login is not delayed
	for range 2 {
		if err := rc.ping(silence); !isTimeout(err) {
			t.Fatalf("ping before the delay: %v, want no reply yet", err)
		}
		var err error
		for range 100 { // the timer may not exist yet: move time until the reply comes
			mock.Add(time.Hour)
			if _, _, err = rc.read(20 * time.Millisecond); !isTimeout(err) {
				break
			}
		}
		if err != nil {
			t.Fatalf("ping after the delay: %v", err)
		}
	}
}

func TestErrorCodes(t *testing.T) {
	for _, code := range []uint16{1040, 1045, 1205} {
		_, n := start(t, fake(t, fakemysql.Config{}), "error "+itoa(int(code)))
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		_, err := mysqlConnect(ctx, n.Addr())
		cancel()
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != code {
			t.Errorf("error %d: driver got %v", code, err)
		}
	}
}

func TestErrorAtCommandAnswersInsteadOfServer(t *testing.T) {
	up := fakemysql.Start(t, fakemysql.Config{})
	_, n := start(t, up.Addr(), "error 1205 at command 2")
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := mysqlConnect(ctx, n.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := selectOne(c, wait); err != nil {
		t.Fatalf("command 1: %v", err)
	}
	for range 2 {
		var me *mysql.MySQLError
		if err := selectOne(c, wait); !errors.As(err, &me) || me.Number != 1205 {
			t.Fatalf("command 2+: %v, want error 1205", err)
		}
	}
	if up.Queries() != 1 {
		t.Errorf("server saw %d queries, want 1", up.Queries())
	}
}

func TestResetAtCommand(t *testing.T) {
	_, n := start(t, fake(t, fakemysql.Config{}), "heal")
	rc := newRaw(mustDial(t, n.Addr()))
	rc.login(t)
	set(t, n, "reset at command 3")
	for i := 1; i <= 2; i++ {
		if err := rc.ping(wait); err != nil {
			t.Fatalf("ping %d: %v", i, err)
		}
	}
	if err := rc.ping(wait); !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("ping 3: %v, want reset", err)
	}
}

// blob is an upstream that is not MySQL: it sends size bytes of a pattern on each connection.
func blob(t testing.TB, size int) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write(pattern(size))
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}

func pattern(size int) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	return b
}

func TestFreezeAfterBytesMidStream(t *testing.T) {
	const size, at = 200_000, 70_001
	_, n := start(t, blob(t, size), "freeze after "+itoa(at)+" bytes")
	c := mustDial(t, n.Addr())
	got := make([]byte, 0, size)
	buf := make([]byte, 8192)
	for {
		c.SetReadDeadline(time.Now().Add(silence))
		k, err := c.Read(buf)
		got = append(got, buf[:k]...)
		if err != nil {
			if !isTimeout(err) {
				t.Fatalf("read: %v", err)
			}
			break
		}
	}
	if len(got) != at {
		t.Fatalf("got %d bytes before the freeze, want exactly %d", len(got), at)
	}
	set(t, n, "heal")
	c.SetReadDeadline(time.Now().Add(wait))
	rest, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if string(append(got, rest...)) != string(pattern(size)) {
		t.Fatalf("after heal: %d bytes in all, not the %d sent", len(got)+len(rest), size)
	}
}

func TestCloseAfterBytes(t *testing.T) {
	_, n := start(t, blob(t, 100_000), "close after 1000 bytes")
	c := mustDial(t, n.Addr())
	c.SetReadDeadline(time.Now().Add(wait))
	got, err := io.ReadAll(c)
	if err != nil || len(got) != 1000 {
		t.Fatalf("got %d bytes, %v; want 1000 then EOF", len(got), err)
	}
}

func TestGarbageServerFallsBackToBytes(t *testing.T) {
	_, n := start(t, blob(t, 5000), "stall")
	c := mustDial(t, n.Addr())
	c.SetReadDeadline(time.Now().Add(wait))
	got, err := io.ReadAll(c)
	if err != nil || string(got) != string(pattern(5000)) {
		t.Fatalf("got %d bytes, %v", len(got), err)
	}
}

func TestUpstreamDownClosesClient(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	_, n := start(t, addr, "heal")
	c := mustDial(t, n.Addr())
	c.SetReadDeadline(time.Now().Add(wait))
	if k, err := c.Read(make([]byte, 1)); k != 0 || isTimeout(err) || err == nil {
		t.Fatalf("read: %d %v; want the connection closed", k, err)
	}
}

func itoa(i int) string { return fmtInt(i) }
