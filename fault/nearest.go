package fault

import "strings"

// Nearest returns the fault kind whose name is closest to s, for "did you mean": within two
// edits of s, or s a prefix of its name. ok is false when no name is that close.
func Nearest(s string) (k Kind, ok bool) {
	s = strings.ToLower(s)
	best := 3
	for i, n := range names {
		if len(s) > 1 && strings.HasPrefix(n, s) {
			return Kind(i), true
		}
		if d := editDistance(s, n); d < best {
			k, best, ok = Kind(i), d, true
		}
	}
	return k, ok
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
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
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
