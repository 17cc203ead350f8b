package mariadb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/failsim/failsim/replica"

	"github.com/go-sql-driver/mysql"

	"github.com/failsim/failsim/proxy"
)

// The users a cluster's servers share, each with one random password for the whole cluster.
const (
	WriterUser = "failsim_writer" // INSERT on failsim.ledger, nothing else
	AdminUser  = "failsim_admin"  // what a promotion needs: see AdminGrants
	ReplUser   = "failsim_repl"   // the replicas' replication connections: REPLICATION SLAVE
)

// AdminGrants are the privileges a promotion needs on MariaDB 10.11, and no more: STOP and
// START REPLICA and CHANGE MASTER (MASTER_DELAY, repointing) need REPLICATION SLAVE ADMIN;
// RESET REPLICA ALL needs RELOAD as well; SHOW REPLICA STATUS (the stored position) needs
// REPLICA MONITOR; setting read_only needs READ_ONLY ADMIN, which SUPER no longer includes
// from 10.11 (MDEV-29596); turning semisync on or off on a master (rpl_semi_sync_master_*)
// needs REPLICATION MASTER ADMIN (on a replica REPLICATION SLAVE ADMIN is enough). The
// cluster's test and package replica's pin each.
const AdminGrants = "REPLICATION SLAVE ADMIN, RELOAD, REPLICA MONITOR, READ_ONLY ADMIN, REPLICATION MASTER ADMIN"

// Ledger is the table the writer inserts one row into per write: its id is the write's index.
const Ledger = "failsim.ledger"

// Cluster is 2 or 3 throwaway MariaDB servers replicating with GTIDs: the first is the master
// at the start, every other its replica, read-only. Each replica's replication connection goes
// through a failsim proxy node of its own (a link), so a fault on the link is a fault on that
// replica's stream: freeze stops it, delay makes it late. Every server has the binary log on
// (log_slave_updates too, so any replica can be promoted and the others repointed to it) and
// started with no transaction of its own: the servers' GTID positions count the writes made
// since. Every server reports its own address (report_host, report_port), so its source's SHOW
// SLAVE HOSTS lists it there. Close stops everything and removes the data.
type Cluster struct {
	Servers []*Server    // db1, db2, ...; Servers[0] is the master at the start
	Names   []string     // "db1", "db2", ...
	Links   *proxy.Proxy // one node per replica and source it can stream from: LinkName
	// The passwords of the shared users; the probe user's is each Server's Password.
	WriterPassword, AdminPassword, ReplPassword string

	routes map[[2]int]string // {replica, source}: the link's address
}

// LinkName is the name of the proxy node that carries replica's stream from source:
// "db2<-db1".
func (c *Cluster) LinkName(replica, source int) string {
	return c.Names[replica] + "<-" + c.Names[source]
}

// Route returns the address replica dials to stream from source: its link's listener.
func (c *Cluster) Route(replica, source int) string { return c.routes[[2]int{replica, source}] }

// SetLink sets mode m on every link of replica, whichever server it streams from.
func (c *Cluster) SetLink(replica int, m proxy.Mode) error {
	for i := range c.Servers {
		if i == replica {
			continue
		}
		if err := c.Links.SetMode(c.LinkName(replica, i), m); err != nil {
			return err
		}
	}
	return nil
}

// DSN returns a DSN for user on server i over TCP (the probe user's password if password is "").
func (c *Cluster) DSN(i int, user, password string) string {
	s := c.Servers[i]
	if password == "" {
		user, password = s.User, s.Password
	}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = user, password, "tcp", s.Addr
	return cfg.FormatDSN()
}

// WriterDSN and AdminDSN are the shared users' DSNs on server i.
func (c *Cluster) WriterDSN(i int) string { return c.DSN(i, WriterUser, c.WriterPassword) }

// AdminDSN is the promotion user's DSN on server i.
func (c *Cluster) AdminDSN(i int) string { return c.DSN(i, AdminUser, c.AdminPassword) }

