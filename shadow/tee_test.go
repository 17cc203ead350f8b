package shadow

import (
	"slices"
	"testing"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/statemap"
)

// fake is a drive.Machine that decides what it is told to and answers the planning calls as
// set; it records the inputs it got.
type fake struct {
	n       int
	inputs  []string
	batch   []act.Event
	decide  map[time.Duration][]act.Event // decided at a tick at that time
	expiry  int64
	expires bool
	quiet   bool
	steady  bool
	until   time.Duration
}

func (f *fake) Len() int { return f.n }
func (f *fake) Apply(t time.Duration, a *act.Action) {
	f.inputs = append(f.inputs, "apply "+a.Kind.String())
}
func (f *fake) Running(int) bool { return true }
func (f *fake) Probe(t time.Duration, i int, c statemap.Condition) {
	f.inputs = append(f.inputs, "probe "+t.String()+" "+c.String())
}
func (f *fake) CatchUp(t time.Duration, n int64) { f.inputs = append(f.inputs, "catch-up "+t.String()) }
func (f *fake) Tick(t time.Duration, n int64) {
	f.inputs = append(f.inputs, "tick "+t.String())
	f.batch = append(f.batch, f.decide[t]...)
}
func (f *fake) TicksToExpiry() (int64, bool) { return f.expiry, f.expires }
func (f *fake) Quiet() bool                  { return f.quiet }
func (f *fake) Steady(int, statemap.Condition) (bool, time.Duration) {
	return f.steady, f.until
}
func (f *fake) Ready() []act.Event { return f.batch }
func (f *fake) Advance()           { f.batch = nil }
func (f *fake) View() fence.View   { return fence.View{} }

// sink records what a Tee tells.
type sink struct {
	decided  []int
	diverged []Divergence
}

func (s *sink) Decided(i int, _ Decision) { s.decided = append(s.decided, i) }
func (s *sink) Diverged(d Divergence)     { s.diverged = append(s.diverged, d) }

// TestTeePlansWithAll: the scheduler's planning calls answer for every machine: the soonest
// expiry, quiet and steady only when all are, until the soonest bound.
func TestTeePlansWithAll(t *testing.T) {
	live := &fake{n: 2, expiry: 5, expires: true, quiet: true, steady: true, until: time.Minute}
	a := &fake{n: 2, expiry: 3, expires: true, quiet: true, steady: true, until: 30 * time.Second}
	b := &fake{n: 2, quiet: true, steady: true, until: time.Hour}
	tee := NewTee(live, []Candidate{{"a", a}, {"b", b}}, nil)
	if n, ok := tee.TicksToExpiry(); n != 3 || !ok {
		t.Errorf("TicksToExpiry = %d, %v; want the soonest, 3", n, ok)
	}
	if s, u := tee.Steady(0, statemap.OK); !s || u != 30*time.Second {
		t.Errorf("Steady = %v until %v; want steady until the soonest bound, 30s", s, u)
	}
	if !tee.Quiet() {
		t.Errorf("Quiet = false with every machine quiet")
	}
	b.steady, b.quiet = false, false
	if s, _ := tee.Steady(0, statemap.OK); s {
		t.Errorf("Steady with a shadow not steady")
	}
	if tee.Quiet() {
		t.Errorf("Quiet with a shadow not quiet")
	}
	live.expires, a.expires = false, false
	if _, ok := tee.TicksToExpiry(); ok {
		t.Errorf("TicksToExpiry ok with no machine's alarm to expire")
	}
	b.expires, b.expiry = true, 9
	if n, ok := tee.TicksToExpiry(); n != 9 || !ok {
		t.Errorf("TicksToExpiry = %d, %v; want the one shadow's, 9", n, ok)
	}
}

