package property

import (
	"strings"
	"time"

	"github.com/failsim/failsim/fence"
)

// singleMaster judges single-master: it counts the masters in service, read from the engine,
// at the end of each instant at which a role may have changed.
type singleMaster struct {
	judge
	dirty bool // a fence or a recovery may have changed a role since the last look
}

// Event implements drive.Observer.
func (p *singleMaster) Event(ev fence.Event) {
	switch ev.(type) {
	case *fence.Failover, *fence.NoCandidate, *fence.NodeFailed, *fence.NodeRecovered:
		p.dirty = true
	}
}

// Instant implements drive.Observer.
func (p *singleMaster) Instant(at time.Duration, e *fence.Engine) {
	if !p.dirty {
		return
	}
	p.dirty = false
	n := 0
	for i := range e.Len() {
		if v := e.Node(i); v.Role == fence.Master && !v.Failed {
			n++
		}
	}
	if n < 2 {
		return
	}
	var masters []string
	for i := range e.Len() {
		if v := e.Node(i); v.Role == fence.Master && !v.Failed {
			masters = append(masters, v.Name)
		}
	}
	p.fail(at, "%d masters in service: %s", n, strings.Join(masters, ", "))
}
