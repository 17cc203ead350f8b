package propspec

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Spec names one property and its argument, as "expect property detects-death-within 90s"
// and failsim check's --property detects-death-within=90s state it. Make one with NewSpec or
// ParseSpec, which check it.
type Spec struct {
	Name string
	Arg  string // "" for none; the duration as written, for the properties that take one
}

// NewSpec checks that property name exists and takes args, and returns its spec:
// detects-death-within, minority-shuns-within and majority-keeps-writer-within take at most
// one positive duration, no-split-brain at most one duration, max-outage one duration, the
// others nothing.
func NewSpec(name string, args []string) (Spec, error) {
	if !slices.Contains(names[:], name) {
		return Spec{}, fmt.Errorf("unknown property %q: want one of %s", name, strings.Join(names[:], ", "))
	}
	if NeedsWorkload(name) {
		return clientSpec(name, args)
	}
	timed := name == DetectsDeathWithin || name == NoSplitBrain || name == MinorityShunsWithin || name == MajorityKeepsWriterWithin
	switch {
	case (name == MinorityShunsWithin || name == MajorityKeepsWriterWithin) && len(args) == 1:
		if d, err := time.ParseDuration(args[0]); err != nil || d <= 0 {
			return Spec{}, fmt.Errorf("%s: %q is not a positive duration such as 40s", name, args[0])
		}
		return Spec{Name: name, Arg: args[0]}, nil
	case name == NoSplitBrain && len(args) == 1:
		if d, err := time.ParseDuration(args[0]); err != nil || d < 0 {
			return Spec{}, fmt.Errorf("%s: %q is not a duration such as 20s", name, args[0])
		}
		return Spec{Name: name, Arg: args[0]}, nil
	case name == DetectsDeathWithin && len(args) == 1:
		if d, err := time.ParseDuration(args[0]); err != nil || d <= 0 {
			return Spec{}, fmt.Errorf("%s: %q is not a positive duration such as 90s or 2m", name, args[0])
		}
		return Spec{Name: name, Arg: args[0]}, nil
	case timed && len(args) > 1:
		return Spec{}, fmt.Errorf("%s takes at most one duration, got %q", name, strings.Join(args, " "))
	case !timed && len(args) > 0:
		return Spec{}, fmt.Errorf("%s takes no argument, got %q", name, strings.Join(args, " "))
	}
	return Spec{Name: name}, nil
}

// clientSpec checks the arguments of a client property.
func clientSpec(name string, args []string) (Spec, error) {
	if name == NoAckedWriteLost {
		if len(args) > 0 {
			return Spec{}, fmt.Errorf("%s takes no argument, got %q", name, args[0])
		}
		return Spec{Name: name}, nil
	}
	if len(args) != 1 {
		return Spec{}, fmt.Errorf("%s takes one duration, such as max-outage=90s", name)
	}
	if d, err := time.ParseDuration(args[0]); err != nil || d < 0 {
		return Spec{}, fmt.Errorf("%s: %q is not a duration such as 90s", name, args[0])
	}
	return Spec{Name: name, Arg: args[0]}, nil
}

// ParseSpec reads NAME or NAME=ARG, as failsim check's --property takes it, and checks it as
// NewSpec does. An empty ARG is none.
func ParseSpec(s string) (Spec, error) {
	name, arg, _ := strings.Cut(s, "=")
	var args []string
	if arg != "" {
		args = []string{arg}
	}
	return NewSpec(name, args)
}

// String is the property as an expect line states it: "detects-death-within 90s".
func (s Spec) String() string { return strings.Join(append([]string{s.Name}, s.Args()...), " ") }

// Args returns the spec's argument as NewSpec takes it: nil for none.
func (s Spec) Args() []string {
	if s.Arg == "" {
		return nil
	}
	return []string{s.Arg}
}

// Within returns detects-death-within's fixed duration, 0 for the statemap's own promise (no
// argument) or another property.
func (s Spec) Within() time.Duration {
	if s.Name != DetectsDeathWithin {
		return 0
	}
	return s.Duration()
}

// Duration returns the spec's duration argument, 0 for none (or an argument that is no
// duration, which NewSpec refuses).
func (s Spec) Duration() time.Duration {
	d, _ := time.ParseDuration(s.Arg)
	return d
}