// TestTeeFeedsAllAndTellsOnce: every input goes to every machine in order; the scheduler sees
// only the live batch; a divergence is told once its time is over (the next input at a later
// time), or at Finish, and only once however often Ready is asked before Advance.
func TestTeeFeedsAllAndTellsOnce(t *testing.T) {
	s := time.Second
	liveFail := &fence.NodeFailed{At: 10 * s, Node: 1, Condition: statemap.SocketIOError}
	shadowFail := &fence.NodeFailed{At: 10 * s, Node: 1, Condition: statemap.SocketIOError}
	shadowOver := &fence.Failover{At: 20 * s, Node: 0, To: 1, Condition: statemap.QueryResultsTimeout}
	live := &fake{n: 2, decide: map[time.Duration][]act.Event{10 * s: {liveFail}}}
	a := &fake{n: 2, decide: map[time.Duration][]act.Event{
		10 * s: {shadowFail},
		20 * s: {&fence.AlarmExpired{At: 20 * s, Node: 0, Count: 8, Threshold: 8}, shadowOver},
	}}
	out := &sink{}
	tee := NewTee(live, []Candidate{{"a", a}}, out)

	tee.Probe(0, 0, statemap.OK)
	tee.Tick(10*s, 1)
	if got := tee.Ready(); len(got) != 1 || got[0] != liveFail {
		t.Fatalf("Ready = %v, want the live batch alone", got)
	}
	tee.Ready() // asked again before Advance: nothing taken twice
	tee.Advance()
	tee.Tick(20*s, 1)
	if got := tee.Ready(); len(got) != 0 {
		t.Errorf("Ready = %v, want nothing: the shadow's failover is not the live engine's", got)
	}
	if len(out.diverged) != 0 {
		t.Errorf("told %v before the failover's time was over", out.diverged)
	}
	tee.Probe(20*s, 1, statemap.OK) // the same time: still open
	if len(out.diverged) != 0 {
		t.Errorf("told %v at an input of the same time", out.diverged)
	}
	tee.Probe(23*s, 1, statemap.OK)
	want := []Divergence{{Shadow: "a", Side: ShadowOnly, Decision: Decision{At: 20 * s, Kind: fence.KindFailover, Node: 0, To: 1,
		Condition: statemap.QueryResultsTimeout, Ticks: 8, Threshold: 8}}}
	if !slices.Equal(out.diverged, want) {
		t.Errorf("told\n  %v\nwant\n  %v", out.diverged, want)
	}
	tee.Finish()
	tee.Finish()
	if len(out.diverged) != 1 {
		t.Errorf("Finish told more: %v", out.diverged)
	}
	if !slices.Equal(out.decided, []int{0, 0}) {
		t.Errorf("decided %v, want the shadow's two decisions", out.decided)
	}
	wantInputs := []string{"probe 0s ok", "tick 10s", "tick 20s", "probe 20s ok", "probe 23s ok"}
	if !slices.Equal(live.inputs, wantInputs) || !slices.Equal(a.inputs, wantInputs) {
		t.Errorf("inputs: live %v, shadow %v; want both %v", live.inputs, a.inputs, wantInputs)
	}
}

// TestTeeFinishTellsTheLastInstant: a divergence at the run's last instant is told at Finish.
func TestTeeFinishTellsTheLastInstant(t *testing.T) {
	live := &fake{n: 1, decide: map[time.Duration][]act.Event{10 * time.Second: {&fence.NoCandidate{At: 10 * time.Second, Node: 0, Condition: statemap.SocketIOError}}}}
	out := &sink{}
	tee := NewTee(live, []Candidate{{"a", &fake{n: 1}}}, out)
	tee.Tick(10*time.Second, 1)
	tee.Ready()
	tee.Advance()
	if len(out.diverged) != 0 {
		t.Fatalf("told %v before the end", out.diverged)
	}
	tee.Finish()
	if len(out.diverged) != 1 || out.diverged[0].Side != LiveOnly || out.diverged[0].Kind != fence.KindNoCandidate {
		t.Errorf("Finish told %v, want the live engine's no-candidate", out.diverged)
	}
}
