package sim

// property parses "expect property NAME [ARG...]": a property of failsim check, judged over a
// replay so that a counterexample timeline reproduces its violation.
func (p *parser) property(base expectBase, args []string) (Expect, error) {
	return nil, p.errf("expect property: no properties are known yet")
}
