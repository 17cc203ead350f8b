package replica

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// SetSemisync turns MariaDB's built-in semi-synchronous replication on or off (the timeline's
// `replication semisync timeout=DUR` and `replication async`): on the master
// rpl_semi_sync_master_enabled, with timeout (whole milliseconds, at least 1) before a commit
// no replica acknowledged falls back to async; on each replica rpl_semi_sync_slave_enabled,
// its receiver restarted so that the setting takes effect. dbs are the servers' pools in
// cluster order; replicas the indexes of the replicas.
func SetSemisync(ctx context.Context, dbs []*sql.DB, master int, replicas []int, on bool, timeout time.Duration) error {
	if on && timeout < time.Millisecond {
		return fmt.Errorf("semisync timeout %v: want at least 1ms", timeout)
	}
	flag := 0
	if on {
		flag = 1
	}
	for _, r := range replicas {
		conn, err := dbs[r].Conn(ctx)
		if err != nil {
			return err
		}
		for _, q := range []string{
			fmt.Sprintf("SET GLOBAL rpl_semi_sync_slave_enabled = %d", flag),
			"STOP SLAVE IO_THREAD",
			"START SLAVE IO_THREAD",
		} {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				conn.Close()
				return fmt.Errorf("replica %d: %s: %w", r, q, err)
			}
		}
		conn.Close()
	}
	stmts := []string{fmt.Sprintf("SET GLOBAL rpl_semi_sync_master_enabled = %d", flag)}
	if on {
		stmts = append(stmts, fmt.Sprintf("SET GLOBAL rpl_semi_sync_master_timeout = %d", timeout/time.Millisecond))
	}
	for _, q := range stmts {
		if _, err := dbs[master].ExecContext(ctx, q); err != nil {
			return fmt.Errorf("master: %s: %w", q, err)
		}
	}
	return nil
}

// Semisync reports whether the master acknowledges commits semi-synchronously now
// (Rpl_semi_sync_master_status): false when it is off or has fallen back to async.
func Semisync(ctx context.Context, db *sql.DB) (bool, error) {
	var name, value string
	err := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_status'").Scan(&name, &value)
	if err != nil {
		return false, fmt.Errorf("semisync status: %w", err)
	}
	return value == "ON", nil
}
