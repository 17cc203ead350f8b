package writer

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/failsim/failsim/repl"
)

// TestSummarizeExact: the outage and the unavailable time to exact values.
func TestSummarizeExact(t *testing.T) {
	r := repl.PerSecond(100)
	a := make([]bool, 1000)
	for k := range a {
		a[k] = !(k >= 300 && k < 450) && !(k >= 600 && k < 700) && k < 990
	}
	s := Summarize(r, a)
	want := repl.Outage{From: 3 * time.Second, To: 4500 * time.Millisecond, Writes: 150}
	if s.Offered != 1000 || s.Acknowledged != 740 || s.Failed != 260 || s.Outage != want || s.Unavailable != 2600*time.Millisecond {
		t.Fatalf("Summarize = %+v", s)
	}
	// A run still open at the end runs to the first write not issued.
	s = Summarize(r, []bool{true, false, false})
	if want := (repl.Outage{From: 10 * time.Millisecond, To: 30 * time.Millisecond, Writes: 2}); s.Outage != want {
		t.Fatalf("open run: %+v, want %+v", s.Outage, want)
	}
	if s = Summarize(r, nil); s.Offered != 0 || s.Failed != 0 || s.Outage != (repl.Outage{}) || s.Unavailable != 0 {
		t.Fatalf("no writes: %+v", s)
	}
}

// TestSummarizeAgreesWithTheModel: for the fates the replication model gives its writes (a
// master whose link dies and comes back, and goes slow over the deadline, at seeded times),
// Summarize says what the model's own summary says.
func TestSummarizeAgreesWithTheModel(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 11))
		rate := repl.PerSecond(int64(1 + rng.IntN(300)))
		m := repl.New(repl.Config{Nodes: 2, Master: 0, Rate: rate, Deadline: 2 * time.Second})
		at := time.Duration(0)
		for range 1 + rng.IntN(6) {
			at += time.Duration(rng.Int64N(int64(20 * time.Second)))
			var l repl.Link
			switch rng.IntN(3) {
			case 0:
				l = repl.Link{Dead: true}
			case 1:
				l = repl.Slow(time.Duration(rng.Int64N(int64(4 * time.Second))))
			}
			m.Step(at, repl.SetLink{Node: 0, Link: l})
		}
		end := at + time.Duration(rng.Int64N(int64(20*time.Second)))
		m.Close(end)
		want := m.Summary()
		acked := make([]bool, want.Offered)
		for _, e := range m.Ledger() {
			for k := e.FirstWrite; k < e.FirstWrite+e.Count; k++ {
				acked[k] = true
			}
		}
		got := Summarize(rate, acked)
		if got.Offered != want.Offered || got.Acknowledged != want.Acknowledged || got.Failed != want.Failed ||
			got.Outage != want.Outage || got.Unavailable != want.Unavailable || !slices.Equal(got.Outages, want.Outages) {
			t.Fatalf("seed %d: Summarize = %+v\nthe model says %+v", seed, got, want)
		}
	}
}
