package monitor

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/internal/mariadb"
	"github.com/failsim/failsim/proxy"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/replica"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
	"github.com/failsim/failsim/writer"
)

// The workload of the replication conformance test: 100 writes/s, each with a 2 s deadline.
var (
	confRate     = repl.PerSecond(100)
	confDeadline = 2 * time.Second
)

// TestConformanceReplication: on a real replicated MariaDB at speed 1, under 100 writes/s, the
// live engine fails a killed master over and the replica is promoted for real. The writes lost
// (acknowledged, missing from the new master's ledger) agree with the replication model's
// prediction within one deadline's worth of writes, and the longest outage within one tick:
// with the replica's stream frozen 20 s before the death (about 2,000 writes lost), and with
// it flowing (nothing lost).
func TestConformanceReplication(t *testing.T) {
	if testing.Short() {
		t.Skip("a minute of live replication at speed 1: not with -short")
	}
	c := mariadb.NeedCluster(t, 3)
	front := frontProxy(t, c)
	// db1 dies with db2 streaming; then db2, promoted, dies with db3's stream frozen 20 s before.
	t.Run("flowing", func(t *testing.T) { conformReplication(t, c, front, 0, 1, 0, 0) })
	// db3 streams from db2 now, as the manager would have repointed it.
	admin3 := livePool(t, c.AdminDSN(2))
	src := replica.Source{Addr: c.Route(2, 1), User: mariadb.ReplUser, Password: c.ReplPassword}
	if err := replica.Repoint(context.Background(), admin3, src); err != nil {
		t.Fatalf("repoint db3 to db2: %v", err)
	}
	caughtUp(t, livePool(t, c.AdminDSN(1)), admin3)
	t.Run("frozen", func(t *testing.T) { conformReplication(t, c, front, 1, 2, 2*time.Second, 20*time.Second) })
}

