package check

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/failsim/failsim/property"
	"github.com/failsim/failsim/timeline"
)

var errTripped = errors.New("tripped")

// tripCtx is a context that cancels itself, with cause errTripped, at the n-th call of its Err:
// a signal that arrives at a point of the run the test chooses, with no clock.
type tripCtx struct {
	context.Context
	cancel context.CancelCauseFunc
	left   atomic.Int64
}

func newTripCtx(t *testing.T, n int64) *tripCtx {
	ctx, cancel := context.WithCancelCause(context.Background())
	t.Cleanup(func() { cancel(nil) })
	c := &tripCtx{Context: ctx, cancel: cancel}
	c.left.Store(n)
	return c
}

func (c *tripCtx) Err() error {
	if c.left.Add(-1) == 0 {
		c.cancel(errTripped)
	}
	return c.Context.Err()
}

// Shrinking stops at once when its context is done: no candidate is replayed after it, and it
// returns the context's cause, not a trace shrunk halfway. (A shrink of a 20,000-node trace
// went on 90 s past SIGTERM.)
func TestShrinkStopsOnContext(t *testing.T) {
	m := loadMap(t, "../conf/examples/aggressive.properties")
	g, err := NewGenerator(Benign, DefaultShape(), m, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := property.Spec{Name: property.NoFalseFailover}
	orig := g.Trace(TraceRand(1, 0))
	fails := func(tl *timeline.Timeline) bool { bad, _, _ := Violates(tl, m, s); return bad }
	_, all, err := Shrink(context.Background(), orig, fails)
	if err != nil || all < 20 {
		t.Fatalf("the whole shrink: %d replays, %v", all, err)
	}
	for _, stopAt := range []int{1, 5, all / 2, all} {
		ctx, cancel := context.WithCancelCause(context.Background())
		calls, after := 0, 0
		shrunk, n, err := Shrink(ctx, orig, func(tl *timeline.Timeline) bool {
			if ctx.Err() != nil {
				after++
			}
			if calls++; calls == stopAt {
				cancel(errTripped) // during this candidate's replay: its answer is not taken
			}
			return fails(tl)
		})
		cancel(nil)
		if !errors.Is(err, errTripped) || shrunk != nil {
			t.Errorf("stopped at candidate %d: %v, %v; want the cause and no trace", stopAt, shrunk != nil, err)
		}
		if after != 0 || n != stopAt {
			t.Errorf("stopped at candidate %d: %d replayed, %d of them after the stop", stopAt, n, after)
		}
	}
}

// A run whose context is done while it shrinks a counterexample returns the context's error,
// not a result: what it would print, with a shrunk trace cut short, is no verdict.
func TestRunStopsWhileShrinking(t *testing.T) {
	m := loadMap(t, "../conf/examples/aggressive.properties")
	cfg := Config{Map: m, Family: Benign, Shape: DefaultShape(), Traces: 1, Seed: 1, Workers: 1}
	res, err := Run(context.Background(), cfg)
	if err != nil || res.Held() {
		t.Fatalf("trace 0 violates nothing to shrink: %v", err)
	}
	for _, n := range []int64{1, 3, 8, 20, 60} {
		ctx := newTripCtx(t, n)
		res, err := Run(ctx, cfg)
		if !errors.Is(err, errTripped) && !errors.Is(err, context.Canceled) || res != nil {
			t.Errorf("stopped at the %d-th look at the context: a result %v, %v; want its error and no result", n, res != nil, err)
		}
	}
}
