package check

import (
	"strings"

	"github.com/failsim/failsim/sim"
)

// Spec names one property to check and its argument ("" for none), as in
// "detects-death-within=90s".
type Spec struct {
	Name string
	Arg  string
}

// ParseSpec reads NAME or NAME=ARG and checks that the property exists and takes the argument.
func ParseSpec(s string) (Spec, error) {
	name, arg, _ := strings.Cut(s, "=")
	sp := Spec{Name: name, Arg: arg}
	if _, err := sp.New(&sim.Timeline{}); err != nil {
		return Spec{}, err
	}
	return sp, nil
}

// String is the property as an expect line states it: "detects-death-within 90s".
func (s Spec) String() string { return strings.Join(append([]string{s.Name}, s.args()...), " ") }

func (s Spec) args() []string {
	if s.Arg == "" {
		return nil
	}
	return []string{s.Arg}
}

// New returns a fresh observer of the property for one replay of tl.
func (s Spec) New(tl *sim.Timeline) (sim.Property, error) {
	return sim.NewProperty(tl, s.Name, s.args())
}
