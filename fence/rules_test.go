package fence

import "testing"

// TestFirstUp pins the default coordinator rule.
func TestFirstUp(t *testing.T) {
	for _, tc := range []struct {
		up   []bool
		want int
	}{
		{nil, -1},
		{[]bool{false, false}, -1},
		{[]bool{true, true}, 0},
		{[]bool{false, true, true}, 1},
		{[]bool{false, false, true}, 2},
	} {
		if got := FirstUp(tc.up); got != tc.want {
			t.Errorf("FirstUp(%v) = %d, want %d", tc.up, got, tc.want)
		}
	}
}

// TestFirstEligible pins the default candidate rule.
func TestFirstEligible(t *testing.T) {
	c := Cluster{failedM, replica, replica, replica}
	for _, tc := range []struct {
		eligible []bool
		want     int
	}{
		{[]bool{false, false, false, false}, -1},
		{[]bool{false, true, true, true}, 1},
		{[]bool{false, false, true, true}, 2},
		{[]bool{false, false, false, true}, 3},
	} {
		if got := FirstEligible(c, func(i int) bool { return tc.eligible[i] }); got != tc.want {
			t.Errorf("FirstEligible(%v) = %d, want %d", tc.eligible, got, tc.want)
		}
	}
}
