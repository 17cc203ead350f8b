package replica

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// SetSemisync turns MariaDB's built-in semi-synchronous replication on or off on every server
// of dbs (the timeline's `replication semisync timeout=DUR` and `replication async`), as a
// cluster-wide setting that survives a promotion: each server's master side
// (rpl_semi_sync_master_enabled, and rpl_semi_sync_master_timeout: how long a commit no
// replica acknowledged waits before the master falls back to async; whole milliseconds, at
// least 1) and its replica side (rpl_semi_sync_slave_enabled, its receiver restarted, if it
// has one, so that the setting takes effect).
func SetSemisync(ctx context.Context, dbs []*sql.DB, on bool, timeout time.Duration) error {
	if on && timeout < time.Millisecond {
		return fmt.Errorf("semisync timeout %v: want at least 1ms", timeout)
	}
	flag := 0
	if on {
		flag = 1
	}
	for i, db := range dbs {
		st, err := Read(ctx, db)
		if err != nil {
			return fmt.Errorf("server %d: %w", i, err)
		}
		stmts := []string{fmt.Sprintf("SET GLOBAL rpl_semi_sync_master_enabled = %d", flag),
			fmt.Sprintf("SET GLOBAL rpl_semi_sync_slave_enabled = %d", flag)}
		if on {
			stmts = append(stmts, fmt.Sprintf("SET GLOBAL rpl_semi_sync_master_timeout = %d", timeout/time.Millisecond))
		}
		if st.Replica && st.IORunning {
			stmts = append(stmts, "STOP SLAVE IO_THREAD", "START SLAVE IO_THREAD")
		}
		conn, err := db.Conn(ctx)
		if err != nil {
			return fmt.Errorf("server %d: %w", i, err)
		}
		for _, q := range stmts {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				conn.Close()
				return fmt.Errorf("server %d: %s: %w", i, q, err)
			}
		}
		conn.Close()
	}
	return nil
}

// Semisync reports whether a master acknowledges commits semi-synchronously now
// (Rpl_semi_sync_master_status): false when it is off or has fallen back to async.
func Semisync(ctx context.Context, db *sql.DB) (bool, error) {
	var name, value string
	err := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_status'").Scan(&name, &value)
	if err != nil {
		return false, fmt.Errorf("semisync status: %w", err)
	}
	return value == "ON", nil
}
