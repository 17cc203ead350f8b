package group

import (
	"testing"
	"time"

	"github.com/failsim/failsim/statemap"
)

const s = time.Second

func TestSeenAt(t *testing.T) {
	for _, c := range []struct{ at, want time.Duration }{
		{-5 * s, 10 * s}, {0, 10 * s}, {1, 10 * s}, {5 * s, 10 * s}, {10 * s, 10 * s},
		{10*s + 1, 20 * s}, {29*s + 999*time.Millisecond, 30 * s}, {30 * s, 30 * s},
		{statemap.Never, statemap.Never},
	} {
		if got := SeenAt(c.at); got != c.want {
			t.Errorf("SeenAt(%v) = %v, want %v", c.at, got, c.want)
		}
	}
}

// TestLeavesAt: with the default threshold a silent member leaves at the third tick that sees
// it silent, 20-30 s after it fell silent.
func TestLeavesAt(t *testing.T) {
	for _, c := range []struct {
		at   time.Duration
		gap  int
		want time.Duration
	}{
		{5 * s, 3, 30 * s},    // 10:00:05 partition: ticks 10, 20, 30
		{10 * s, 3, 30 * s},   // at a tick: that tick counts 1; 20 s after
		{10*s + 1, 3, 40 * s}, // just after a tick: almost 30 s after
		{0, 3, 30 * s},        // at the start
		{5 * s, 1, 10 * s},    // leave at the first silent tick
		{5 * s, 2, 20 * s},    // the second
		{95 * s, 6, 150 * s},  // ticks 100..150
		{statemap.Never - s, 3, statemap.Never},
	} {
		if got := LeavesAt(c.at, c.gap); got != c.want {
			t.Errorf("LeavesAt(%v, %d) = %v, want %v", c.at, c.gap, got, c.want)
		}
		if d := LeavesAt(c.at, 3) - c.at; c.at > 0 && c.at < time.Hour && (d < 20*s || d >= 30*s) {
			t.Errorf("LeavesAt(%v, 3) is %v after it", c.at, d)
		}
	}
	mustPanic(t, "gap 0", func() { LeavesAt(5*s, 0) })
}

func TestShunsAt(t *testing.T) {
	for _, c := range []struct {
		first    time.Duration
		failsafe int
		want     time.Duration
	}{
		{10 * s, 3, 30 * s}, {10 * s, 1, 10 * s}, {30 * s, 3, 50 * s}, {statemap.Never, 3, statemap.Never},
	} {
		if got := ShunsAt(c.first, c.failsafe); got != c.want {
			t.Errorf("ShunsAt(%v, %d) = %v, want %v", c.first, c.failsafe, got, c.want)
		}
	}
}

// TestSplitAt: a partition isolating the master at 10:00:05 (5 s). With the defaults the
// majority's failover and the minority's shun fall on one tick (30 s): a zero-length window.
// A gap threshold below the failsafe threshold opens a window; one above makes the majority
// shun itself too.
func TestSplitAt(t *testing.T) {
	never := statemap.Never
	for _, c := range []struct {
		gap, failsafe int
		want          Split
	}{
		{3, 3, Split{Seen: 10 * s, Leave: 30 * s, MinorityShun: 30 * s, MajorityShunAt: never}},
		{2, 3, Split{Seen: 10 * s, Leave: 20 * s, MinorityShun: 30 * s, MajorityShunAt: never, Window: 10 * s}},
		{1, 3, Split{Seen: 10 * s, Leave: 10 * s, MinorityShun: 30 * s, MajorityShunAt: never, Window: 20 * s}},
		{3, 5, Split{Seen: 10 * s, Leave: 30 * s, MinorityShun: 50 * s, MajorityShunAt: never, Window: 20 * s}},
		{3, 2, Split{Seen: 10 * s, Leave: 30 * s, MinorityShun: 20 * s, MajorityShuns: true, MajorityShunAt: 20 * s}},
		{4, 3, Split{Seen: 10 * s, Leave: 40 * s, MinorityShun: 30 * s, MajorityShuns: true, MajorityShunAt: 30 * s}},
	} {
		if got := SplitAt(5*s, c.gap, c.failsafe); got != c.want {
			t.Errorf("SplitAt(5s, %d, %d) = %+v, want %+v", c.gap, c.failsafe, got, c.want)
		}
	}
}

// TestSplitAtMatchesGroup: the arithmetic and the state machine agree, threshold by threshold,
// on a partition isolating db1 of three.
func TestSplitAtMatchesGroup(t *testing.T) {
	for gap := 1; gap <= 5; gap++ {
		for failsafe := 1; failsafe <= 5; failsafe++ {
			sp := SplitAt(5*s, gap, failsafe)
			g := New(Config{Members: make([]Member, 3), GapThreshold: gap, FailsafeThreshold: failsafe})
			g.Step(5*s, SetNet{Net: Net{{Segment: 1}, {}, {}}})
			g.Ready()
			var leave, ping, minority, majority time.Duration = -1, -1, -1, -1
			for at := 10 * s; at <= 100*s; at += 10 * s {
				g.Step(at, Tick{})
				for _, d := range g.Ready() {
					switch d := d.(type) {
					case Left:
						leave = first(leave, at)
					case HostPing:
						ping = first(ping, at)
					case FailsafeShun:
						if d.Manager == 0 {
							minority = first(minority, at)
						} else {
							majority = first(majority, at)
						}
					}
				}
			}
			wantMajority := time.Duration(-1)
			if sp.MajorityShuns {
				wantMajority = sp.MajorityShunAt
			}
			if leave != sp.Leave || ping != sp.Leave || minority != sp.MinorityShun || majority != wantMajority {
				t.Errorf("gap %d failsafe %d: left %v ping %v minority shun %v majority shun %v; SplitAt %+v",
					gap, failsafe, leave, ping, minority, majority, sp)
			}
		}
	}
}

func first(was, at time.Duration) time.Duration {
	if was < 0 {
		return at
	}
	return was
}
