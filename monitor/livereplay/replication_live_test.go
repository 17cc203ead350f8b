package livereplay

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/internal/mariadb"
	"github.com/failsim/failsim/monitor"
	"github.com/failsim/failsim/proxy"
	"github.com/failsim/failsim/repl"
	"github.com/failsim/failsim/replica"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// The workload of the replication conformance test: 100 writes/s, each with a 2 s deadline.
var (
	confRate     = repl.PerSecond(100)
	confDeadline = 2 * time.Second
)

// TestConformanceReplication: on a real replicated MariaDB at speed 1, under 100 writes/s, the
// live engine fails a killed master over and a replica is promoted for real. The writes lost
// (acknowledged, missing from the new master's ledger) agree with the replication model's
// prediction within one deadline's worth of writes, the longest outage within one tick, and the
// replica promoted is the model's:
//
//   - ranked: db1, db2, db3; db2's stream frozen at 2 s, db1 refused at 7 s. The most advanced
//     replica, db3, is promoted, not db2, the first in order; nothing is lost.
//   - frozen: db3 (now the master) and db2; db2's stream frozen at 2 s, db3 refused 20 s later.
//     db2 is the only candidate: what db3 acknowledged in those 20 s is lost (about 2,000).
//   - semisync: the same under semisync (timeout 10 s), db2 the master, db3's stream frozen at
//     2 s, db2 refused at 7 s: no write is acknowledged once no replica stores, so nothing is
//     lost; the outage runs from the freeze through the promotion. Live and model differ here,
//     within the tick: in the model the new master, under semisync with no replica, makes its
//     first write wait the timeout before it falls back (outage to 17 s); MariaDB's new master,
//     whose semisync status is off until a semisync replica connects, commits at once (outage
//     to about 11 s, the frozen receiver taking about 2 s to stop).
func TestConformanceReplication(t *testing.T) {
	if testing.Short() {
		t.Skip("a minute of live replication at speed 1: not with -short")
	}
	c := mariadb.NeedCluster(t, 3)
	front := frontProxy(t, c)
	t.Run("ranked", func(t *testing.T) {
		conformReplication(t, c, front, scenario{servers: []int{0, 1, 2}, frozen: 1, freezeAt: 2 * time.Second, death: 7 * time.Second, want: 2})
	})
	// db2 streams from db3 now (the promotion repointed it): heal its link and let it catch up.
	if err := c.SetLink(1, proxy.Mode{}); err != nil {
		t.Fatal(err)
	}
	caughtUp(t, livePool(t, c.AdminDSN(2)), livePool(t, c.AdminDSN(1)))
	t.Run("frozen", func(t *testing.T) {
		conformReplication(t, c, front, scenario{servers: []int{2, 1}, frozen: 1, freezeAt: 2 * time.Second, death: 22 * time.Second, want: 1})
	})
	// db3 back in service as db2's replica, caught up; db3's database link healed.
	if err := front.SetMode(c.Names[2], proxy.Mode{}); err != nil {
		t.Fatal(err)
	}
	admin3 := livePool(t, c.AdminDSN(2))
	if err := replica.Repoint(context.Background(), admin3, replica.Source{Addr: c.Route(2, 1), User: mariadb.ReplUser, Password: c.ReplPassword}); err != nil {
		t.Fatal(err)
	}
	caughtUp(t, livePool(t, c.AdminDSN(1)), admin3)
	t.Run("semisync", func(t *testing.T) {
		conformReplication(t, c, front, scenario{servers: []int{1, 2}, frozen: 1, freezeAt: 2 * time.Second, death: 7 * time.Second, want: 1,
			semisync: repl.DefaultTimeout, tail: 15 * time.Second})
	})
}

// scenario is one run of the replication conformance test: the servers of the engine's nodes
// (indexes into the cluster, the first the master), the node whose stream freezes at freezeAt,
// the master's death, the node both must promote, semisync's timeout (0: async), and how long
// the run goes on after the death (0: 10 s).
type scenario struct {
	servers         []int
	frozen          int
	freezeAt, death time.Duration
	want            int
	semisync, tail  time.Duration
}

