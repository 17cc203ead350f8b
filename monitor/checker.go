package monitor

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/failsim/failsim/statemap"
)

// DefaultBudget is the probe's overall time budget, the manager's mon_db_query_timeout.
const DefaultBudget = 5 * time.Second

// DefaultQuery is the probe's query. It does not touch storage: to see a storage stall, probe
// with a query that reads a heartbeat row (docs/live.md).
const DefaultQuery = "SELECT 1"

// grace is how long past its budget a probe may take before its socket is closed under it.
const grace = 50 * time.Millisecond

// CheckerConfig sets up a Checker.
type CheckerConfig struct {
	// DSN is the server's go-sql-driver/mysql DSN, e.g. "probe:pw@tcp(10.0.0.1:3306)/".
	// Its timeout, readTimeout and writeTimeout are replaced by the budget.
	DSN string
	// Budget bounds each probe, all phases together; zero means DefaultBudget.
	Budget time.Duration
	// Query is the probe's query; "" means DefaultQuery.
	Query string
}

// Checker probes one MySQL server. It is safe for concurrent use; each Probe opens and closes
// its own connection.
type Checker struct {
	base   *mysql.Config
	budget time.Duration
	query  string
}

// NewChecker checks the DSN and returns its checker. Errors never contain the password.
func NewChecker(cfg CheckerConfig) (*Checker, error) {
	base, err := parseDSN(cfg.DSN)
	if err != nil {
		return nil, err
	}
	base.Timeout, base.ReadTimeout, base.WriteTimeout = 0, 0, 0
	base.Logger = &mysql.NopLogger{}
	base.Apply(mysql.EnableCompression(false)) // the wire's packet guard follows uncompressed framing
	c := &Checker{base: base, budget: cfg.Budget, query: cfg.Query}
	if c.budget <= 0 {
		c.budget = DefaultBudget
	}
	if c.query == "" {
		c.query = DefaultQuery
	}
	return c, nil
}

// Addr returns the server's address, for logs: never the DSN, which holds the password.
func (c *Checker) Addr() string { return c.base.Addr }

// Budget returns the probe's time budget.
func (c *Checker) Budget() time.Duration { return c.budget }

// Result is the outcome of one probe.
type Result struct {
	Condition statemap.Condition // what the statemap is asked about; Undefined if cancelled
	Phase     Phase              // where the probe ended
	Took      time.Duration      // from the probe's start to its end, COM_QUIT and close excluded
	Err       error              // the cause, with its phase; nil for ok. Never holds the password.
}

// Probe runs one probe: connect, greeting, login, query, COM_QUIT, close, all within the
// budget. It returns within the budget plus 100 ms whatever the server or the network does.
// When ctx is cancelled first, the result's condition is Undefined and Err is ctx's error.
func (c *Checker) Probe(ctx context.Context) Result {
	start := time.Now()
	w := &wire{deadline: start.Add(c.budget), phase: Connect}
	guard := time.AfterFunc(c.budget+grace, w.abort)
	defer guard.Stop()
	// The context is the driver's own watchdog, a little after the socket deadline so that the
	// socket's timeout, which names the phase, normally comes first.
	pctx, cancel := context.WithDeadline(ctx, w.deadline.Add(grace/2))
	defer cancel()

	err := c.exchange(pctx, w)
	took := time.Since(start)
	phase, op, raw, aborted := w.snapshot()
	if err != nil && ctx.Err() != nil && !time.Now().After(w.deadline) {
		return Result{Condition: statemap.Undefined, Phase: phase, Took: took, Err: ctx.Err()}
	}
	e := Ending{Phase: phase, Op: op, Raw: raw, Err: err, OutOfTime: aborted || (err != nil && !time.Now().Before(w.deadline))}
	if err == nil {
		e.Raw = nil // a socket error on the COM_QUIT does not spoil a healthy probe
	}
	r := Result{Condition: Classify(e), Phase: phase, Took: took}
	if r.Condition != statemap.OK {
		r.Err = describe(phase, op, raw, err)
	}
	return r
}

// exchange does the probe's talking; COM_QUIT and close included.
func (c *Checker) exchange(ctx context.Context, w *wire) error {
	cfg := c.base.Clone()
	cfg.DialFunc = w.dial
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	conn, err := connector.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close() // COM_QUIT, then close
	w.setPhase(Query)
	q, ok := conn.(driver.QueryerContext)
	if !ok {
		return errors.New("the driver's connection cannot query")
	}
	rows, err := q.QueryContext(ctx, c.query, nil)
	if err != nil {
		return err
	}
	dest := make([]driver.Value, len(rows.Columns()))
	for {
		if err := rows.Next(dest); err != nil {
			rows.Close()
			if err == io.EOF {
				w.setPhase(Done)
				return nil
			}
			return err
		}
	}
}

// describe says why a probe failed, naming the phase; the raw socket error goes first because
// the driver's own is often only "invalid connection".
func describe(p Phase, op Op, raw, err error) error {
	switch {
	case raw != nil && err != nil && !errors.Is(err, raw) && err.Error() != raw.Error():
		return fmt.Errorf("%s: %s: %w (driver: %v)", p, op, raw, err)
	case raw != nil:
		return fmt.Errorf("%s: %s: %w", p, op, raw)
	case err != nil:
		return fmt.Errorf("%s: %w", p, err)
	}
	return fmt.Errorf("%s: out of time", p)
}
