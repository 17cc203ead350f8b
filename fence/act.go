package fence

import (
	"fmt"

	"github.com/failsim/failsim/statemap"
)

// act runs an expired alarm's action on node i; the coordinator is up.
func (e *Engine) act(i int, a alarm) {
	switch a.action {
	case statemap.None:
		emit(e, &e.dec.logged, Logged{At: e.now, Node: i, Condition: a.cond})
		return
	case statemap.Alert:
		emit(e, &e.dec.alertNotImplemented, AlertNotImplemented{At: e.now, Node: i, Condition: a.cond})
		return
	}
	m := &e.cluster[i]
	if m.Failed {
		emit(e, &e.dec.alreadyFailed, AlreadyFailed{At: e.now, Node: i, Condition: a.cond})
		return
	}
	m.Failed = true
	if m.Role != Master {
		emit(e, &e.dec.nodeFailed, NodeFailed{At: e.now, Node: i, Condition: a.cond, Role: Replica})
		return
	}
	// A failed master is shunned, whatever the policy: it never comes back by itself.
	m.Shunned = true
	if e.policy == Manual {
		emit(e, &e.dec.nodeFailed, NodeFailed{At: e.now, Node: i, Condition: a.cond, Role: Master})
		return
	}
	m.Role = Replica
	if c := e.chooseCandidate(); c >= 0 {
		e.cluster[c].Role = Master
		emit(e, &e.dec.failover, Failover{At: e.now, Node: i, Condition: a.cond, To: c})
		return
	}
	emit(e, &e.dec.noCandidate, NoCandidate{At: e.now, Node: i, Condition: a.cond, Ineligible: e.ineligible(i)})
}

// eligible reports whether node j can be promoted: a replica in service whose manager is up
// and whose last probe was ok.
func (e *Engine) eligible(j int) bool {
	m := &e.cluster[j]
	return m.Role == Replica && !m.Failed && e.up[j] && e.nodes[j].lastOK
}

// chooseCandidate asks the candidate rule, and holds it to its contract.
func (e *Engine) chooseCandidate() int {
	if e.eligibleFn == nil {
		e.eligibleFn = e.eligible // made once, at the first failover: it allocates
	}
	c := e.candRule(e.cluster, e.eligibleFn)
	if c != -1 && (c < 0 || c >= len(e.nodes) || !e.eligible(c)) {
		panic(fmt.Sprintf("fence: the candidate rule chose node %d, which is not eligible", c))
	}
	return c
}

// chooseCoordinator asks the coordinator rule, and holds it to its contract.
func (e *Engine) chooseCoordinator() int {
	c := e.coordRule(e.up)
	if c != -1 && (c < 0 || c >= len(e.nodes) || !e.up[c]) {
		panic(fmt.Sprintf("fence: the coordinator rule chose node %d, whose manager is not up", c))
	}
	return c
}

// ineligible says why each node other than master was not promoted, in cluster order. The
// slice is new: the decision keeps it.
func (e *Engine) ineligible(master int) []Ineligible {
	if len(e.nodes) < 2 {
		return nil
	}
	out := make([]Ineligible, 0, len(e.nodes)-1)
	for j := range e.nodes {
		if j == master {
			continue
		}
		why := LastProbeNotOK
		switch {
		case e.cluster[j].Failed:
			why = IsFailed
		case !e.up[j]:
			why = ManagerIsDown
		case !e.nodes[j].probed:
			why = NeverProbed
		case e.eligible(j):
			why = NotChosen
		}
		out = append(out, Ineligible{Node: j, Why: why})
	}
	return out
}
