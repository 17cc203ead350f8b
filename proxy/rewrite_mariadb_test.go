package proxy_test

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/failsim/failsim/internal/mariadb"
	"github.com/failsim/failsim/proxy"
)

// discoverer finds a replication topology the way Orchestrator does: from one seed address it
// reads each server's name for itself (@@hostname, @@report_host, @@port), its replicas (SHOW
// SLAVE HOSTS) and its source (SHOW SLAVE STATUS: Master_Host, Master_Port), and connects to
// every address it learns, holding each connection as a manager's poller does. It dials only
// loopback addresses: one that is not is recorded as learned, never dialled.
type discoverer struct {
	user, password string
	conns          map[string]*sql.Conn // by the address dialled
	dbs            []*sql.DB
	learned        []string // every address learned, in order
	servers        map[string]instance
}

// instance is one server as discovered.
type instance struct {
	addr     string // the address it answered at
	self     string // its own name for itself: report_host or hostname, and port
	serverID int
	source   string   // Master_Host:Master_Port, "" for a master
	replicas []string // SHOW SLAVE HOSTS: Host:Port
}

func (d *discoverer) discover(ctx context.Context, t *testing.T, seed string) {
	t.Helper()
	d.conns, d.servers = map[string]*sql.Conn{}, map[string]instance{}
	queue := []string{seed}
	for len(queue) > 0 {
		addr := queue[0]
		queue = queue[1:]
		if _, done := d.conns[addr]; done {
			continue
		}
		if !isLoopbackAddr(addr) {
			continue // learned (a leak in itself), not dialled: nothing leaves 127.0.0.0/8
		}
		in, err := d.probe(ctx, addr)
		if err != nil {
			t.Fatalf("discover %s: %v", addr, err)
		}
		d.servers[addr] = in
		for _, a := range append([]string{in.self, in.source}, in.replicas...) {
			if a != "" {
				d.learned = append(d.learned, a)
				queue = append(queue, a)
			}
		}
	}
}

// probe connects to addr, holds the connection, and reads the server's view of the topology.
func (d *discoverer) probe(ctx context.Context, addr string) (instance, error) {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = d.user, d.password, "tcp", addr
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = 5*time.Second, 10*time.Second, 10*time.Second
	cfg.Logger = &mysql.NopLogger{}
	cn, err := mysql.NewConnector(cfg)
	if err != nil {
		return instance{}, err
	}
	db := sql.OpenDB(cn)
	d.dbs = append(d.dbs, db)
	conn, err := db.Conn(ctx)
	if err != nil {
		return instance{}, err
	}
	d.conns[addr] = conn
	in := instance{addr: addr}
	var hostname, reportHost string
	var port int
	// Orchestrator's own query, and the port its resolved key takes.
	if err := conn.QueryRowContext(ctx, "select @@global.hostname, ifnull(@@global.report_host, ''), @@global.server_id, @@global.port").
		Scan(&hostname, &reportHost, &in.serverID, &port); err != nil {
		return in, fmt.Errorf("@@hostname: %w", err)
	}
	name := hostname
	if reportHost != "" {
		name = reportHost
	}
	in.self = net.JoinHostPort(name, strconv.Itoa(port))
	rows, err := conn.QueryContext(ctx, "SHOW SLAVE HOSTS")
	if err != nil {
		return in, fmt.Errorf("SHOW SLAVE HOSTS: %w", err)
	}
	for rows.Next() {
		m, err := rowMap(rows)
		if err != nil {
			return in, err
		}
		in.replicas = append(in.replicas, net.JoinHostPort(m["Host"], m["Port"]))
	}
	if err := rows.Close(); err != nil {
		return in, err
	}
	st, err := slaveStatus(ctx, conn)
	if err != nil {
		return in, fmt.Errorf("SHOW SLAVE STATUS: %w", err)
	}
	if st != nil {
		in.source = net.JoinHostPort(st["Master_Host"], st["Master_Port"])
	}
	return in, nil
}

