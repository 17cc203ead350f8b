package check

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/failsim/failsim/expect"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/property"
	"github.com/failsim/failsim/sim"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// Violates replays tl under m and reports whether it violates the property s, with the
// property's verdict.
func Violates(tl *timeline.Timeline, m *statemap.Map, s property.Spec) (bool, string, error) {
	return violates(context.Background(), tl, m, s)
}

// violates is Violates that stops the replay once ctx is done, returning ctx's error.
func violates(ctx context.Context, tl *timeline.Timeline, m *statemap.Map, s property.Spec) (bool, string, error) {
	p, err := property.NewSet(expect.Trace(tl, m), s)
	if err != nil {
		return false, "", err
	}
	if _, err := sim.ReplayContext(ctx, tl, m, p); err != nil {
		return false, "", err
	}
	bad, why := p.Violated(0)
	return bad, why, nil
}

// shrinkViolation replays trace i, which violated s in the run, and shrinks it; it returns
// ctx's error as soon as ctx is done, between two replays or within one.
func shrinkViolation(ctx context.Context, g *Generator, cfg Config, s property.Spec, i int) (Violation, error) {
	orig := g.Trace(TraceRand(cfg.Seed, i))
	bad, why, err := violates(ctx, orig, cfg.Map, s)
	if err != nil {
		return Violation{}, err
	}
	if !bad {
		panic(fmt.Sprintf("check: trace %d violated %s in the run but not when replayed again", i, s))
	}
	shrunk, n, err := Shrink(ctx, orig, func(tl *timeline.Timeline) bool {
		bad, _, _ := violates(ctx, tl, cfg.Map, s) // stopped by ctx: not bad, and Shrink stops
		return bad
	})
	if err != nil {
		return Violation{}, err
	}
	_, swhy, err := violates(ctx, shrunk, cfg.Map, s)
	if err != nil {
		return Violation{}, err
	}
	return Violation{Property: s, Trace: i, Original: orig, Why: why, Shrunk: shrunk, ShrunkWhy: swhy, Replays: n}, nil
}

// Shrink returns a smaller trace that still fails, and how many candidates it replayed. It
// removes events (halves, then quarters, down to single events), then replicas no event
// needs, then shortens the trace's end and every gap between events, and starts over until
// nothing more goes. Times stay whole seconds. fails must be deterministic; so is Shrink.
// Once ctx is done Shrink replays no more candidates and returns ctx's error (its cause).
func Shrink(ctx context.Context, tl *timeline.Timeline, fails func(*timeline.Timeline) bool) (*timeline.Timeline, int, error) {
	cur := clone(tl)
	tries := 0
	stopped := false
	// try replays candidate c, keeping it if it fails. Once ctx is done it replays nothing and
	// says no: every loop below ends on candidates that do not fail.
	try := func(c *timeline.Timeline) bool {
		if stopped = stopped || ctx.Err() != nil; stopped {
			return false
		}
		tries++
		bad := fails(c)
		if stopped = ctx.Err() != nil; stopped {
			return false // fails may have been cut short: its answer means nothing
		}
		if bad {
			cur = c
		}
		return bad
	}
	for changed := true; changed; {
		changed = false
		// Events, in chunks.
		for size := max(len(cur.Events)/2, 1); size >= 1 && len(cur.Events) > 0; size /= 2 {
			for start := 0; start < len(cur.Events); {
				c := clone(cur)
				c.Events = slices.Delete(c.Events, start, min(start+size, len(c.Events)))
				if try(c) {
					changed = true
				} else {
					start += size
				}
			}
		}
		// Replication events, in chunks.
		for size := max(replCount(cur)/2, 1); size >= 1 && replCount(cur) > 0; size /= 2 {
			for start := 0; start < replCount(cur); {
				c := clone(cur)
				c.Repl.Events = slices.Delete(c.Repl.Events, start, min(start+size, len(c.Repl.Events)))
				if try(c) {
					changed = true
				} else {
					start += size
				}
			}
		}
		// Replicas, last first.
		for j := len(cur.Nodes) - 1; j >= 0 && len(cur.Nodes) > 1; j-- {
			if j < len(cur.Nodes) && cur.Nodes[j].Role != fence.Master && try(dropNode(cur, j)) {
				changed = true
			}
		}
		// The end: the earliest that still fails, no earlier than the last event.
		last := time.Duration(0)
		if n := len(cur.Events); n > 0 {
			last = cur.Events[n-1].At
		}
		if n := replCount(cur); n > 0 {
			last = max(last, cur.Repl.Events[n-1].At)
		}
		if end := earliest(last, cur.End, time.Second, func(t time.Duration) bool {
			c := clone(cur)
			c.End = t
			return try(c)
		}); end < cur.End {
			changed = true
		}
		// Gaps: pull each event, and all after it, as early as still fails; first by whole
		// periods of the probe and tick schedule, which keep every probe's phase, then by seconds.
		period := schedulePeriod(cur.Interval)
		for k := range cur.Events {
			prev := time.Duration(0)
			if k > 0 {
				prev = cur.Events[k-1].At
			}
			for _, step := range []time.Duration{period, time.Second} {
				base, at := cur, cur.Events[k].At
				if t := earliest(prev, at, step, func(t time.Duration) bool {
					c := clone(base)
					shift(c, k, at-t)
					return try(c)
				}); t < at {
					changed = true
				}
			}
		}
	}
	if stopped {
		return nil, tries, context.Cause(ctx)
	}
	return cur, tries, nil
}

