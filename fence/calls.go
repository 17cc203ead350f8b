package fence

import (
	"fmt"
	"time"

	"github.com/failsim/failsim/statemap"
)

// The calls below are thin wrappers around Step, one per input, kept because a driver reads
// better with them; each is exactly the Step it names (Probe and Ticks, a replay's commonest,
// go to the step function Step would, without the Input).

// Probe is Step(at, ProbeDone{Node: i, Condition: c}): node i's probe finished at time at in
// condition c.
func (e *Engine) Probe(at time.Duration, i int, c statemap.Condition) {
	e.advance(at)
	e.stepProbe(i, c)
}

// Tick is Step(at, Tick{Count: 1}): one timekeeper tick at time at. Tick(at) is Ticks(at, 1).
func (e *Engine) Tick(at time.Duration) { e.Step(at, Tick{Count: 1}) }

// Ticks is Step(at, Tick{Count: n}): n timekeeper ticks (n >= 1), the last of them at time at;
// see Tick for the ticks a driver may skip. n < 1 panics.
func (e *Engine) Ticks(at time.Duration, n int64) {
	if n < 1 {
		panic(fmt.Sprintf("fence: %d ticks", n))
	}
	e.advance(at)
	e.stepTick(n)
}

// SetPolicy is Step(at, SetPolicy{Policy: p}): the cluster's policy becomes p at time at.
func (e *Engine) SetPolicy(at time.Duration, p Policy) { e.Step(at, SetPolicy{Policy: p}) }

// SetManager is Step(at, SetManager{Node: i, Up: up}): node i's manager went down or came up
// at time at.
func (e *Engine) SetManager(at time.Duration, i int, up bool) {
	e.Step(at, SetManager{Node: i, Up: up})
}

// Recover is Step(at, Recover{Node: i}): the operator returns failed node i to service at
// time at.
func (e *Engine) Recover(at time.Duration, i int) { e.Step(at, Recover{Node: i}) }

// SetMap puts statemap m in force (a reload of an edited file): probes from now on follow it;
// alarms already raised keep the threshold and action they were raised with. It is
// configuration, not an event: it takes no time and decides nothing.
func (e *Engine) SetMap(m *statemap.Map) { e.rules = m }