// slaveStatus reads SHOW SLAVE STATUS as column name to value; nil when there is no row.
func slaveStatus(ctx context.Context, conn *sql.Conn) (map[string]string, error) {
	rows, err := conn.QueryContext(ctx, "SHOW SLAVE STATUS")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		return nil, rows.Err()
	}
	return rowMap(rows)
}

// rowMap reads the current row as column name to value.
func rowMap(rows *sql.Rows) (map[string]string, error) {
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	m := map[string]string{}
	for i, c := range cols {
		m[c] = vals[i].String
	}
	return m, nil
}

func (d *discoverer) close() {
	for _, c := range d.conns {
		c.Close()
	}
	for _, db := range d.dbs {
		db.Close()
	}
}

func isLoopbackAddr(addr string) bool {
	h, _, err := net.SplitHostPort(addr)
	ip := net.ParseIP(h)
	return err == nil && ip != nil && ip.IsLoopback()
}

// TestDiscoveryStaysBehindTheProxies is seed 000's test for MySQL: a replicated MariaDB cluster
// (db1 the master, db2 and db3 its replicas, each replica streaming through a link of its
// own), a failsim proxy node in front of every member, and a client that discovers like
// Orchestrator from one seed address. With rewriting on, once it has found the whole cluster
// every connection it holds is to a proxy address, and every address it learned is one;
// without, the same discovery learns and dials the real servers.
func TestDiscoveryStaysBehindTheProxies(t *testing.T) {
	c := mariadb.NeedCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	real := map[string]bool{}
	for _, s := range c.Servers {
		real[s.Addr] = true
	}
	for _, rewrite := range []bool{true, false} {
		t.Run(fmt.Sprintf("rewrite=%v", rewrite), func(t *testing.T) {
			var nodes []proxy.NodeConfig
			for i, s := range c.Servers {
				nc := proxy.NodeConfig{Name: c.Names[i], Listen: "127.0.0.1:0", Upstream: s.Addr, RewriteTopology: rewrite}
				for j := range c.Servers {
					if j != i { // the link that carries j's stream from i: j's Master_Host names it
						nc.TopologyAliases = append(nc.TopologyAliases, c.Route(j, i))
					}
				}
				nodes = append(nodes, nc)
			}
			p, err := proxy.New(proxy.Config{Nodes: nodes, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			proxies := map[string]string{} // proxy address -> node
			for _, n := range p.Nodes() {
				proxies[n.Addr()] = n.Name()
			}
			seed, _ := p.Node("db2") // a replica: discovery must climb to the master and down again
			d := &discoverer{user: mariadb.AdminUser, password: c.AdminPassword}
			defer d.close()
			d.discover(ctx, t, seed.Addr())

			ids := map[int]bool{}
			for _, in := range d.servers {
				ids[in.serverID] = true
			}
			if len(ids) != 3 {
				t.Fatalf("discovered servers %v: want all three of the cluster", d.servers)
			}
			held := slices.Sorted(func(yield func(string) bool) {
				for a := range d.conns {
					if !yield(a) {
						return
					}
				}
			})
			t.Logf("connections held %v; addresses learned %v", held, d.learned)
			if !rewrite {
				// The control: the same discovery leaks the real addresses and dials them.
				leaked := slices.ContainsFunc(held, func(a string) bool { return real[a] })
				if !leaked {
					t.Fatalf("without rewriting the connections %v reach no real server: the control proves nothing", held)
				}
				return
			}
			for _, a := range held {
				if _, ok := proxies[a]; !ok {
					t.Errorf("a connection to %s, not a proxy address (proxies %v, real servers %v)", a, proxies, real)
				}
			}
			for _, a := range d.learned {
				if _, ok := proxies[a]; !ok {
					t.Errorf("learned %s, not a proxy address", a)
				}
			}
			if len(held) != 3 {
				t.Errorf("connections held %v: want one to each of the three proxies", held)
			}
			// The topology as discovered, in proxy addresses: db1 the source of the others.
			db1, _ := p.Node("db1")
			for _, n := range p.Nodes() {
				in := d.servers[n.Addr()]
				if in.self != n.Addr() {
					t.Errorf("%s names itself %s, want its proxy %s", n.Name(), in.self, n.Addr())
				}
				if n.Name() != "db1" && in.source != db1.Addr() {
					t.Errorf("%s's source is %s, want db1's proxy %s", n.Name(), in.source, db1.Addr())
				}
				if got := n.Status(); got.Open < 1 || got.TopologyRewrites == 0 {
					t.Errorf("%s: %d open connections, %d rewrites: want the discoverer's connection, rewritten", n.Name(), got.Open, got.TopologyRewrites)
				}
			}
			if in := d.servers[db1.Addr()]; len(in.replicas) != 2 {
				t.Errorf("db1's replicas %v, want db2's and db3's proxies", in.replicas)
			}

			// MariaDB's other spellings, through db2's proxy (db1's for its replicas).
			db2, _ := p.Node("db2")
			_, port1, _ := net.SplitHostPort(db1.Addr())
			_, port2, _ := net.SplitHostPort(db2.Addr())
			for _, tc := range []struct {
				node, q, col, want string
			}{
				{db2.Addr(), "SHOW ALL SLAVES STATUS", "Master_Port", port1},
				{db2.Addr(), "SHOW REPLICA STATUS", "Master_Port", port1},
				{db2.Addr(), "SHOW GLOBAL VARIABLES LIKE 'port'", "Value", port2},
				{db2.Addr(), "SELECT @@report_port AS rp", "rp", port2},
				{db2.Addr(), "/* a comment */ select @@GLOBAL.Hostname", "@@GLOBAL.Hostname", "127.0.0.1"},
			} {
				if got := rowMapOf(ctx, t, proxyDSN(c, 1, tc.node), tc.q)[tc.col]; got != tc.want {
					t.Errorf("%s through %s: %s = %q, want %q", tc.q, tc.node, tc.col, got, tc.want)
				}
			}
			var hosts []string
			for _, r := range rowsOf(ctx, t, proxyDSN(c, 0, db1.Addr()), "SHOW REPLICA HOSTS") {
				hosts = append(hosts, net.JoinHostPort(r["Host"], r["Port"]))
			}
			slices.Sort(hosts)
			db3, _ := p.Node("db3")
			want := []string{db2.Addr(), db3.Addr()}
			slices.Sort(want)
			if !slices.Equal(hosts, want) {
				t.Errorf("SHOW REPLICA HOSTS through db1's proxy: %v, want %v", hosts, want)
			}

			// A result that does not report topology is the same through the proxy as direct.
			q := "SELECT @@server_id, @@version, 'SHOW SLAVE HOSTS' AS q, 3306 AS port, @@hostname AS h FROM dual WHERE 1 = 1"
			direct, via := rowOf(ctx, t, c.AdminDSN(0), q), rowOf(ctx, t, proxyDSN(c, 0, db1.Addr()), q)
			if !slices.Equal(direct[:4], via[:4]) || via[4] != "127.0.0.1" {
				t.Errorf("%s: direct %q, through the proxy %q: want the first four equal and h the proxy's host", q, direct, via)
			}
		})
	}
}

// proxyDSN is the admin user's DSN on server i, through addr.
func proxyDSN(c *mariadb.Cluster, i int, addr string) string {
	cfg, _ := mysql.ParseDSN(c.AdminDSN(i))
	cfg.Addr = addr
	return cfg.FormatDSN()
}

// rowOf runs q on dsn and returns its one row as strings.
func rowOf(ctx context.Context, t *testing.T, dsn, q string) []string {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatalf("%s: no row (%v)", q, rows.Err())
	}
	m, err := rowMap(rows)
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = m[c]
	}
	return out
}

// rowsOf runs q on dsn and returns its rows as column name to value.
func rowsOf(ctx context.Context, t *testing.T, dsn, q string) []map[string]string {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []map[string]string
	for rows.Next() {
		m, err := rowMap(rows)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

// rowMapOf runs q on dsn and returns its one row as column name to value.
func rowMapOf(ctx context.Context, t *testing.T, dsn, q string) map[string]string {
	t.Helper()
	rows := rowsOf(ctx, t, dsn, q)
	if len(rows) != 1 {
		t.Fatalf("%s: %d rows, want 1", q, len(rows))
	}
	return rows[0]
}
