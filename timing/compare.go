package timing

// Change is how a fault's fence moves from one statemap to another. The zero value is Same.
type Change uint8

// The changes, as failsim statemap diff names them.
const (
	Same     Change = iota // the same span, or never under both
	Sooner                 // fenced under both, sooner under the second
	Later                  // fenced under both, later under the second
	NoLonger               // fenced under the first, never under the second
	Newly                  // never under the first, fenced under the second
)

func (c Change) String() string {
	switch c {
	case Sooner:
		return "sooner"
	case Later:
		return "later"
	case NoLonger:
		return "no longer"
	case Newly:
		return "newly"
	}
	return "same"
}

// Compare says how span b differs from span a. Of two spans that both happen, the one with the
// smaller earliest time is the sooner, or with equal earliest times the smaller latest (a
// threshold of 0 against 1 moves only the latest).
func Compare(a, b Span) Change {
	switch {
	case !a.Ever && !b.Ever:
		return Same
	case !b.Ever:
		return NoLonger
	case !a.Ever:
		return Newly
	case b.Earliest < a.Earliest || b.Earliest == a.Earliest && b.Latest < a.Latest:
		return Sooner
	case b.Earliest > a.Earliest || b.Latest > a.Latest:
		return Later
	}
	return Same
}
