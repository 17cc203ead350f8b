package writer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/failsim/failsim/repl"
)

// Table is the ledger table: one row per acknowledged write, its id the write's index. The
// writer's user needs INSERT on it, and nothing else.
const Table = "failsim.ledger"

// Config is a writer's workload and where its writes go.
type Config struct {
	// Rate is the workload; it must issue writes.
	Rate repl.Rate
	// Deadline bounds each write, from the moment it is issued; it must be positive.
	Deadline time.Duration
	// DBs is a pool per node, in cluster order, for a user with INSERT on Table.
	DBs []*sql.DB
	// Base is the ledger id of write 0: write k inserts row Base+k, so that runs on one ledger
	// never collide. Zero for the first run.
	Base int64
	// Master returns the node a write issued now goes to: the master of record; -1 for none,
	// and the write fails at once. It is called from the writer's goroutine only.
	Master func() int
}

// Write is one write's fate.
type Write struct {
	ID    int64         // the ledger row's id: Config.Base plus its index
	At    time.Duration // when it was issued, since the start
	Node  int           // where it went; -1 for nowhere
	Acked bool          // the INSERT succeeded within the deadline
	Took  time.Duration // from its issue to its answer (or the deadline)
	Err   error         // why it failed; nil when acknowledged
}

// Result is every write a run issued, in order (Writes[k] is write k).
type Result struct {
	Rate   repl.Rate
	Writes []Write
}

// Run issues writes from t0 (write k at t0 + Rate.At(k)) until ctx ends, then waits for those
// in flight, each at most its deadline, and returns them all.
func Run(ctx context.Context, cfg Config, t0 time.Time) (Result, error) {
	switch {
	case cfg.Rate.Zero() || cfg.Rate.Per <= 0:
		return Result{}, errors.New("writer: a rate with no writes")
	case cfg.Deadline <= 0:
		return Result{}, fmt.Errorf("writer: deadline %v: want a positive duration", cfg.Deadline)
	case cfg.Master == nil:
		return Result{}, errors.New("writer: no master-of-record callback")
	}
	var (
		mu     sync.Mutex
		writes []Write
		wg     sync.WaitGroup
	)
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	for k := int64(0); ; k++ {
		at := t0.Add(cfg.Rate.At(k))
		if d := time.Until(at); d > 0 {
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-ctx.Done():
				timer.Stop()
				wg.Wait()
				return Result{Rate: cfg.Rate, Writes: writes}, nil
			}
		} else if ctx.Err() != nil {
			wg.Wait()
			return Result{Rate: cfg.Rate, Writes: writes}, nil
		}
		issued := time.Now()
		node := cfg.Master()
		mu.Lock()
		writes = append(writes, Write{ID: cfg.Base + k, At: issued.Sub(t0), Node: node})
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := insert(cfg, node, cfg.Base+k)
			took := time.Since(issued)
			mu.Lock()
			w := &writes[k]
			w.Took, w.Err, w.Acked = took, err, err == nil
			mu.Unlock()
		}()
	}
}

// errNoMaster is a write's fate when there was no master of record to send it to.
var errNoMaster = errors.New("no master of record")

// insert inserts ledger row id on node within the deadline.
func insert(cfg Config, node int, id int64) error {
	if node < 0 || node >= len(cfg.DBs) {
		return errNoMaster
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Deadline)
	defer cancel()
	_, err := cfg.DBs[node].ExecContext(ctx, "INSERT INTO "+Table+" (id) VALUES (?)", id)
	return err
}

// Acked returns the ids of the acknowledged writes, in order.
func (r Result) Acked() []int64 {
	var out []int64
	for _, w := range r.Writes {
		if w.Acked {
			out = append(out, w.ID)
		}
	}
	return out
}

// Lost reads the ledger back from db (the final master, as a user with SELECT on Table) and
// returns the acknowledged ids it does not have, in order.
func Lost(ctx context.Context, db *sql.DB, acked []int64) ([]int64, error) {
	rows, err := db.QueryContext(ctx, "SELECT id FROM "+Table)
	if err != nil {
		return nil, fmt.Errorf("read the ledger back: %w", err)
	}
	defer rows.Close()
	have := make(map[int64]bool, len(acked))
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("read the ledger back: %w", err)
		}
		have[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the ledger back: %w", err)
	}
	var lost []int64
	for _, id := range acked {
		if !have[id] {
			lost = append(lost, id)
		}
	}
	return lost, nil
}
