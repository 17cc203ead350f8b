package repl

import "time"

// Decision is something the model decided: one of the types below, nodes named by index. The
// set is closed. Ready hands them out, oldest first; they are values, the caller's to keep.
type Decision interface {
	// When is the virtual time at which it was decided.
	When() time.Duration
	decision()
}

// FellBack: semisync on Master fell back to async. Its oldest commit had waited Timeout for a
// replica to store it, since Since; every commit still waiting was answered at once (in time
// for its client if it was issued less than a deadline ago), and commits no longer wait.
type FellBack struct {
	At      time.Duration
	Master  int
	Since   time.Duration // when the oldest waiting commit was made
	Waiting int64         // the commits answered at once
}

// Returned: semisync on Master is back: Replica stored everything Master had committed when it
// fell back (the first such replica in cluster order).
type Returned struct {
	At      time.Duration
	Master  int
	Replica int
}

// Promoted: Node was promoted, replacing From (-1 for none). Stored is the position its history
// forked at; Backlog is how much of it Node had stored and not yet applied; WritableAt is when
// it takes writes (a Writable follows then). Lost is what the failover lost; Ranking, when the
// model's candidate rule chose Node at this instant, is the ranking it used, best first.
type Promoted struct {
	At         time.Duration
	Node, From int
	Stored     int64
	Backlog    int64
	WritableAt time.Duration
	Lost       Loss
	Ranking    []Standing
}

// Writable: promoted Node takes writes, Waited after its promotion. Unapplied is what it had
// stored and not applied when Config.ApplyWait cut the wait short: it is applied after, not
// lost. 0 when it applied everything first.
type Writable struct {
	At        time.Duration
	Node      int
	Waited    time.Duration
	Unapplied int64
}

// Overwritten: at a merge, writer Node's side's copy was overwritten by Kept's (-1: a copy with
// no master). Lost is what that lost.
type Overwritten struct {
	At   time.Duration
	Node int
	Kept int
	Lost Loss
}

// When implements Decision.
func (d *FellBack) When() time.Duration { return d.At }

// When implements Decision.
func (d *Returned) When() time.Duration { return d.At }

// When implements Decision.
func (d *Promoted) When() time.Duration { return d.At }

// When implements Decision.
func (d *Writable) When() time.Duration { return d.At }

// When implements Decision.
func (d *Overwritten) When() time.Duration { return d.At }

func (FellBack) decision()    {}
func (Returned) decision()    {}
func (Promoted) decision()    {}
func (Writable) decision()    {}
func (Overwritten) decision() {}

// Cause says what lost writes. The zero value is LostAtFailover.
type Cause uint8

// The causes of a Loss.
const (
	LostAtFailover Cause = iota // a promotion replaced the master
	LostAtMerge                 // a merge overwrote a side's copy
)

// String is "failover" or "merge".
func (c Cause) String() string {
	if c == LostAtMerge {
		return "merge"
	}
	return "failover"
}

// Loss is the acknowledged writes one failover or merge lost: those of Master's history that
// Keeper's (the new master, or the adopted side's) does not hold. Count of them, First and Last
// their lowest and highest sequence numbers on Master's history (0 when Count is 0; the range
// may hold writes that were never acknowledged, which are not lost). Deferred: a promotion
// whose old master goes on on another side loses nothing yet; the merge decides.
type Loss struct {
	At          time.Duration
	Cause       Cause
	Master      int
	Keeper      int
	Count       int64
	First, Last int64
	Deferred    bool
}
