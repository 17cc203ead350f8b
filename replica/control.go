package replica

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Stop stops a replica's replicator, both threads (the timeline's `NODE replicator stop`):
// its stored and applied positions stay where they are.
func Stop(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, "STOP SLAVE"); err != nil {
		return fmt.Errorf("STOP SLAVE: %w", err)
	}
	return nil
}

// Start starts a replica's replicator (`NODE replicator start`): it catches up from where it
// stopped.
func Start(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, "START SLAVE"); err != nil {
		return fmt.Errorf("START SLAVE: %w", err)
	}
	return nil
}

// SetApplyDelay makes a replica apply each transaction d after its master committed it
// (`NODE apply-lag DUR`), with MASTER_DELAY, which takes whole seconds: d must be a whole
// number of seconds, 0 for none. The replicator is stopped for the change and started again
// if it ran.
func SetApplyDelay(ctx context.Context, db *sql.DB, d time.Duration) error {
	if d < 0 || d%time.Second != 0 {
		return fmt.Errorf("apply delay %v: MASTER_DELAY takes a whole number of seconds", d)
	}
	st, err := Read(ctx, db)
	if err != nil {
		return err
	}
	if !st.Replica {
		return fmt.Errorf("apply delay: the server is no replica")
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	stmts := []string{"STOP SLAVE", fmt.Sprintf("CHANGE MASTER TO MASTER_DELAY=%d", int64(d/time.Second))}
	if st.IORunning || st.SQLRunning {
		stmts = append(stmts, "START SLAVE")
	}
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}
