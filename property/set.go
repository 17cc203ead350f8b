package property

import (
	"fmt"
	"slices"
	"time"

	"github.com/failsim/failsim/fence"
)

// Set judges several properties over one run as one observer: what failsim check hangs on each
// trace. Its zero value judges none.
type Set struct {
	props []Property
}

// NewSet returns fresh observers of the properties specs for one run of tr. A property may be
// named once.
func NewSet(tr Trace, specs ...Spec) (*Set, error) {
	s := &Set{props: make([]Property, 0, len(specs))}
	for i, sp := range specs {
		if slices.ContainsFunc(specs[:i], func(o Spec) bool { return o.Name == sp.Name }) {
			return nil, fmt.Errorf("property %s is named twice", sp.Name)
		}
		p, err := New(sp, tr)
		if err != nil {
			return nil, err
		}
		s.props = append(s.props, p)
	}
	return s, nil
}

// Event implements drive.Observer.
func (s *Set) Event(ev fence.Event) {
	for _, p := range s.props {
		p.Event(ev)
	}
}

// Instant implements drive.Observer.
func (s *Set) Instant(at time.Duration, e *fence.Engine) {
	for _, p := range s.props {
		p.Instant(at, e)
	}
}

// Violated reports whether the i-th property of the set, in the order of the specs, is
// violated, and its first violation.
func (s *Set) Violated(i int) (bool, string) {
	held, why := s.props[i].Verdict()
	return !held, why
}
