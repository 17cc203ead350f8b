package replica

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/failsim/failsim/repl"
)

// Status is one server's replication as it reads now.
type Status struct {
	// Replica is true when the server has a master configured (SHOW SLAVE STATUS has a row).
	Replica bool
	// IORunning and SQLRunning: its receiver and applier threads run. A thread that is starting
	// ("Preparing") or retrying its connection ("Connecting") runs: only "No" is stopped.
	IORunning, SQLRunning bool
	// Stored and Applied are its positions (see the package doc); a server that is no replica
	// has both at its binary log's position.
	Stored, Applied int64
	// Binlog is the position of its own binary log.
	Binlog int64
	// Delay is its MASTER_DELAY; 0 for none.
	Delay time.Duration
	// ReadOnly is @@read_only.
	ReadOnly bool
}

// Running reports whether its replicator runs: both threads, as the manager's replicator does.
func (s Status) Running() bool { return s.Replica && s.IORunning && s.SQLRunning }

// Read reads a server's replication status.
func Read(ctx context.Context, db *sql.DB) (Status, error) {
	var st Status
	var binlog, slave string
	if err := db.QueryRowContext(ctx, "SELECT @@gtid_binlog_pos, @@gtid_slave_pos, @@read_only").Scan(&binlog, &slave, &st.ReadOnly); err != nil {
		return Status{}, fmt.Errorf("read the GTID positions: %w", err)
	}
	var err error
	if st.Binlog, err = Position(binlog); err != nil {
		return Status{}, err
	}
	row, err := SlaveStatus(ctx, db)
	if err != nil {
		return Status{}, fmt.Errorf("SHOW SLAVE STATUS: %w", err)
	}
	if row == nil {
		st.Stored, st.Applied = st.Binlog, st.Binlog
		return st, nil
	}
	st.Replica = true
	st.IORunning = row["Slave_IO_Running"] != "No" && row["Slave_IO_Running"] != ""
	st.SQLRunning = row["Slave_SQL_Running"] != "No" && row["Slave_SQL_Running"] != ""
	if st.Applied, err = Position(slave); err != nil {
		return Status{}, err
	}
	if st.Stored, err = Position(row["Gtid_IO_Pos"]); err != nil {
		return Status{}, err
	}
	st.Stored = max(st.Stored, st.Applied) // a receiver that has not connected yet shows nothing
	var secs int64
	fmt.Sscan(row["SQL_Delay"], &secs)
	st.Delay = time.Duration(secs) * time.Second
	return st, nil
}

// ReadAll reads every server's status, in order. A server that does not answer has a nil
// error in its place only if it answered: errs[i] says why not.
func ReadAll(ctx context.Context, dbs []*sql.DB) (sts []Status, errs []error) {
	sts, errs = make([]Status, len(dbs)), make([]error, len(dbs))
	for i, db := range dbs {
		sts[i], errs[i] = Read(ctx, db)
	}
	return sts, errs
}

// SlaveStatus returns SHOW SLAVE STATUS as column name to value, nil for a server with no
// master configured.
func SlaveStatus(ctx context.Context, db *sql.DB) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, "SHOW SLAVE STATUS")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	if !rows.Next() {
		return nil, rows.Err()
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	row := make(map[string]string, len(cols))
	for i, c := range cols {
		row[c] = vals[i].String
	}
	return row, rows.Err()
}

// Standings turns the servers' statuses into the model's standings, in cluster order, for
// repl.Rank and repl.Best: the same rule decides live and in the simulator. answered[i] false
// (the server did not answer) and eligible(i) false (the engine's eligibility: not a replica in
// service, its manager down, its last probe not ok) exclude i as not eligible; a replica whose
// replicator is stopped is excluded as such. precedence nil means cluster order. Lag is not
// measured live: it is 0, and no replica is excluded for lagging.
func Standings(sts []Status, answered []bool, eligible func(int) bool, precedence []int) []repl.Standing {
	out := make([]repl.Standing, len(sts))
	for i, st := range sts {
		s := repl.Standing{Node: i, Precedence: i + 1}
		if precedence != nil {
			s.Precedence = precedence[i]
		}
		if st.Replica {
			s.Stored = st.Stored
		}
		switch {
		case !answered[i] || !st.Replica || !eligible(i):
			s.Excluded = repl.NotEligible
		case !st.Running():
			s.Excluded = repl.ReplicatorStopped
		}
		out[i] = s
	}
	return out
}
