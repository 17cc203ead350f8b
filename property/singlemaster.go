package property

import (
	"strings"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
)

// singleMaster judges single-master: it counts the masters in service, read from the engine,
// at the end of each instant at which a role may have changed.
type singleMaster struct {
	judge
}

// renew implements renewer, as New makes one.
func (p *singleMaster) renew(Trace) { p.judge.renew() }

// Topics implements Subscriber: the changes of a master.
func (p *singleMaster) Topics() Topics {
	return OnKinds(fence.KindFailover, fence.KindNoCandidate, fence.KindNodeFailed, fence.KindNodeRecovered)
}

// Event implements Property: a fence or a recovery may change a role.
func (p *singleMaster) Event(ev act.Event) bool {
	switch ev.(type) {
	case *fence.Failover, *fence.NoCandidate, *fence.NodeFailed, *fence.NodeRecovered:
		return true
	}
	return false
}

// Look implements Property.
func (p *singleMaster) Look(at time.Duration, e fence.View) bool {
	n := 0
	for i := range e.Len() {
		if v := e.Node(i); v.Role == fence.Master && !v.Failed {
			n++
		}
	}
	if n < 2 {
		return false
	}
	var masters []string
	for i := range e.Len() {
		if v := e.Node(i); v.Role == fence.Master && !v.Failed {
			masters = append(masters, v.Name)
		}
	}
	p.fail(at, "%d masters in service: %s", n, strings.Join(masters, ", "))
	return false
}
