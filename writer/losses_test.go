package writer

import (
	"slices"
	"testing"
	"time"

	"github.com/failsim/failsim/repl"
)

// TestLosses: one promotion owns every lost write, from the lowest lost id to the highest; with
// nothing lost, no promotion or two, Losses attributes nothing.
func TestLosses(t *testing.T) {
	one := []Promotion{{At: 7 * time.Second, From: 0, To: 2}}
	got := Losses([]int64{40, 41, 45}, one)
	want := []repl.Loss{{At: 7 * time.Second, Cause: repl.LostAtFailover, Master: 0, Keeper: 2, Count: 3, First: 40, Last: 45}}
	if !slices.Equal(got, want) {
		t.Errorf("Losses(one promotion) = %+v, want %+v", got, want)
	}
	two := append(slices.Clone(one), Promotion{At: 20 * time.Second, From: 2, To: 1})
	for _, c := range []struct {
		name       string
		lost       []int64
		promotions []Promotion
	}{
		{"nothing lost", nil, one},
		{"no promotion", []int64{3}, nil},
		{"two promotions", []int64{3, 9}, two},
	} {
		if got := Losses(c.lost, c.promotions); got != nil {
			t.Errorf("Losses(%s) = %+v, want nil", c.name, got)
		}
	}
}