// earliest returns the earliest t = hi - n*step, t >= lo, for which ok(t) holds, searching by
// halves from hi (which is taken to hold); ok is called only on t < hi.
func earliest(lo, hi, step time.Duration, ok func(time.Duration) bool) time.Duration {
	n := int64((hi - lo) / step) // the largest n to try
	if n <= 0 {
		return hi
	}
	at := func(n int64) time.Duration { return hi - time.Duration(n)*step }
	if ok(at(n)) {
		return at(n)
	}
	good, bad := int64(0), n // ok(at(good)) holds, ok(at(bad)) does not
	for bad-good > 1 {
		mid := (good + bad) / 2
		if ok(at(mid)) {
			good = mid
		} else {
			bad = mid
		}
	}
	return at(good)
}

// schedulePeriod is the span after which probe starts (every interval from t=0, while healthy)
// and timekeeper ticks fall on the same phase again: their least common multiple, in seconds.
func schedulePeriod(interval time.Duration) time.Duration {
	a, b := int64(interval/time.Second), int64(statemap.TickInterval/time.Second)
	if a <= 0 || interval%time.Second != 0 {
		return time.Second
	}
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	return time.Duration(a/x*b) * time.Second
}

// shift moves events k.. earlier by d; the end stays, so the violation keeps its time to
// happen, and the end is shortened on the next round.
func shift(tl *timeline.Timeline, k int, d time.Duration) {
	for i := k; i < len(tl.Events); i++ {
		tl.Events[i].At -= d
	}
}

// dropNode removes node j and its events, and its place in every partition: a partition
// stays a partition of the members left (one that no longer separates anyone is one network).
func dropNode(tl *timeline.Timeline, j int) *timeline.Timeline {
	c := clone(tl)
	c.Nodes = slices.Delete(c.Nodes, j, j+1)
	c.Events = slices.DeleteFunc(c.Events, func(e timeline.Event) bool { return e.Node == j })
	dropReplNode(c.Repl, j)
	for i := range c.Events {
		ev := &c.Events[i]
		if ev.Node > j {
			ev.Node--
		}
		if ev.Segments != nil {
			ev.Segments = slices.Delete(slices.Clone(ev.Segments), j, j+1)
		}
	}
	return c
}

// replCount is how many replication events tl has.
func replCount(tl *timeline.Timeline) int {
	if tl.Repl == nil {
		return 0
	}
	return len(tl.Repl.Events)
}

func clone(tl *timeline.Timeline) *timeline.Timeline {
	c := *tl
	c.Nodes = slices.Clone(tl.Nodes)
	c.Witnesses = slices.Clone(tl.Witnesses)
	c.Events = slices.Clone(tl.Events)
	c.Repl = cloneRepl(tl.Repl)
	c.Expects = nil
	return &c
}
