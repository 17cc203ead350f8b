package repl

// space is the room a model held, emptied, for Reset to build the next one in.
type space struct {
	hists   []history // past its length, the histories of the model before, for fork to reuse
	segs    []segment // the first history's
	acked   []run     // the first history's
	nodes   []node    // as many as the next model has, each zero but for its emptied pieces
	wait    []entry
	losses  []Loss
	outages []Outage
}

// reusable returns m's space, emptied (the histories past the first are emptied by fork, as it
// takes them), with room for a model of nodes nodes. Every slice m handed out was a copy
// (Summary, Ledger, clone) or is not kept here (decisions, rankings), so the next model may
// write over it.
func (m *Model) reusable(nodes int) space {
	s := space{hists: m.hists[:0], wait: m.wait[:0], losses: m.losses[:0], outages: m.client.outages[:0]}
	if len(m.hists) > 0 {
		s.segs, s.acked = m.hists[0].segs[:0], m.hists[0].acked[:0]
	}
	if cap(m.nodes) < nodes {
		s.nodes = make([]node, nodes)
		return s
	}
	s.nodes = m.nodes[:nodes]
	for j := range s.nodes {
		s.nodes[j] = node{pieces: s.nodes[j].pieces[:0]}
	}
	return s
}

// fork appends the history node owner starts when promoted with positions up to at of history
// parent stored (history.forked), in the space a model before Reset left past the end of
// m.hists if there is some, and returns its number.
func (m *Model) fork(parent, owner int, at int64) int {
	if len(m.hists) < cap(m.hists) {
		m.hists = m.hists[:len(m.hists)+1]
	} else {
		m.hists = append(m.hists, history{})
	}
	g := len(m.hists) - 1
	m.hists[parent].forkInto(&m.hists[g], parent, owner, at)
	return g
}
