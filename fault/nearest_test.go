package fault

import "testing"

func TestNearest(t *testing.T) {
	for s, want := range map[string]string{
		"freez": "freeze", "FREEZ": "freeze", "stal": "stall", "rest": "reset", "blackhol": "blackhole",
		"refuse": "refuse", "hostdwn": "hostdown", "slwo": "slow", "err": "error",
	} {
		if k, ok := Nearest(s); !ok || k.String() != want {
			t.Errorf("Nearest(%q) = %v, %v; want %s", s, k, ok, want)
		}
	}
	for _, s := range []string{"explode", "melt", "x", ""} {
		if k, ok := Nearest(s); ok {
			t.Errorf("Nearest(%q) = %v: want no suggestion", s, k)
		}
	}
}

// TestNearestName: failsim's one did-you-mean rule, over any list of words: a swap of two
// neighbouring letters is one edit, a prefix must be three bytes, a short name takes one edit.
func TestNearestName(t *testing.T) {
	words := []string{"freeze", "slow", "checker", "expect"}
	for s, want := range map[string]string{
		"frezee": "freeze", "FREZEE": "freeze", "slwo": "slow", "chekcer": "checker", "exp": "expect", "expcet": "expect",
	} {
		if n, ok := NearestName(s, words); !ok || n != want {
			t.Errorf("NearestName(%q) = %q, %v; want %s", s, n, ok, want)
		}
	}
	// "fr" was a suggestion by a 2-byte prefix, "shoe" (2 edits from slow) and "frzzee" by two
	// edits before the rules were one.
	for _, s := range []string{"fr", "shoe", "frzzee", "explode", ""} {
		if n, ok := NearestName(s, words); ok {
			t.Errorf("NearestName(%q) = %q: want no suggestion", s, n)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"freeze", "freeze", 0},
		{"frezee", "freeze", 1}, {"ab", "ba", 1}, {"abc", "ca", 3}, {"kitten", "sitting", 3},
		{"slwo", "slow", 1}, {"shoe", "slow", 2},
	} {
		if got := editDistance(c.a, c.b); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
