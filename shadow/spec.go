package shadow

import "github.com/failsim/failsim/statemap"

// Spec is one shadow as a command names it: --shadow NAME=FILE, the file read into Map.
type Spec struct {
	// Name names the shadow in every divergence and metric.
	Name string
	// File is the statemap override file it was read from, for the reader ("" for the shipped
	// defaults alone).
	File string
	// Map is the candidate statemap, the shipped defaults with File's overrides.
	Map *statemap.Map
}

// Tally is a Sink that keeps every divergence and counts each shadow's decisions: a replay's,
// printed once it has ended. Make it with NewTally.
type Tally struct {
	// Divergences are every divergence told, in the order told.
	Divergences []Divergence
	// Decisions counts each shadow's decisions compared, by its index.
	Decisions []int
}

// NewTally returns an empty tally of n shadows.
func NewTally(n int) *Tally { return &Tally{Decisions: make([]int, n)} }

// Decided implements Sink.
func (t *Tally) Decided(s int, _ Decision) { t.Decisions[s]++ }

// Diverged implements Sink.
func (t *Tally) Diverged(d Divergence) { t.Divergences = append(t.Divergences, d) }

// Of returns the divergences of the shadow named name, in the order told.
func (t *Tally) Of(name string) []Divergence {
	var out []Divergence
	for _, d := range t.Divergences {
		if d.Shadow == name {
			out = append(out, d)
		}
	}
	return out
}
