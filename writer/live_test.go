package writer_test

import (
	"context"
	"database/sql"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/internal/mariadb"
	"github.com/failsim/failsim/proxy"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/replica"
	"github.com/failsim/failsim/writer"
)

// pool opens a database/sql pool on dsn, with room for a second's writes in flight.
func pool(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Timeout = 2 * time.Second
	cfg.Logger = &mysql.NopLogger{}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(64)
	db.SetMaxIdleConns(64)
	t.Cleanup(func() { db.Close() })
	return db
}

// live is a cluster with a proxy in front of each server, as the application and the manager
// reach it: a fault on a node's proxy is a fault on its database link.
type live struct {
	c      *mariadb.Cluster
	front  *proxy.Proxy
	writes []*sql.DB // the writer user, through the front proxy
	admins []*sql.DB // the admin user, through the front proxy
	master atomic.Int32
}

func newLive(t *testing.T, n int) *live {
	c := mariadb.NeedCluster(t, n)
	var nodes []proxy.NodeConfig
	for i, s := range c.Servers {
		nodes = append(nodes, proxy.NodeConfig{Name: c.Names[i], Listen: "127.0.0.1:0", Upstream: s.Addr})
	}
	front, err := proxy.New(proxy.Config{Nodes: nodes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { front.Close() })
	l := &live{c: c, front: front}
	for i := range c.Servers {
		nd, _ := front.Node(c.Names[i])
		l.writes = append(l.writes, pool(t, via(t, c.WriterDSN(i), nd.Addr())))
		l.admins = append(l.admins, pool(t, via(t, c.AdminDSN(i), nd.Addr())))
	}
	return l
}

// via rewrites dsn's address to addr.
func via(t testing.TB, dsn, addr string) string {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Addr = addr
	return cfg.FormatDSN()
}

func (l *live) set(t *testing.T, node int, f fault.Kind) {
	t.Helper()
	if err := l.front.SetMode(l.c.Names[node], proxy.Mode{Fault: fault.Fault{Kind: f}}); err != nil {
		t.Fatal(err)
	}
}

// scenario runs the writer for 6 s at 100 writes/s from a fresh start: optionally freezes the
// stream of the replica to be promoted before the first write, kills the master's link (refuse) at 2 s and
// promotes the replica at 3 s. It returns the run, the ids lost on the new master and the
// promotion.
func (l *live) scenario(t *testing.T, base int64, from, to int, others []int, freeze bool) (writer.Result, []int64, replica.Promotion, span) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg := writer.Config{Rate: repl.PerSecond(100), Deadline: 2 * time.Second, DBs: l.writes, Base: base,
		Master: func() int { return int(l.master.Load()) }}
	l.master.Store(int32(from))
	if freeze { // before the first write: every write the master acknowledges is then lost
		if err := l.c.SetLink(to, proxy.Mode{Fault: fault.Fault{Kind: fault.Freeze}}); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now().Add(50 * time.Millisecond)
	runCtx, stop := context.WithDeadline(ctx, t0.Add(6*time.Second))
	defer stop()
	done := make(chan writer.Result, 1)
	go func() {
		r, err := writer.Run(runCtx, cfg, t0)
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	time.Sleep(time.Until(t0.Add(2 * time.Second)))
	l.set(t, from, fault.Refuse)
	var sp span
	sp.death = time.Since(t0)
	time.Sleep(time.Until(t0.Add(3 * time.Second)))
	route := func(r, s int) replica.Source {
		return replica.Source{Addr: l.c.Route(r, s), User: mariadb.ReplUser, Password: l.c.ReplPassword}
	}
	pr, err := replica.Promote(ctx, replica.Plan{DBs: l.admins, New: to, Old: from, Repoint: others, Route: route})
	if err != nil {
		t.Fatalf("promote %s: %v", l.c.Names[to], err)
	}
	l.master.Store(int32(to))
	sp.promoted = time.Since(t0)
	r := <-done
	if freeze {
		if err := l.c.SetLink(to, proxy.Mode{}); err != nil {
			t.Fatal(err)
		}
	}
	lost, err := writer.Lost(ctx, l.readBack(t, to), r.Acked())
	if err != nil {
		t.Fatal(err)
	}
	return r, lost, pr, sp
}

// span is when a scenario's master died and when its replica took writes, since the start.
type span struct{ death, promoted time.Duration }

// down checks that no write issued between the death and the promotion was acknowledged.
func down(t *testing.T, r writer.Result, sp span) {
	t.Helper()
	for _, w := range r.Writes {
		if w.At > sp.death && w.At < sp.promoted && w.Acked {
			t.Fatalf("write %d issued at %v, between the death at %v and the promotion at %v, was acknowledged", w.ID, w.At, sp.death, sp.promoted)
		}
	}
}

// warm opens some connections in each pool, so that the run does not start by dialling.
func (l *live) warm(t *testing.T) {
	for _, db := range l.writes {
		conns := make([]*sql.Conn, 16)
		for i := range conns {
			c, err := db.Conn(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			conns[i] = c
		}
		for _, c := range conns {
			c.Close()
		}
	}
}

// readBack opens the probe user straight on server i.
func (l *live) readBack(t *testing.T, i int) *sql.DB {
	return pool(t, l.c.DSN(i, "", ""))
}

// TestLostWritesOnARealCluster: under 100 writes/s the master's link dies and a replica is
// promoted a second later. With every stream flowing nothing acknowledged is lost; when the
// promoted replica's stream was frozen before the death, exactly the writes acknowledged after
// the freeze are lost, and none acknowledged by the new master.
func TestLostWritesOnARealCluster(t *testing.T) {
	l := newLive(t, 3)

	l.warm(t)

	// db1 dies, db2 (streaming) is promoted, db3 repointed to it: nothing lost.
	r, lost, pr, sp := l.scenario(t, 0, 0, 1, []int{2}, false)
	s := r.Summary()
	t.Logf("no freeze: %d offered, %d acknowledged, outage %v (%v to %v), death at %v, promoted at %v, promotion %+v",
		s.Offered, s.Acknowledged, s.Outage.Length(), s.Outage.From, s.Outage.To, sp.death, sp.promoted, pr)
	if len(lost) != 0 {
		t.Errorf("no freeze: %d acknowledged writes lost (%v...)", len(lost), lost[:min(5, len(lost))])
	}
	if s.Acknowledged == 0 {
		t.Error("no freeze: no write acknowledged")
	}
	down(t, r, sp) // and the outage covers the death to the promotion
	if pr.Fenced == nil {
		t.Error("the dead master was fenced through its refused link")
	}

	// db3's stream frozen from the start; db2 dies, db3 is promoted: what db2 acknowledged is lost.
	r, lost, _, sp = l.scenario(t, 1_000_000, 1, 2, nil, true)
	down(t, r, sp)
	s = r.Summary()
	t.Logf("freeze: %d offered, %d acknowledged, %d lost, outage %v", s.Offered, s.Acknowledged, len(lost), s.Outage.Length())
	if len(lost) == 0 {
		t.Fatal("freeze: no acknowledged write lost, want those made while db3's stream was frozen")
	}
	for _, id := range lost {
		w := r.Writes[id-1_000_000]
		if w.Node != 1 || w.At > sp.death {
			t.Fatalf("freeze: lost write %d went to %s at %v: only db2's, before its death at %v, may be lost", id, l.c.Names[w.Node], w.At, sp.death)
		}
	}
	for _, w := range r.Writes {
		if w.Acked && w.Node == 1 && !contains(lost, w.ID) {
			t.Fatalf("freeze: write %d acknowledged by db2 at %v while db3's stream was frozen, and not lost", w.ID, w.At)
		}
	}
}

func contains(xs []int64, x int64) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
