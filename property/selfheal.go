package property

import (
	"time"

	"github.com/failsim/failsim/fence"
)

// selfHeal judges self-heal-resets: at the end of each instant while the engine holds an
// alarm, no node whose last probe was ok may hold one.
type selfHeal struct {
	judge
	names []string
	look  bool // an alarm was raised, or the engine held one at the last look
	buf   []fence.AlarmView
}

// Event implements drive.Observer.
func (p *selfHeal) Event(ev fence.Event) {
	if _, ok := ev.(*fence.AlarmRaised); ok {
		p.look = true
	}
}

// Instant implements drive.Observer.
func (p *selfHeal) Instant(at time.Duration, e *fence.Engine) {
	if !p.look {
		return
	}
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
	p.look = held
}
