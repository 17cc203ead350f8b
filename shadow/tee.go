package shadow

import (
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/drive"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
)

// Candidate is one shadow: a name and its decision core, fresh (no call made into it), with
// the same nodes, roles, policy and group as the live one and the candidate statemap.
type Candidate struct {
	// Name names the shadow in every divergence and metric.
	Name string
	// Machine is its core (core.Core under the candidate map).
	Machine drive.Machine
}

// Sink is told what the shadows decide, from the caller of the Tee's methods (the scheduler's
// loop), as soon as it is known. It must not call into the Tee.
type Sink interface {
	// Decided tells one decision of shadow s (its index among the candidates) as it is made.
	Decided(s int, d Decision)
	// Diverged tells one divergence, once the time it was decided at is over (the next input
	// at a later time, or Finish).
	Diverged(d Divergence)
}

// Tee is a drive.Machine: the live machine, and beside it the shadows, each given every input
// the live one gets, in the same order. The scheduler sees only the live machine's decisions
// (Ready, View, Running are the live machine's); it plans with all of them, so that an input it
// leaves out (a tick no alarm can decide at, a probe that would change nothing) is one that no
// shadow needed either: TicksToExpiry is the soonest of all, Quiet and Steady hold when they
// hold for all. Its zero value is not usable: call NewTee. It is not safe for concurrent use.
type Tee struct {
	live     drive.Machine
	shadows  []member
	sink     Sink
	liveBuf  []Decision // the live engine's decisions not yet compared
	expiry   []expired  // per node: the live engine's last alarm expiry, to tell the cause
	seen     int        // how many events of the live batch were taken
	last     time.Duration
	finished bool
}

// member is one shadow beside the live machine.
type member struct {
	name   string
	m      drive.Machine
	buf    []Decision // its decisions not yet compared
	expiry []expired
}

// expired is an alarm's expiry, kept to say a decision's cause.
type expired struct {
	at               time.Duration
	ticks, threshold int
	set              bool
}

// NewTee returns the live machine with the shadows beside it, telling sink (nil: no one) their
// decisions and divergences. Every candidate must have as many nodes as live.
func NewTee(live drive.Machine, shadows []Candidate, sink Sink) *Tee {
	t := &Tee{live: live, sink: sink, expiry: make([]expired, live.Len())}
	for _, c := range shadows {
		if c.Machine.Len() != live.Len() {
			panic("shadow: a candidate's nodes are not the live machine's")
		}
		t.shadows = append(t.shadows, member{name: c.Name, m: c.Machine, expiry: make([]expired, live.Len())})
	}
	return t
}

// Len is the number of nodes.
func (t *Tee) Len() int { return t.live.Len() }

// Apply applies a to the live machine and to each shadow.
func (t *Tee) Apply(at time.Duration, a *act.Action) {
	t.reach(at)
	t.live.Apply(at, a)
	for i := range t.shadows {
		t.shadows[i].m.Apply(at, a)
	}
}

// Running is the live machine's.
func (t *Tee) Running(i int) bool { return t.live.Running(i) }

// Probe gives the outcome to the live machine and to each shadow: one probe, every engine.
func (t *Tee) Probe(at time.Duration, i int, c statemap.Condition) {
	t.reach(at)
	t.live.Probe(at, i, c)
	for j := range t.shadows {
		t.shadows[j].m.Probe(at, i, c)
	}
}

// CatchUp accounts for the ticks in every machine.
func (t *Tee) CatchUp(at time.Duration, n int64) {
	t.reach(at)
	t.live.CatchUp(at, n)
	for i := range t.shadows {
		t.shadows[i].m.CatchUp(at, n)
	}
}

// Tick makes the tick in every machine.
func (t *Tee) Tick(at time.Duration, n int64) {
	t.reach(at)
	t.live.Tick(at, n)
	for i := range t.shadows {
		t.shadows[i].m.Tick(at, n)
	}
}

// TicksToExpiry is the soonest of every machine's.
func (t *Tee) TicksToExpiry() (int64, bool) {
	n, ok := t.live.TicksToExpiry()
	for i := range t.shadows {
		if m, sok := t.shadows[i].m.TicksToExpiry(); sok && (!ok || m < n) {
			n, ok = m, true
		}
	}
	return n, ok
}

// Quiet holds when it holds for every machine.
func (t *Tee) Quiet() bool {
	if !t.live.Quiet() {
		return false
	}
	for i := range t.shadows {
		if !t.shadows[i].m.Quiet() {
			return false
		}
	}
	return true
}

// Steady holds when it holds for every machine, until the soonest of their bounds.
func (t *Tee) Steady(i int, c statemap.Condition) (bool, time.Duration) {
	steady, until := t.live.Steady(i, c)
	for j := range t.shadows {
		if !steady {
			return false, 0
		}
		s, u := t.shadows[j].m.Steady(i, c)
		steady, until = s, min(until, u)
	}
	return steady, until
}

// Ready returns the live machine's batch. It takes the decisions of the live batch and drains
// each shadow's batch (a shadow's events are its own, read here and advanced at once).
func (t *Tee) Ready() []act.Event {
	evs := t.live.Ready()
	for _, ev := range evs[t.seen:] {
		if d, ok := take(t.expiry, ev); ok {
			t.liveBuf = append(t.liveBuf, d)
		}
	}
	t.seen = len(evs)
	for i := range t.shadows {
		s := &t.shadows[i]
		b := s.m.Ready()
		if len(b) == 0 {
			continue
		}
		for _, ev := range b {
			if d, ok := take(s.expiry, ev); ok {
				s.buf = append(s.buf, d)
				if t.sink != nil {
					t.sink.Decided(i, d)
				}
			}
		}
		s.m.Advance()
	}
	return evs
}

// take returns the decision ev is, if one compared, with its cause from the node's last alarm
// expiry at the same time; it keeps an expiry in exp.
func take(exp []expired, ev act.Event) (Decision, bool) {
	if x, ok := ev.(*fence.AlarmExpired); ok {
		exp[x.Node] = expired{at: x.At, ticks: x.Count, threshold: x.Threshold, set: true}
		return Decision{}, false
	}
	d, ok := Of(ev)
	if !ok {
		return d, false
	}
	if x := exp[d.Node]; x.set && x.at == d.At && !d.Host {
		d.Ticks, d.Threshold = x.ticks, x.threshold
	}
	return d, true
}

// Advance advances the live machine.
func (t *Tee) Advance() {
	t.live.Advance()
	t.seen = 0
}

// View is the live machine's.
func (t *Tee) View() fence.View { return t.live.View() }

// reach notes an input at time at: the decisions of earlier times are all in, and are
// compared.
func (t *Tee) reach(at time.Duration) {
	if at > t.last {
		t.compare()
		t.last = at
	}
}

// Finish compares what was decided and not yet compared: call it once the run has ended (the
// last instant's divergences are told then). Further inputs are not allowed.
func (t *Tee) Finish() {
	if !t.finished {
		t.compare()
		t.finished = true
	}
}

// compare tells the sink the divergences of the decisions not yet compared.
func (t *Tee) compare() {
	if len(t.liveBuf) == 0 {
		empty := true
		for i := range t.shadows {
			empty = empty && len(t.shadows[i].buf) == 0
		}
		if empty {
			return
		}
	}
	for i := range t.shadows {
		s := &t.shadows[i]
		if t.sink != nil {
			for _, d := range Compare(s.name, t.liveBuf, s.buf) {
				t.sink.Diverged(d)
			}
		}
		s.buf = s.buf[:0]
	}
	t.liveBuf = t.liveBuf[:0]
}
