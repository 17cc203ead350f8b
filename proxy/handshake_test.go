package proxy

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	dto "github.com/prometheus/client_model/go"

	"github.com/failsim/failsim/internal/fakemysql"
)

// expectClosed waits for the proxy to close c: EOF before any byte.
func expectClosed(t *testing.T, rc *rawClient, what string) {
	t.Helper()
	if _, _, err := rc.read(10 * time.Second); !errors.Is(err, io.EOF) {
		t.Fatalf("%s: %v, want the connection closed (EOF)", what, err)
	}
}

// expectOpen checks that nothing comes and nothing closes on c for a moment.
func expectOpen(t *testing.T, rc *rawClient, what string) {
	t.Helper()
	if _, _, err := rc.read(silence); !isTimeout(err) {
		t.Fatalf("%s: %v, want silence on an open connection", what, err)
	}
}

// greeted dials the node, reads the greeting, and waits for the proxy to start the
// connection's handshake bound (just after it wrote the greeting), so that moving a mock
// clock from here on acts on it.
func greeted(t *testing.T, n *Node) *rawClient {
	t.Helper()
	before := n.stats.handshaking.Load()
	rc := newRaw(mustDial(t, n.Addr()))
	if _, _, err := rc.read(wait); err != nil {
		t.Fatalf("greeting: %v", err)
	}
	for deadline := time.Now().Add(wait); n.stats.handshaking.Load() == before; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the handshake bound did not start")
		}
	}
	return rc
}

// answer sends a handshake response and expects the server's OK.
func (rc *rawClient) answer(t *testing.T) {
	t.Helper()
	if err := rc.write(1, make([]byte, 40)); err != nil {
		t.Fatal(err)
	}
	if _, p, err := rc.read(wait); err != nil || p[0] != 0 {
		t.Fatalf("login: %v %x", err, p)
	}
}

// TestHandshakeTimeoutClosesSilentClients: clients that take the greeting and never answer
// are closed once the bound passes, and their descriptors are released.
func TestHandshakeTimeoutClosesSilentClients(t *testing.T) {
	const clients = 200
	p, n := start(t, fake(t, fakemysql.Config{}), "heal", func(c *Config) { c.HandshakeTimeout = 300 * time.Millisecond })
	rcs := make([]*rawClient, clients)
	for i := range rcs {
		rcs[i] = greeted(t, n)
	}
	for i, rc := range rcs {
		expectClosed(t, rc, "silent client "+itoa(i))
	}
	for deadline := time.Now().Add(10 * time.Second); n.Status().Open > 0; {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections still open", n.Status().Open)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if st := n.Status(); st.HandshakeTimeouts != clients || st.Faulted != 0 {
		t.Errorf("handshake timeouts %d, faulted %d; want %d, 0", st.HandshakeTimeouts, st.Faulted, clients)
	}
	got := seriesOf(t, scrapeMetrics(t, p), "failsim_proxy_handshake_timeouts_total", dto.MetricType_COUNTER, "node")
	if v, ok := got["node="+n.Name()]; !ok || v != clients {
		t.Errorf("failsim_proxy_handshake_timeouts_total: %v, want %d for %s", got, clients, n.Name())
	}
}

// TestHandshakeTimeoutDefault: with the zero Config the bound is 30 s.
func TestHandshakeTimeoutDefault(t *testing.T) {
	mock := clock.NewMock()
	_, n := start(t, fake(t, fakemysql.Config{}), "heal", func(c *Config) { c.Clock = mock })
	rc := greeted(t, n)
	mock.Add(DefaultHandshakeTimeout - time.Second)
	expectOpen(t, rc, "29 s after the greeting")
	mock.Add(time.Second)
	expectClosed(t, rc, "30 s after the greeting")

	_, off := start(t, fake(t, fakemysql.Config{}), "heal", func(c *Config) { c.Clock = mock; c.HandshakeTimeout = -1 })
	rc = newRaw(mustDial(t, off.Addr()))
	if _, _, err := rc.read(wait); err != nil {
		t.Fatalf("greeting: %v", err)
	}
	mock.Add(24 * time.Hour)
	expectOpen(t, rc, "a day after the greeting, bound off")
	rc.answer(t)
}