// caughtUp waits until the replica behind rdb has applied everything the master behind mdb
// logged: a scenario starts from replicas that are not behind.
func caughtUp(t *testing.T, mdb, rdb *sql.DB) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(time.Minute)
	for {
		m, err := replica.Read(ctx, mdb)
		if err != nil {
			t.Fatal(err)
		}
		r, err := replica.Read(ctx, rdb)
		if err != nil {
			t.Fatal(err)
		}
		if r.Applied >= m.Binlog {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica applied %d of its master's %d after a minute", r.Applied, m.Binlog)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// frontProxy puts a proxy in front of each server of c: the probes, the writes and the
// promotions reach the servers through it, so a fault on a node is a fault on its link.
func frontProxy(t *testing.T, c *mariadb.Cluster) *proxy.Proxy {
	var nodes []proxy.NodeConfig
	for i, s := range c.Servers {
		nodes = append(nodes, proxy.NodeConfig{Name: c.Names[i], Listen: "127.0.0.1:0", Upstream: s.Addr})
	}
	px, err := proxy.New(proxy.Config{Nodes: nodes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { px.Close() })
	return px
}

// conformReplication runs the two-node cluster master, rep (server indexes of c) live: the
// replica's stream frozen at freezeAt if freezeFor > 0, the master refused freezeFor later
// (at 5 s when nothing is frozen), the run ending 10 s after the death. It compares the live
// lost writes and longest outage with repl.Model's, fed the same events and the failover at
// the simulator's instant.
func conformReplication(t *testing.T, c *mariadb.Cluster, front *proxy.Proxy, master, rep int, freezeAt, freezeFor time.Duration) {
	death := 5 * time.Second
	if freezeFor > 0 {
		death = freezeAt + freezeFor
	}
	end := death + 10*time.Second
	clock := func(d time.Duration) string {
		return fmt.Sprintf("%02d:%02d:%02d", int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60)
	}
	src := fmt.Sprintf("cluster %s:master %s:replica\n%s %s refuse\n%s cluster end\n", c.Names[master], c.Names[rep], clock(death), c.Names[master], clock(end))
	tl, err := timeline.Parse("replication.timeline", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	servers := []int{master, rep}

	// The prediction: the simulator's failover instant, and the replication model.
	sm := statemap.Default()
	simulated := simulate(tl, sm)
	if len(simulated) != 1 || simulated[0].Kind != fence.KindFailover {
		t.Fatalf("the simulator decides %+v, want one failover", simulated)
	}
	m := repl.New(repl.Config{Nodes: 2, Master: 0, Rate: confRate, Deadline: confDeadline})
	if freezeFor > 0 {
		m.Step(freezeAt, repl.SetStream{Node: 1, Frozen: true})
	}
	m.Step(death, repl.SetLink{Node: 0, Link: repl.Link{Dead: true}})
	m.Step(simulated[0].At, repl.Promote{Node: 1, From: 0})
	m.Close(end - 1)
	want := m.Summary()

	// The live run: probes, writes and promotions through the front proxy.
	nodes := make([]Node, 2)
	writes, admins := make([]*sql.DB, 2), make([]*sql.DB, 2)
	for j, i := range servers {
		nd, _ := front.Node(c.Names[i])
		chk, err := NewChecker(CheckerConfig{DSN: through(t, c.DSN(i, "", ""), nd.Addr()), Budget: tl.Timeout})
		if err != nil {
			t.Fatal(err)
		}
		nodes[j] = Node{Name: tl.Nodes[j].Name, Role: tl.Nodes[j].Role, Prober: chk}
		writes[j] = livePool(t, through(t, c.WriterDSN(i), nd.Addr()))
		admins[j] = livePool(t, through(t, c.AdminDSN(i), nd.Addr()))
	}
	var of atomic.Int32 // the master of record, by engine index
	p := &promoter{admins: admins, route: func(r, s int) replica.Source {
		return replica.Source{Addr: c.Route(servers[r], servers[s]), User: mariadb.ReplUser, Password: c.ReplPassword}
	}, of: &of}
	inject := func(j int, f fault.Fault) {
		if err := front.SetMode(c.Names[servers[j]], proxy.Mode{Fault: f}); err != nil {
			t.Errorf("inject %s on %s: %v", f, c.Names[servers[j]], err)
		}
	}
	rt, err := New(Config{Nodes: nodes, Map: sm, Interval: tl.Interval, Speed: 1, Observers: []drive.Observer{p}}, TimelineScript(tl, inject))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), end+time.Minute)
	defer cancel()
	t0 := time.Now()
	wctx, stop := context.WithDeadline(ctx, t0.Add(end))
	defer stop()
	var result writer.Result
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var err error
		result, err = writer.Run(wctx, writer.Config{Rate: confRate, Deadline: confDeadline, DBs: writes, Base: int64(master) * 1_000_000,
			Master: func() int { return int(of.Load()) }}, t0)
		if err != nil {
			t.Error(err)
		}
	}()
	if freezeFor > 0 {
		go func() {
			time.Sleep(time.Until(t0.Add(freezeAt)))
			if err := c.SetLink(rep, proxy.Mode{Fault: fault.Fault{Kind: fault.Freeze}}); err != nil {
				t.Error(err)
			}
		}()
	}
	if err := rt.Run(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	p.wait()
	if err := c.SetLink(rep, proxy.Mode{}); err != nil {
		t.Fatal(err)
	}
	if p.err != nil {
		t.Fatalf("promotion: %v", p.err)
	}
	if !p.done {
		t.Fatal("the live engine never failed the master over")
	}
	lost, err := writer.Lost(ctx, livePool(t, c.DSN(rep, "", "")), result.Acked())
	if err != nil {
		t.Fatal(err)
	}
	got := result.Summary()

	t.Logf("simulated: failover at %v, %d offered, %d acknowledged, %d lost, longest outage %v (%v to %v), unavailable %v",
		simulated[0].At, want.Offered, want.Acknowledged, want.Lost, want.Outage.Length(), want.Outage.From, want.Outage.To, want.Unavailable)
	t.Logf("live:      failover at %v, %d offered, %d acknowledged, %d lost, longest outage %v (%v to %v), unavailable %v",
		p.at, got.Offered, got.Acknowledged, len(lost), got.Outage.Length(), got.Outage.From, got.Outage.To, got.Unavailable)
	if len(lost) > 0 {
		first, last := result.Writes[lost[0]-int64(master)*1_000_000], result.Writes[lost[len(lost)-1]-int64(master)*1_000_000]
		t.Logf("live lost writes %d (issued at %v) to %d (at %v)", first.ID, first.At, last.ID, last.At)
	}
	seen := map[string]bool{}
	for _, w := range result.Writes {
		if w.Err != nil && !seen[w.Err.Error()] && len(seen) < 5 {
			seen[w.Err.Error()] = true
			t.Logf("write %d at %v to node %d failed after %v: %v", w.ID, w.At, w.Node, w.Took, w.Err)
		}
	}
	slack := confRate.Count(0, confDeadline) // one deadline's worth of writes
	if d := int64(len(lost)) - want.Lost; d > slack || d < -slack {
		t.Errorf("live lost %d acknowledged writes, the model %d: want within %d", len(lost), want.Lost, slack)
	}
	if freezeFor == 0 && len(lost) != 0 {
		t.Errorf("with the stream flowing %d acknowledged writes were lost, want none", len(lost))
	}
	if d := got.Outage.Length() - want.Outage.Length(); d > statemap.TickInterval || d < -statemap.TickInterval {
		t.Errorf("live longest outage %v, the model's %v: want within one tick (%v)", got.Outage.Length(), want.Outage.Length(), statemap.TickInterval)
	}
}

// promoter is the live engine's hand: at a failover it promotes the replica for real, then
// makes it the writer's master of record.
type promoter struct {
	admins []*sql.DB
	route  func(replica, source int) replica.Source
	of     *atomic.Int32

	wg   sync.WaitGroup
	mu   sync.Mutex
	done bool
	at   time.Duration
	err  error
}

func (p *promoter) Instant(time.Duration, *fence.Engine) {}

func (p *promoter) Event(ev fence.Event) {
	f, ok := ev.(*fence.Failover)
	if !ok {
		return
	}
	from, to, at := f.Node, f.To, f.At
	p.of.Store(-1) // no master of record until the new one takes writes
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		_, err := replica.Promote(context.Background(), replica.Plan{DBs: p.admins, New: to, Old: from, Route: p.route})
		p.mu.Lock()
		defer p.mu.Unlock()
		p.done, p.at, p.err = true, at, err
		if err == nil {
			p.of.Store(int32(to))
		}
	}()
}

func (p *promoter) wait() { p.wg.Wait() }

// through rewrites dsn's address to addr.
func through(t *testing.T, dsn, addr string) string {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Addr = addr
	return cfg.FormatDSN()
}

// livePool opens a pool with room for the writes in flight under a deadline.
func livePool(t *testing.T, dsn string) *sql.DB {
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