// StartCluster starts n servers (2 or 3) and their links, and waits until every replica's
// replication is running. On error nothing is left behind.
func StartCluster(ctx context.Context, n int) (*Cluster, error) {
	if n < 2 || n > 3 {
		return nil, fmt.Errorf("a cluster of %d servers: want 2 or 3", n)
	}
	bin, installDB, err := Binaries()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	c := &Cluster{WriterPassword: secret(), AdminPassword: secret(), ReplPassword: secret(), routes: map[[2]int]string{}}
	probe := secret()
	for i := range n {
		c.Names = append(c.Names, "db"+strconv.Itoa(i+1))
	}
	c.Servers = make([]*Server, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Servers[i], errs[i] = startMember(ctx, bin, installDB, i+1, probe)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		c.Close()
		return nil, err
	}
	var nodes []proxy.NodeConfig
	for j := range c.Servers {
		for i := range c.Servers {
			if i != j {
				nodes = append(nodes, proxy.NodeConfig{Name: c.LinkName(j, i), Listen: "127.0.0.1:0", Upstream: c.Servers[i].Addr})
			}
		}
	}
	if c.Links, err = proxy.New(proxy.Config{Nodes: nodes}); err != nil {
		c.Close()
		return nil, fmt.Errorf("the replication links' proxy: %w", err)
	}
	for j := range c.Servers {
		for i := range c.Servers {
			if i != j {
				nd, _ := c.Links.Node(c.LinkName(j, i))
				c.routes[[2]int{j, i}] = nd.Addr()
			}
		}
	}
	if err := c.setUp(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// startMember starts server id of a cluster with the binary log on.
func startMember(ctx context.Context, bin, installDB string, id int, probe string) (*Server, error) {
	dir, err := os.MkdirTemp("", "failsim-mariadb-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, socket: filepath.Join(dir, "mysql.sock"), User: "failsim_probe", Password: probe, exited: make(chan struct{}), report: true}
	extra := []string{"--log-bin=" + filepath.Join(dir, "binlog"), "--server-id=" + strconv.Itoa(id),
		"--log-slave-updates=ON", "--binlog-format=ROW", "--skip-slave-start",
		"--innodb-flush-log-at-trx-commit=2", "--sync-binlog=0", "--relay-log=" + filepath.Join(dir, "relay")}
	if err := s.start(ctx, bin, installDB, extra); err != nil {
		s.Close()
		return nil, fmt.Errorf("db%d: %w", id, err)
	}
	return s, nil
}

// setUp creates the shared users and the ledger on every server, out of the binary log, then
// points every replica at the master through its link and waits for its replication to run.
func (c *Cluster) setUp(ctx context.Context) error {
	for i, s := range c.Servers {
		stmts := []string{
			"SET SESSION sql_log_bin = 0",
			"CREATE TABLE " + Ledger + " (id BIGINT PRIMARY KEY) ENGINE=InnoDB",
			"CREATE USER '" + WriterUser + "'@'%' IDENTIFIED BY '" + c.WriterPassword + "'",
			"GRANT INSERT ON " + Ledger + " TO '" + WriterUser + "'@'%'",
			"CREATE USER '" + AdminUser + "'@'%' IDENTIFIED BY '" + c.AdminPassword + "'",
			"GRANT " + AdminGrants + " ON *.* TO '" + AdminUser + "'@'%'",
			"CREATE USER '" + ReplUser + "'@'%' IDENTIFIED BY '" + c.ReplPassword + "'",
			"GRANT REPLICATION SLAVE ON *.* TO '" + ReplUser + "'@'%'",
			"RESET MASTER",
			"SET GLOBAL gtid_slave_pos = ''",
		}
		if i > 0 {
			host, port := splitAddr(c.Route(i, 0))
			stmts = append(stmts,
				"SET GLOBAL read_only = 1",
				fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='%s', MASTER_PORT=%d, MASTER_USER='%s', MASTER_PASSWORD='%s', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1",
					host, port, ReplUser, c.ReplPassword),
				"START SLAVE")
		}
		if err := s.Exec(ctx, stmts...); err != nil {
			return fmt.Errorf("%s: set up: %w", c.Names[i], err)
		}
	}
	for i := 1; i < len(c.Servers); i++ {
		if err := c.Servers[i].waitReplicating(ctx); err != nil {
			return fmt.Errorf("%s: %w", c.Names[i], err)
		}
	}
	return nil
}

// Exec runs stmts in order on one root connection; an error names the statement that failed.
func (s *Server) Exec(ctx context.Context, stmts ...string) error {
	db, err := s.Root()
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%.40s...: %w", q, err)
		}
	}
	return nil
}

// waitReplicating waits until the server's replication threads both run.
func (s *Server) waitReplicating(ctx context.Context) error {
	db, err := s.Root()
	if err != nil {
		return err
	}
	defer db.Close()
	var io, applier string
	for {
		io, applier, err = threads(ctx, db)
		if err == nil && io == "Yes" && applier == "Yes" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("replication not running (io %q, sql %q, %v): %w", io, applier, err, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// threads reads Slave_IO_Running and Slave_SQL_Running from SHOW SLAVE STATUS.
func threads(ctx context.Context, db *sql.DB) (io, sqlThread string, err error) {
	st, err := SlaveStatus(ctx, db)
	if err != nil {
		return "", "", err
	}
	return st["Slave_IO_Running"], st["Slave_SQL_Running"], nil
}

// SlaveStatus returns SHOW SLAVE STATUS as column name to value; nil when the server
// replicates from nothing (replica.SlaveStatus).
func SlaveStatus(ctx context.Context, db *sql.DB) (map[string]string, error) {
	return replica.SlaveStatus(ctx, db)
}

// splitAddr splits "127.0.0.1:PORT".
func splitAddr(addr string) (string, int) {
	host, p, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(p)
	return host, port
}

// Close stops the links and every server, and removes their data.
func (c *Cluster) Close() error {
	var errs []error
	if c.Links != nil {
		errs = append(errs, c.Links.Close())
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, s := range c.Servers {
		if s == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.Close()
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
