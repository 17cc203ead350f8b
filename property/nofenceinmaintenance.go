package property

import (
	"time"

	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/narrate"
)

// noFenceInMaintenance judges no-fence-in-maintenance: a decision about an alarm or a fence,
// made while the policy is maintenance, is a violation when it is made; and an alarm still
// held in maintenance, read from the engine when the policy turns to maintenance, is one too.
type noFenceInMaintenance struct {
	judge
	names []string
	maint bool // the policy is maintenance, as the events last said
	look  bool // the engine's alarms are to be read at the end of the instant
	buf   []fence.AlarmView
}

// Event implements drive.Observer.
func (p *noFenceInMaintenance) Event(ev fence.Event) {
	switch ev := ev.(type) {
	case *fence.PolicyChanged:
		p.maint = ev.Policy == fence.Maintenance
		p.look = p.look || p.maint
	case *fence.AlarmRaised:
		p.look = true
	}
	if !p.maint {
		return
	}
	if d, ok := ev.(fence.Decision); ok {
		switch d.Kind() {
		case fence.KindAlarmRaised, fence.KindAlarmExpired, fence.KindExpiryWaiting, fence.KindLogged, fence.KindAlertNotImplemented,
			fence.KindAlreadyFailed, fence.KindNodeFailed, fence.KindFailover, fence.KindNoCandidate:
			p.fail(d.When(), "in maintenance: %s", narrate.Describe(p.names, ev))
		}
	}
}

// Instant implements drive.Observer.
func (p *noFenceInMaintenance) Instant(at time.Duration, e *fence.Engine) {
	if !p.look {
		return
	}
	p.look = false
	if e.Policy() != fence.Maintenance {
		return
	}
	for i := range e.Len() {
		if e.AlarmCount(i) > 0 {
			p.buf = e.Alarms(p.buf[:0], i)
			a := p.buf[0]
			p.fail(at, "in maintenance %s has an alarm: %s at %d of %d", p.names[i], a.Condition, a.Count, a.Threshold)
			return
		}
	}
}