// TestHandshakeTimeoutSparesLoggedInClients: a client that logged in never meets the bound,
// however long it then stays idle, and neither does one that answered just in time.
func TestHandshakeTimeoutSparesLoggedInClients(t *testing.T) {
	mock := clock.NewMock()
	_, n := start(t, fake(t, fakemysql.Config{}), "heal", func(c *Config) { c.Clock = mock })
	rc := newRaw(mustDial(t, n.Addr()))
	rc.login(t)
	late := greeted(t, n)
	mock.Add(DefaultHandshakeTimeout - time.Millisecond)
	late.answer(t)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	db, err := mysqlConnect(ctx, n.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mock.Add(24 * time.Hour)
	for _, c := range []*rawClient{rc, late} {
		if err := c.ping(wait); err != nil {
			t.Fatalf("ping a day after the login: %v", err)
		}
	}
	if err := selectOne(db, wait); err != nil {
		t.Fatalf("go-sql-driver a day after the login: %v", err)
	}
	if got := n.Status().HandshakeTimeouts; got != 0 {
		t.Errorf("handshake timeouts %d, want 0", got)
	}
}

// TestHandshakeTimeoutNeverRunsWhileHeld: freeze, blackhole and stall hold a client as long
// as they last (an hour here, far past any client's budget), whatever the handshake bound;
// after heal the client has the full bound again.
func TestHandshakeTimeoutNeverRunsWhileHeld(t *testing.T) {
	mock := clock.NewMock()
	_, n := start(t, fake(t, fakemysql.Config{}), "heal", func(c *Config) { c.Clock = mock })

	t.Run("frozen before the greeting", func(t *testing.T) {
		set(t, n, "freeze")
		rc := newRaw(mustDial(t, n.Addr()))
		mock.Add(time.Hour)
		expectOpen(t, rc, "an hour into the freeze")
		set(t, n, "heal")
		rc.login(t)
	})
	for _, mode := range []string{"freeze", "blackhole"} {
		t.Run(mode+" after the greeting", func(t *testing.T) {
			rc := greeted(t, n)
			set(t, n, mode)
			mock.Add(time.Hour)
			expectOpen(t, rc, "an hour into "+mode)
			set(t, n, "heal")
			mock.Add(DefaultHandshakeTimeout - time.Second)
			rc.answer(t)
		})
	}
	t.Run("the bound restarts in full at heal", func(t *testing.T) {
		rc := greeted(t, n)
		mock.Add(DefaultHandshakeTimeout / 2)
		set(t, n, "freeze")
		mock.Add(time.Hour)
		set(t, n, "heal")
		mock.Add(DefaultHandshakeTimeout - time.Second)
		expectOpen(t, rc, "29 s after heal")
		mock.Add(time.Second)
		expectClosed(t, rc, "30 s after heal")
	})
	t.Run("frozen mid-greeting by a byte trigger", func(t *testing.T) {
		set(t, n, "freeze after 10 bytes")
		c := mustDial(t, n.Addr())
		c.SetReadDeadline(time.Now().Add(wait))
		if _, err := io.ReadFull(c, make([]byte, 10)); err != nil {
			t.Fatal(err)
		}
		rc := newRaw(c)
		mock.Add(time.Hour)
		expectOpen(t, rc, "an hour into the triggered freeze")
		set(t, n, "heal")
		mock.Add(DefaultHandshakeTimeout - time.Second)
		rest := make([]byte, 1024)
		c.SetReadDeadline(time.Now().Add(wait))
		if k, err := c.Read(rest); err != nil || k == 0 {
			t.Fatalf("rest of the greeting after heal: %d bytes, %v", k, err)
		}
		rc.answer(t)
	})
	t.Run("stall", func(t *testing.T) {
		set(t, n, "stall")
		rc := newRaw(mustDial(t, n.Addr()))
		rc.login(t)
		if err := rc.ping(silence); !isTimeout(err) {
			t.Fatalf("ping while stalled: %v, want no reply", err)
		}
		mock.Add(time.Hour)
		expectOpen(t, rc, "an hour into the stall")
		set(t, n, "heal")
		if _, p, err := rc.read(wait); err != nil || p[0] != 0 {
			t.Fatalf("held ping after heal: %v %x", err, p)
		}
	})
	if got := n.Status().HandshakeTimeouts; got != 1 {
		t.Errorf("handshake timeouts %d, want 1 (the client that stayed silent after heal)", got)
	}
}
