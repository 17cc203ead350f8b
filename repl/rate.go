package repl

import (
	"fmt"
	"math"
	"math/bits"
	"time"
)

// Rate is the pace of an open-model workload: Writes writes every Per, evenly spaced on the
// clock and issued whatever became of the ones before. Write k (counting from 0) is issued at
// the instant floor(k·Per/Writes) after t=0, so the writes in [a, b) are exactly those with
// First(a) <= k < First(b): everything between two changes of condition is counted, never
// enumerated, in exact integer arithmetic (128-bit products, no floating point).
//
// The zero value is no workload: no write is ever issued. Writes must not be negative, and Per
// must be positive when Writes is.
type Rate struct {
	Writes int64         // writes per Per; 0 for none
	Per    time.Duration // the period Writes are spread over, e.g. time.Second
}

// PerSecond returns the rate of n writes a second (the timeline's writes=N/s).
func PerSecond(n int64) Rate { return Rate{Writes: n, Per: time.Second} }

// Zero reports whether r issues no write.
func (r Rate) Zero() bool { return r.Writes == 0 }

// At returns the instant write k is issued: floor(k·Per/Writes) since t=0. It panics for the
// zero Rate, for k < 0, and when the instant does not fit in a time.Duration.
func (r Rate) At(k int64) time.Duration {
	if r.Writes <= 0 || k < 0 {
		panic(fmt.Sprintf("repl: write %d at a rate of %d per %v", k, r.Writes, r.Per))
	}
	hi, lo := bits.Mul64(uint64(k), uint64(r.Per))
	if hi >= uint64(r.Writes) {
		panic(fmt.Sprintf("repl: write %d at %d per %v is beyond any time", k, r.Writes, r.Per))
	}
	q, _ := bits.Div64(hi, lo, uint64(r.Writes))
	if q > math.MaxInt64 {
		panic(fmt.Sprintf("repl: write %d at %d per %v is beyond any time", k, r.Writes, r.Per))
	}
	return time.Duration(q)
}

// First returns the index of the first write issued at or after x, which is also the number of
// writes issued before x: ceil(x·Writes/Per), and 0 for x <= 0 or the zero Rate.
func (r Rate) First(x time.Duration) int64 {
	if r.Writes == 0 || x <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(x), uint64(r.Writes))
	lo, carry := bits.Add64(lo, uint64(r.Per)-1, 0)
	hi += carry
	if hi >= uint64(r.Per) {
		panic(fmt.Sprintf("repl: the writes before %v at %d per %v are beyond counting", x, r.Writes, r.Per))
	}
	q, _ := bits.Div64(hi, lo, uint64(r.Per))
	if q > math.MaxInt64 {
		panic(fmt.Sprintf("repl: the writes before %v at %d per %v are beyond counting", x, r.Writes, r.Per))
	}
	return int64(q)
}

// Count returns how many writes are issued in [a, b): First(b) - First(a), and 0 when b <= a.
func (r Rate) Count(a, b time.Duration) int64 {
	if b <= a {
		return 0
	}
	return r.First(b) - r.First(a)
}

// Span returns how long n writes take at this rate: floor(n·Per/Writes), the unavailable time
// n failed writes stand for. It is 0 for n = 0 and panics for the zero Rate otherwise.
func (r Rate) Span(n int64) time.Duration {
	if n == 0 {
		return 0
	}
	return r.At(n)
}