// conformReplication runs scenario sc live on cluster c, and compares the live run with
// repl.Model fed the same events and the failover at the simulator's instant.
func conformReplication(t *testing.T, c *mariadb.Cluster, front *proxy.Proxy, sc scenario) {
	servers, frozen, freezeAt, death, want := sc.servers, sc.frozen, sc.freezeAt, sc.death, sc.want
	end := death + 10*time.Second
	if sc.tail > 0 {
		end = death + sc.tail
	}
	clock := func(d time.Duration) string {
		return fmt.Sprintf("%02d:%02d:%02d", int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60)
	}
	src := "cluster " + c.Names[servers[0]] + ":master"
	for _, i := range servers[1:] {
		src += " " + c.Names[i] + ":replica"
	}
	src += fmt.Sprintf("\n%s %s refuse\n%s cluster end\n", clock(death), c.Names[servers[0]], clock(end))
	tl, err := timeline.Parse("replication.timeline", []byte(src))
	if err != nil {
		t.Fatal(err)
	}

	// The prediction: the simulator's failover instant, the model's ranking and ledger.
	sm := statemap.Default()
	simulated := simulate(tl, sm)
	if len(simulated) != 1 || simulated[0].Kind != fence.KindFailover {
		t.Fatalf("the simulator decides %+v, want one failover", simulated)
	}
	n := len(servers)
	rc := repl.Config{Nodes: n, Master: 0, Rate: confRate, Deadline: confDeadline}
	if sc.semisync > 0 {
		rc.Mode, rc.Timeout = repl.Semisync, sc.semisync
	}
	m := repl.New(rc)
	m.Step(freezeAt, repl.SetStream{Node: frozen, Frozen: true})
	m.Step(death, repl.SetLink{Node: 0, Link: repl.Link{Dead: true}})
	at := simulated[0].At
	m.Begin(at)
	to := m.Candidate(nil)(nil, func(j int) bool { return j != 0 })
	var others []int
	for j := 1; j < n; j++ {
		if j != to {
			others = append(others, j)
		}
	}
	m.Step(at, repl.Promote{Node: to, From: 0, Repoint: others})
	m.Close(end - 1)
	predicted := m.Summary()
	if to != want {
		t.Fatalf("the model promotes node %d, want %d", to, want)
	}

	// The live run: probes, writes and promotions through the front proxy.
	cfg := LiveReplicationConfig{
		Config:      monitor.Config{Map: sm, Interval: tl.Interval},
		Script:      TimelineScript(tl, func(j int, f fault.Fault) {}),
		Replication: []ReplicationAction{{At: freezeAt, Node: frozen, Kind: LinkFreeze}},
		SetLink:     func(j int, md proxy.Mode) error { return c.SetLink(servers[j], md) },
		Route: func(r, s int) replica.Source {
			return replica.Source{Addr: c.Route(servers[r], servers[s]), User: mariadb.ReplUser, Password: c.ReplPassword}
		},
		Rate: confRate, Deadline: confDeadline, Base: int64(servers[0]) * 1_000_000,
		Semisync: sc.semisync,
	}
	cfg.Script.Inject = func(j int, f fault.Fault) {
		if err := front.SetMode(c.Names[servers[j]], proxy.Mode{Fault: f}); err != nil {
			t.Errorf("inject %s on %s: %v", f, c.Names[servers[j]], err)
		}
	}
	for j, i := range servers {
		nd, _ := front.Node(c.Names[i])
		chk, err := monitor.NewChecker(monitor.CheckerConfig{DSN: through(t, c.DSN(i, "", ""), nd.Addr()), Budget: tl.Timeout})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Nodes = append(cfg.Nodes, monitor.Node{Name: tl.Nodes[j].Name, Role: tl.Nodes[j].Role, Prober: chk})
		cfg.Writers = append(cfg.Writers, livePool(t, through(t, c.WriterDSN(i), nd.Addr())))
		cfg.Admins = append(cfg.Admins, livePool(t, through(t, c.AdminDSN(i), nd.Addr())))
		cfg.Readers = append(cfg.Readers, livePool(t, c.DSN(i, "", ""))) // straight to the server
	}
	ctx, cancel := context.WithTimeout(context.Background(), end+time.Minute)
	defer cancel()
	res, err := LiveReplication(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Errors {
		t.Errorf("replication action: %v", e)
	}
	for _, g := range res.Gaps {
		t.Logf("not exercised: %s", DescribeGap(tl.Start, g)) // the machine was overloaded: say so beside a difference
	}
	if len(res.Promotions) != 1 {
		t.Fatalf("live promotions %+v, want one", res.Promotions)
	}
	pr := res.Promotions[0]
	if pr.Err != nil {
		t.Fatalf("promotion of %s: %v", tl.Nodes[pr.To].Name, pr.Err)
	}
	got := res.Writes.Summary()
	lines, agree := CompareReplication(tl.Start, predicted, got, int64(len(res.Lost)), confRate, confDeadline, 1)
	for _, l := range lines {
		t.Log(l)
	}
	t.Logf("simulated: failover at %v to %s; live: failover at %v to %s, told at %v, writable at %v, %+v",
		at, tl.Nodes[to].Name, pr.At, tl.Nodes[pr.To].Name, pr.Decided, pr.Writable, pr.Promotion)
	if len(res.Lost) > 0 {
		first, last := res.Writes.Writes[res.Lost[0]-cfg.Base], res.Writes.Writes[res.Lost[len(res.Lost)-1]-cfg.Base]
		t.Logf("live lost writes %d (issued at %v) to %d (at %v)", first.ID, first.At, last.ID, last.At)
	}
	if pr.To != want || res.Master != want {
		t.Errorf("live promoted %s (master of record at the end: %d), want %s", tl.Nodes[pr.To].Name, res.Master, tl.Nodes[want].Name)
	}
	if !agree {
		t.Error("the live run does not agree with the model (above)")
	}
	if predicted.Lost == 0 && len(res.Lost) != 0 {
		t.Errorf("the promoted replica's stream flowed, yet %d acknowledged writes were lost", len(res.Lost))
	}
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
