package repl

import (
	"testing"
	"time"
)

// TestHistoryPositions: positions are counted from segments of commits, exactly. At 10
// writes/s, commits by writes 0..99 (t 0 to 9.9s) and 150..199 (15s to 19.9s).
func TestHistoryPositions(t *testing.T) {
	r := PerSecond(10)
	var h history
	if p := h.commit(0, 60); p != 1 {
		t.Fatalf("first position %d", p)
	}
	h.commit(60, 40) // extends the first segment
	if p := h.commit(150, 50); p != 101 {
		t.Fatalf("position %d", p)
	}
	same(t, "segments", h.segs, []segment{{k0: 0, p0: 1, n: 100}, {k0: 150, p0: 101, n: 50}})
	for _, c := range []struct {
		x    time.Duration
		want int64
	}{{-1, 0}, {0, 1}, {sec(0.09), 1}, {sec(0.1), 2}, {sec(9.9), 100}, {12 * time.Second, 100}, {15 * time.Second, 101}, {sec(19.9), 150}, {time.Hour, 150}} {
		if got := position(r, &h, c.x); got != c.want {
			t.Errorf("position at %v = %d, want %d", c.x, got, c.want)
		}
	}
	for p, want := range map[int64]time.Duration{1: 0, 100: sec(9.9), 101: 15 * time.Second, 150: sec(19.9)} {
		if got := commitAt(r, &h, p); got != want {
			t.Errorf("commitAt(%d) = %v, want %v", p, got, want)
		}
	}
	g := h.forked(0, 2, 120)
	same(t, "fork", g, history{owner: 2, parent: 0, fork: 120, top: 120, segs: []segment{{0, 1, 100}, {150, 101, 20}}})
}

// TestHistoryLose: losing marks the acknowledged runs in a range once, splitting runs at its
// ends; a second loss over the same writes counts none of them again.
func TestHistoryLose(t *testing.T) {
	var h history
	h.ack(0, 1, 50)
	h.ack(50, 51, 50) // contiguous: one run of 100
	h.ack(120, 121, 30)
	n, first, last := h.lose(80, 130)
	if n != 30 || first != 81 || last != 130 {
		t.Errorf("lose(80, 130) = %d %d..%d", n, first, last)
	}
	same(t, "runs", h.acked, []run{{0, 1, 80, false}, {80, 81, 20, true}, {120, 121, 10, true}, {130, 131, 20, false}})
	if n, _, _ := h.lose(0, 200); n != 100 {
		t.Errorf("second loss: %d, want the 80 + 20 not yet lost", n)
	}
}

// TestLineage: histories fork; what two histories share is the positions up to their last
// common ancestor's fork, however deep.
func TestLineage(t *testing.T) {
	hs := []history{
		{parent: -1, top: 1000},
		{parent: 0, fork: 900, top: 1500}, // 1 forked from 0 at 900
		{parent: 1, fork: 950, top: 960},  // 2 forked from 1 at 950
		{parent: 0, fork: 800, top: 800},  // 3 forked from 0 at 800
	}
	same(t, "lineage of 2", lineage(hs, 2), []ancestor{{2, 960}, {1, 950}, {0, 900}})
	for _, c := range []struct {
		a, b int
		want int64
	}{{0, 1, 900}, {1, 0, 900}, {2, 1, 950}, {2, 0, 900}, {2, 3, 800}, {1, 1, 1500}} {
		if got := shared(hs, c.a, c.b); got != c.want {
			t.Errorf("shared(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	// Losing history 2's lineage above 800 takes the acknowledged writes of 0 in (800, 900], of 1
	// in (900, 950] and of 2's own.
	hs[0].acked = []run{{k0: 0, p0: 1, n: 1000}}
	hs[1].acked = []run{{k0: 1000, p0: 901, n: 600}}
	hs[2].acked = []run{{k0: 2000, p0: 951, n: 10}}
	n, first, last := loseAbove(hs, 2, 800)
	if n != 100+50+10 || first != 801 || last != 960 {
		t.Errorf("loseAbove = %d %d..%d", n, first, last)
	}
}
