package property

import (
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
)

// selfHeal judges self-heal-resets: at the end of each instant while the engine holds an
// alarm, no node whose last probe was ok may hold one.
type selfHeal struct {
	judge
	names []string
	buf   []fence.AlarmView
}

// renew implements renewer, as New makes one.
func (p *selfHeal) renew(Trace) { p.judge.renew() }

// Topics implements Subscriber: the alarms raised.
func (p *selfHeal) Topics() Topics {
	return OnKinds(fence.KindAlarmRaised)
}

// Event implements Property: it looks at the alarms once one is raised.
func (p *selfHeal) Event(ev act.Event) bool {
	_, raised := ev.(*fence.AlarmRaised)
	return raised
}

// Look implements Property: it looks again while the engine holds an alarm.
func (p *selfHeal) Look(at time.Duration, e fence.View) bool {
	held := false
	for i := range e.Len() {
		if e.AlarmCount(i) == 0 {
			continue
		}
		held = true
		if e.LastOK(i) {
			p.buf = e.Alarms(p.buf[:0], i)
			a := p.buf[0]
			p.fail(at, "%s's last probe was ok, but its %s alarm is still at %d of %d", p.names[i], a.Condition, a.Count, a.Threshold)
		}
	}
	return held
}
