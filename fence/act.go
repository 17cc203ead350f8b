package fence

import (
	"fmt"

	"github.com/failsim/failsim/statemap"
)

// act runs an expired alarm's action on node i, decided by coordinator coord (up), in coord's
// copy of the cluster's state.
func (e *Engine) act(i int, a alarm, coord int) {
	switch a.action {
	case statemap.None:
		emit(e, &e.dec.logged, Logged{At: e.now, Node: i, Condition: a.cond})
		return
	case statemap.Alert:
		emit(e, &e.dec.alertNotImplemented, AlertNotImplemented{At: e.now, Node: i, Condition: a.cond})
		return
	}
	e.fail(i, a.cond, coord, false)
}

// fail takes node i out of service in coordinator coord's copy: a replica is failed, a master
// failed over (or failed, under manual policy). host says it is a host failure (the node's
// host did not answer coord's ping), not an expired alarm of condition cond.
func (e *Engine) fail(i int, cond statemap.Condition, coord int, host bool) {
	e.acting = coord
	cl := e.copies[e.copyOf[coord]]
	m := &cl[i]
	if m.Failed {
		emit(e, &e.dec.alreadyFailed, AlreadyFailed{At: e.now, Node: i, Condition: cond, Host: host})
		return
	}
	m.Failed = true
	if m.Role != Master {
		emit(e, &e.dec.nodeFailed, NodeFailed{At: e.now, Node: i, Condition: cond, Role: Replica, Host: host})
		return
	}
	// A failed master is shunned, whatever the policy: it never comes back by itself.
	m.Shunned = true
	if e.policy == Manual {
		emit(e, &e.dec.nodeFailed, NodeFailed{At: e.now, Node: i, Condition: cond, Role: Master, Host: host})
		return
	}
	m.Role = Replica
	if c := e.chooseCandidate(cl); c >= 0 {
		cl[c].Role = Master
		emit(e, &e.dec.failover, Failover{At: e.now, Node: i, Condition: cond, To: c, Host: host})
		return
	}
	emit(e, &e.dec.noCandidate, NoCandidate{At: e.now, Node: i, Condition: cond, Ineligible: e.ineligible(i, cl), Host: host})
}

// eligible reports whether node j can be promoted by the acting coordinator: a replica in
// service in its copy, whose manager is up and whose last probe was ok; in group mode, in the
// coordinator's view too (its view's coordinator is the acting one).
func (e *Engine) eligible(j int) bool {
	m := &e.copies[e.copyOf[e.acting]][j]
	return m.Role == Replica && !m.Failed && e.up[j] && e.nodes[j].lastOK && e.inView(j)
}

// inView reports whether node j is in the acting coordinator's view: always, outside group
// mode.
func (e *Engine) inView(j int) bool { return e.coords == nil || e.coords[j] == e.acting }

// InView reports whether node j is in the view of the coordinator whose failover is being
// decided: what a CandidateRule may ask, to say why it passes a node over. Always true outside
// group mode. The eligible function a rule is given already requires it.
func (e *Engine) InView(j int) bool { return e.inView(j) }

// chooseCandidate asks the candidate rule, and holds it to its contract.
func (e *Engine) chooseCandidate(cl Cluster) int {
	if e.eligibleFn == nil {
		e.eligibleFn = e.eligible // made once, at the first failover: it allocates
	}
	c := e.candRule(cl, e.eligibleFn)
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
func (e *Engine) ineligible(master int, cl Cluster) []Ineligible {
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
		case cl[j].Failed:
			why = IsFailed
		case !e.up[j]:
			why = ManagerIsDown
		case !e.inView(j):
			why = NotInView
		case !e.nodes[j].probed:
			why = NeverProbed
		case e.eligible(j):
			why = NotChosen
		}
		out = append(out, Ineligible{Node: j, Why: why})
	}
	return out
}
