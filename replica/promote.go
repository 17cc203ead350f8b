package replica

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"strconv"
	"time"
)

// poll is how often a promotion looks whether the new master has applied what it stored.
const poll = 20 * time.Millisecond

// fenceTimeout bounds setting the old master read_only: a dead or hung one is given up.
const fenceTimeout = 2 * time.Second

// repointTimeout bounds repointing one replica: one that does not answer is given up.
const repointTimeout = 5 * time.Second

// Source is how a replica reaches a server to stream from it: the address it dials (in a
// failsim cluster, its link's proxy) and the replication user.
type Source struct {
	Addr           string // host:port
	User, Password string
}

// Plan is a promotion: which replica replaces which master, and the servers it acts on.
type Plan struct {
	// DBs is each server's pool, in cluster order, for a user with the privileges of the
	// package doc.
	DBs []*sql.DB
	// New is the replica promoted; Old the master it replaces, -1 for none.
	New, Old int
	// Repoint are the other replicas, pointed at New once it is writable.
	Repoint []int
	// Route says how replica reaches source.
	Route func(replica, source int) Source
	// ApplyWait bounds how long New applies what it stored before it takes writes; 0 means as
	// long as it takes (bounded by the context). What is left is applied after (Settle).
	ApplyWait time.Duration
}

// Promotion is what a promotion did.
type Promotion struct {
	Node            int
	Stored, Applied int64 // the new master's positions when it stopped receiving
	// Pending is what it had stored and not applied when it became writable: 0 when it applied
	// everything first; otherwise the caller calls Settle to finish.
	Pending int64
	// Stopping is how long stopping its receiver and reading its positions took; Waited how
	// long it then applied before it became writable; Took the whole, up to read_only off.
	Stopping, Waited, Took time.Duration
	// Fenced is nil when the old master was set read_only, else why not (it did not answer).
	Fenced error
	// Repointed are the replicas now streaming from the new master; RepointErr those that
	// could not be, with why.
	Repointed  []int
	RepointErr map[int]error
}

// Promote makes p.New the master: it stops receiving, applies what it stored (for at most
// p.ApplyWait), forgets its master (RESET SLAVE ALL) and turns read_only off; then sets the old
// master read_only if it answers within 2 s, and points every replica of p.Repoint at it with
// MASTER_USE_GTID=slave_pos (each given 5 s; one that does not answer is in RepointErr). An error means the new master is not writable.
func Promote(ctx context.Context, p Plan) (Promotion, error) {
	db := p.DBs[p.New]
	begin := time.Now()
	if _, err := db.ExecContext(ctx, "STOP SLAVE IO_THREAD"); err != nil {
		return Promotion{}, fmt.Errorf("stop receiving: %w", err)
	}
	st, err := Read(ctx, db)
	if err != nil {
		return Promotion{}, err
	}
	pr := Promotion{Node: p.New, Stored: st.Stored, Applied: st.Applied, Stopping: time.Since(begin)}
	start := time.Now()
	applied, err := waitApplied(ctx, db, st.Stored, p.ApplyWait)
	if err != nil {
		return pr, err
	}
	pr.Waited = time.Since(start)
	pr.Pending = st.Stored - applied
	if pr.Pending == 0 {
		if err := forget(ctx, db); err != nil {
			return pr, err
		}
	}
	if _, err := db.ExecContext(ctx, "SET GLOBAL read_only = 0"); err != nil {
		return pr, fmt.Errorf("read_only off: %w", err)
	}
	pr.Took = time.Since(begin)
	if p.Old >= 0 {
		fctx, cancel := context.WithTimeout(ctx, fenceTimeout)
		_, pr.Fenced = p.DBs[p.Old].ExecContext(fctx, "SET GLOBAL read_only = 1")
		cancel()
	}
	for _, r := range p.Repoint {
		rctx, cancel := context.WithTimeout(ctx, repointTimeout)
		err := Repoint(rctx, p.DBs[r], p.Route(r, p.New))
		cancel()
		if err != nil {
			if pr.RepointErr == nil {
				pr.RepointErr = map[int]error{}
			}
			pr.RepointErr[r] = err
			continue
		}
		pr.Repointed = append(pr.Repointed, r)
	}
	return pr, nil
}

// Settle finishes a promotion that became writable with transactions still to apply: it waits
// until the new master applied everything it stored, then forgets its master.
func Settle(ctx context.Context, db *sql.DB) error {
	st, err := Read(ctx, db)
	if err != nil {
		return err
	}
	if _, err := waitApplied(ctx, db, st.Stored, 0); err != nil {
		return err
	}
	return forget(ctx, db)
}

// waitApplied waits until db's applied position reaches stored, or for at most wait (0: until
// ctx ends); it returns the applied position it saw last.
func waitApplied(ctx context.Context, db *sql.DB, stored int64, wait time.Duration) (int64, error) {
	var deadline <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		deadline = t.C
	}
	for {
		var s string
		if err := db.QueryRowContext(ctx, "SELECT @@gtid_slave_pos").Scan(&s); err != nil {
			return 0, fmt.Errorf("read the applied position: %w", err)
		}
		applied, err := Position(s)
		if err != nil {
			return 0, err
		}
		if applied >= stored {
			return applied, nil
		}
		select {
		case <-deadline:
			return applied, nil
		case <-ctx.Done():
			return applied, fmt.Errorf("applied %d of %d stored: %w", applied, stored, ctx.Err())
		case <-time.After(poll):
		}
	}
}

// forget stops the replica's threads and removes its replication configuration.
func forget(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	for _, q := range []string{"STOP SLAVE", "RESET SLAVE ALL"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// Repoint points a replica at src, from the position it applied (MASTER_USE_GTID=slave_pos),
// and starts its replicator. With no src.User the replica keeps the replication user and
// password it has: CHANGE MASTER leaves every option it is not given as it was (MariaDB's
// CHANGE MASTER documentation; a cmd/failsim live test repoints that way and checks the
// replica streams again), and the password cannot be read back from a server.
func Repoint(ctx context.Context, db *sql.DB, src Source) error {
	host, ps, err := net.SplitHostPort(src.Addr)
	if err != nil {
		return fmt.Errorf("source %q: %w", src.Addr, err)
	}
	port, err := strconv.Atoi(ps)
	if err != nil {
		return fmt.Errorf("source %q: %w", src.Addr, err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	user := ""
	if src.User != "" {
		user = ", MASTER_USER=" + quote(src.User) + ", MASTER_PASSWORD=" + quote(src.Password)
	}
	for _, q := range []string{
		"STOP SLAVE",
		"CHANGE MASTER TO MASTER_HOST=" + quote(host) + ", MASTER_PORT=" + strconv.Itoa(port) + user +
			", MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1",
		"START SLAVE",
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("repoint: %.30s...: %w", q, err)
		}
	}
	return nil
}

// quote writes s as a single-quoted SQL string literal.
func quote(s string) string {
	b := []byte{'\''}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '\\':
			b = append(b, '\\', c)
		case 0:
			b = append(b, '\\', '0')
		default:
			b = append(b, c)
		}
	}
	return string(append(b, '\''))
}
