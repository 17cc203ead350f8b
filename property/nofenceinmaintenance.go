package property

import (
	"time"

	"github.com/failsim/failsim/act"
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
	buf   []fence.AlarmView
}

// renew implements renewer, as New makes one.
func (p *noFenceInMaintenance) renew(tr Trace) {
	p.judge.renew()
	p.maint = tr.Policy == fence.Maintenance
}

// Topics implements Subscriber: the policy, and the alarms and fences maintenance forbids.
func (p *noFenceInMaintenance) Topics() Topics {
	return OnKinds(fence.KindPolicyChanged, fence.KindAlarmRaised, fence.KindAlarmExpired, fence.KindExpiryWaiting, fence.KindLogged,
		fence.KindAlertNotImplemented, fence.KindAlreadyFailed, fence.KindNodeFailed, fence.KindFailover, fence.KindNoCandidate)
}

// Event implements Property: it looks at the alarms when the policy turns to maintenance, and
// when one is raised.
func (p *noFenceInMaintenance) Event(ev act.Event) bool {
	look := false
	switch ev := ev.(type) {
	case *fence.PolicyChanged:
		p.maint = ev.Policy == fence.Maintenance
		look = p.maint
	case *fence.AlarmRaised:
		look = true
	}
	if !p.maint {
		return look
	}
	if d, ok := ev.(fence.Decision); ok {
		switch d.Kind() {
		case fence.KindAlarmRaised, fence.KindAlarmExpired, fence.KindExpiryWaiting, fence.KindLogged, fence.KindAlertNotImplemented,
			fence.KindAlreadyFailed, fence.KindNodeFailed, fence.KindFailover, fence.KindNoCandidate:
			p.fail(d.When(), "in maintenance: %s", narrate.Describe(p.names, ev))
		}
	}
	return look
}

// Look implements Property.
func (p *noFenceInMaintenance) Look(at time.Duration, e fence.View) bool {
	if e.Policy() != fence.Maintenance {
		return false
	}
	for i := range e.Len() {
		if e.AlarmCount(i) > 0 {
			p.buf = e.Alarms(p.buf[:0], i)
			a := p.buf[0]
			p.fail(at, "in maintenance %s has an alarm: %s at %d of %d", p.names[i], a.Condition, a.Count, a.Threshold)
			return false
		}
	}
	return false
}
