package writer

import (
	"time"

	"github.com/failsim/failsim/repl"
)

// Promotion is a master change a live run made: at the failover's instant At (virtual time
// since the start), From, the old master, to To, both by index in cluster order.
type Promotion struct {
	At       time.Duration
	From, To int
}

// Losses attributes the ledger's lost writes (lost: the acknowledged ids Lost found missing
// from the final master, in order) to the run's promotions, in the replication model's terms
// (repl.Loss): with exactly one promotion every lost write is that failover's, the old master's
// writes its successor never had (repl.LostAtFailover, First and Last the lowest and highest
// lost id). With none or several the ledger cannot tell which promotion lost which write, and
// with nothing lost there is nothing to attribute: Losses is then nil.
func Losses(lost []int64, promotions []Promotion) []repl.Loss {
	if len(promotions) != 1 || len(lost) == 0 {
		return nil
	}
	p := promotions[0]
	return []repl.Loss{{At: p.At, Cause: repl.LostAtFailover, Master: p.From, Keeper: p.To, Count: int64(len(lost)),
		First: lost[0], Last: lost[len(lost)-1]}}
}
