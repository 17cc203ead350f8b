package repl

import (
	"fmt"
	"time"
)

// Mode is how the master acknowledges a commit. The zero value is Async.
type Mode uint8

// The replication modes (the timeline's `replication async|semisync`).
const (
	Async    Mode = iota // a commit is acknowledged as soon as the master made it
	Semisync             // a commit is acknowledged once some replica stored it, or when the master falls back
)

// String is the mode's name as a timeline writes it.
func (m Mode) String() string {
	if m == Semisync {
		return "semisync"
	}
	return "async"
}

// The defaults a zero Config field stands for.
const (
	DefaultTimeout = 10 * time.Second  // semisync's wait before the master falls back to async (MySQL's default)
	DefaultLagCap  = 900 * time.Second // a replica lagging more is no candidate (the manager's default)
)

// Config is what a Model starts from. The nodes are named by their index in the cluster line's
// order, as fence names them.
type Config struct {
	// Nodes is how many nodes the cluster has; at least one.
	Nodes int
	// Master is the master at t=0, -1 for none. Every other node starts as its replica, with
	// nothing stored, streaming and applying at once.
	Master int
	// Rate is the workload; the zero Rate issues no write (positions stay 0).
	Rate Rate
	// Deadline is the client's deadline on each write; it must be positive when Rate is set. A
	// write whose acknowledgement would take the deadline or longer fails.
	Deadline time.Duration
	// Mode is async (the zero value) or semisync.
	Mode Mode
	// Timeout is semisync's wait: a commit that no replica stored after Timeout makes the master
	// fall back to async. 0 means DefaultTimeout.
	Timeout time.Duration
	// LagCap: a replica whose stored position trails its master's commits by more than LagCap is
	// no candidate. 0 means DefaultLagCap.
	LagCap time.Duration
	// ApplyWait bounds how long a promoted replica applies what it stored before it takes
	// writes; 0 means as long as it takes.
	ApplyWait time.Duration
	// Precedence per node (the cluster line's db2:replica:2); a tie in stored position goes to
	// the lowest, then to the first in cluster order. Nil means cluster order.
	Precedence []int
}

// check panics on a Config a caller could not have meant: these are bugs in the caller (the
// parser refuses bad input with file:line before a Model is made).
func (c *Config) check() {
	switch {
	case c.Nodes < 1:
		panic(fmt.Sprintf("repl: a cluster of %d nodes", c.Nodes))
	case c.Master < -1 || c.Master >= c.Nodes:
		panic(fmt.Sprintf("repl: master %d of %d nodes", c.Master, c.Nodes))
	case c.Rate.Writes < 0 || (c.Rate.Writes > 0 && c.Rate.Per <= 0):
		panic(fmt.Sprintf("repl: a rate of %d per %v", c.Rate.Writes, c.Rate.Per))
	case c.Rate.Writes > 0 && c.Deadline <= 0:
		panic(fmt.Sprintf("repl: a workload with a deadline of %v", c.Deadline))
	case c.Timeout < 0 || c.LagCap < 0 || c.ApplyWait < 0:
		panic("repl: a negative timeout, lag cap or apply wait")
	case c.Precedence != nil && len(c.Precedence) != c.Nodes:
		panic(fmt.Sprintf("repl: %d precedences for %d nodes", len(c.Precedence), c.Nodes))
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.LagCap == 0 {
		c.LagCap = DefaultLagCap
	}
	if c.Precedence == nil {
		c.Precedence = make([]int, c.Nodes)
		for i := range c.Precedence {
			c.Precedence[i] = i + 1
		}
	}
}
