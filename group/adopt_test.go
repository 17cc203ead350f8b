package group

import "testing"

// TestAdoptionRule pins which side's copy merging views adopt: the primary side's; between
// several primary sides, or none, the side holding the first member in cluster order, wherever
// it stands among the sources.
func TestAdoptionRule(t *testing.T) {
	src := func(primary bool, members ...int) Source {
		var s Set
		for _, m := range members {
			s = s.With(m)
		}
		return Source{Members: s, Primary: primary}
	}
	for _, tc := range []struct {
		name    string
		sources []Source
		want    int
	}{
		{"one side", []Source{src(false, 0)}, 0},
		{"the primary majority over the isolated master", []Source{src(false, 0), src(true, 1, 2)}, 1},
		{"the primary side first", []Source{src(true, 0, 2), src(false, 1)}, 0},
		{"both primary: the side of the first member", []Source{src(true, 3, 1), src(true, 2, 0)}, 1},
		{"none primary: the side of the first member", []Source{src(false, 0), src(false, 1)}, 0},
		{"none primary, the first member in the last side", []Source{src(false, 2), src(false, 1, 3), src(false, 0)}, 2},
		{"three sides, the primary last", []Source{src(false, 0), src(false, 1), src(true, 2)}, 2},
		{"a primary side beats a side with an earlier member", []Source{src(false, 0), src(true, 4), src(false, 1)}, 1},
	} {
		if got := adopted(tc.sources); got != tc.want {
			t.Errorf("%s: adopted %d, want %d", tc.name, got, tc.want)
		}
	}
}
