package shadow

import "fmt"

// Side says which of the two engines made the decision the other did not. The zero value is
// ShadowOnly.
type Side uint8

// The sides of a divergence.
const (
	ShadowOnly Side = iota // the shadow would have made the decision; the live engine did not
	LiveOnly               // the live engine made it; the shadow would not have
)

// String is the side's stable name: "shadow-only" or "live-only".
func (s Side) String() string {
	if s == LiveOnly {
		return "live-only"
	}
	return "shadow-only"
}

// Divergence is one decision about a node's service that one of a shadow and the live engine
// made and the other did not, at its time (Decision.At).
type Divergence struct {
	// Shadow is the shadow's name.
	Shadow string
	// Side says who made the decision: the shadow alone, or the live engine alone.
	Side Side
	// Decision is the decision made, by the side that made it.
	Decision
}

// Describe says the divergence in words, the nodes named by names (cluster order): "shadow
// aggressive would have failed master db1 over to db2 (query_results_timeout for 8 ticks,
// threshold 8); the live engine did not".
func (d Divergence) Describe(names []string) string {
	if d.Side == LiveOnly {
		return fmt.Sprintf("shadow %s would not have: the live engine %s (%s)", d.Shadow, d.what(names), d.Cause())
	}
	return fmt.Sprintf("shadow %s would have %s (%s); the live engine did not", d.Shadow, d.what(names), d.Cause())
}
