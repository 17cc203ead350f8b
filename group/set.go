package group

import (
	"fmt"
	"iter"
	"math/bits"
	"strings"
)

// MaxMembers is the most members a group holds: a Set is one machine word.
const MaxMembers = 64

// Set is a set of members, named by their index in Config.Members: bit i is member i. It is a
// value: comparing two with == compares their members. The zero value is the empty set.
type Set uint64

// SetOf returns the set of the given members; an index outside 0..MaxMembers-1 panics.
func SetOf(members ...int) Set {
	var s Set
	for _, m := range members {
		s = s.With(m)
	}
	return s
}

// With returns s with member i added.
func (s Set) With(i int) Set { return s | bit(i) }

// Without returns s with member i removed.
func (s Set) Without(i int) Set { return s &^ bit(i) }

// Has reports whether member i is in s.
func (s Set) Has(i int) bool { return s&bit(i) != 0 }

// Len is the number of members in s.
func (s Set) Len() int { return bits.OnesCount64(uint64(s)) }

// First is the first member of s in cluster order, or -1 when s is empty.
func (s Set) First() int {
	if s == 0 {
		return -1
	}
	return bits.TrailingZeros64(uint64(s))
}

// All yields the members of s in cluster order.
func (s Set) All() iter.Seq[int] {
	return func(yield func(int) bool) {
		for r := s; r != 0; r &= r - 1 {
			if !yield(bits.TrailingZeros64(uint64(r))) {
				return
			}
		}
	}
}

// Members returns the members of s in cluster order, as a new slice (nil for the empty set).
func (s Set) Members() []int {
	var out []int
	for i := range s.All() {
		out = append(out, i)
	}
	return out
}

// String lists the members' indices in cluster order: "{0 2 3}".
func (s Set) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range s.All() {
		if b.Len() > 1 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, i)
	}
	b.WriteByte('}')
	return b.String()
}

// Names lists the members' names from names (indexed like Config.Members) in cluster order,
// separated by sep.
func (s Set) Names(names []string, sep string) string {
	var b strings.Builder
	for i := range s.All() {
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(names[i])
	}
	return b.String()
}

func bit(i int) Set {
	if i < 0 || i >= MaxMembers {
		panic(fmt.Sprintf("group: member %d out of range", i))
	}
	return 1 << uint(i)
}
