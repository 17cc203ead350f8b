package fault

import "strings"

// Nearest returns the fault kind whose name is closest to s, for "did you mean", by
// NearestName's rule. ok is false when no name is that close.
func Nearest(s string) (k Kind, ok bool) {
	n, ok := NearestName(s, names[:])
	if !ok {
		return 0, false
	}
	return ParseKind(n)
}

// NearestName returns the name of names closest to s, for "did you mean": failsim's one rule
// over any list of lower-case words (faults, conditions, a timeline's statements). A name is
// close when s, case aside, is a prefix of it of three bytes or more, or is within a quarter of
// its length in edits (at least one), a swap of two neighbouring bytes counting as one edit;
// the first prefix wins, else the fewest edits, the first of equals. ok is false when no name
// is that close: a suggestion for nonsense helps nobody.
func NearestName(s string, names []string) (name string, ok bool) {
	s = strings.ToLower(s)
	bestD := -1
	for _, n := range names {
		if len(s) > 2 && strings.HasPrefix(n, s) {
			return n, true
		}
		if d := editDistance(s, n); d <= max(1, len(n)/4) && (bestD < 0 || d < bestD) {
			name, bestD, ok = n, d, true
		}
	}
	return name, ok
}

// editDistance is the optimal string alignment distance between a and b, in bytes: insertions,
// deletions, substitutions and swaps of two neighbouring bytes, one edit each.
func editDistance(a, b string) int {
	// Three rows: the one before the previous is what a swap looks back to.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
