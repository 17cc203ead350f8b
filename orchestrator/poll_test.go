package orchestrator

import (
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/fault"
)

const s = time.Second

func TestTickAtOrAfter(t *testing.T) {
	for _, tc := range []struct{ t, want time.Duration }{{-s, 0}, {0, 0}, {1, s}, {s, s}, {1500 * time.Millisecond, 2 * s}} {
		if got := TickAtOrAfter(tc.t, s); got != tc.want {
			t.Errorf("TickAtOrAfter(%v) = %v, want %v", tc.t, got, tc.want)
		}
	}
}

func TestNextRead(t *testing.T) {
	c := Defaults()
	for _, tc := range []struct {
		checked time.Duration
		hung    bool
		want    time.Duration
	}{
		{0, false, 6 * s},       // more than 5 s old: at 6 s, so a healthy instance is read every 6 s
		{6 * s, false, 12 * s},  //
		{16 * s, false, 22 * s}, // after a read that failed at 16 s
		{0, true, 11 * s},       // a hanging read noted: twice the poll
	} {
		if got := NextRead(c, tc.checked, tc.hung); got != tc.want {
			t.Errorf("NextRead(%v, %t) = %v, want %v", tc.checked, tc.hung, got, tc.want)
		}
	}
	c.InstancePoll = s
	if got := NextRead(c, 4*s, false); got != 6*s {
		t.Errorf("InstancePollSeconds 1: %v, want 6s", got)
	}
}

func TestCheckValid(t *testing.T) {
	c := Defaults()
	for _, tc := range []struct {
		k    Check
		want bool
	}{
		{Check{0, 0, 0}, true},
		{Check{Checked: 6 * s, Seen: 0, Attempted: 0}, false}, // the last read failed
		{Check{Checked: 0, Seen: 0, Attempted: 6 * s}, true},  // hanging, noted within 5+1 s of the last success
		{Check{Checked: 0, Seen: 0, Attempted: 7 * s}, false}, // noted later than that
		{Check{Checked: 12 * s, Seen: 12 * s, Attempted: 7 * s}, true},
	} {
		if got := tc.k.Valid(c); got != tc.want {
			t.Errorf("%+v valid: %t, want %t", tc.k, got, tc.want)
		}
	}
}

func TestCheckStartEnd(t *testing.T) {
	c := Defaults()
	k := Check{}
	k = k.Start(6*s, 6*s+999*time.Millisecond)
	if !k.Valid(c) || k.Attempted != 0 {
		t.Errorf("under way under a second: %+v", k)
	}
	k = k.Start(6*s, 7*s)
	if k.Valid(c) || k.Attempted != 7*s {
		t.Errorf("under way a second: %+v, want noted at 7s and invalid", k)
	}
	k = k.End(6*s, Read{Took: 10 * s})
	if k.Valid(c) || k.Checked != 16*s || k.Seen != 0 {
		t.Errorf("failed at 16 s: %+v", k)
	}
	k = k.End(22*s, Read{OK: true})
	if !k.Valid(c) || k != (Check{22 * s, 22 * s, 22 * s}) {
		t.Errorf("read again fine: %+v", k)
	}
}

// TestMasterInvalidAfter pins when Orchestrator's last check of the master turns invalid after
// each fault, with exact values, under the defaults and under the settings the live
// test uses.
func TestMasterInvalidAfter(t *testing.T) {
	def := Defaults()
	slowCheck := Defaults()
	slowCheck.ReasonableInstanceCheck = 5 * s
	fast := Defaults()
	fast.InstancePoll = s
	for _, tc := range []struct {
		name string
		c    Config
		from time.Duration
		k    fault.Kind
		want time.Duration
		ok   bool
	}{
		{"refuse, read at 6 s", def, 3 * s, fault.Refuse, 6 * s, true},
		{"refuse at a read's instant", def, 6 * s, fault.Refuse, 6 * s, true},
		{"refuse just after a read", def, 6*s + 1, fault.Refuse, 12 * s, true},
		{"hostdown at once", def, 3 * s, fault.HostDown, 6 * s, true},
		{"error at once", def, 3 * s, fault.Error, 6 * s, true},
		{"freeze: noted hanging a second into the read", def, 3 * s, fault.Freeze, 7 * s, true},
		{"stall likewise", def, 3 * s, fault.Stall, 7 * s, true},
		{"blackhole likewise (its pooled connection hangs)", def, 3 * s, fault.Blackhole, 7 * s, true},
		{"freeze with 5 s of reasonable check: the read timeout", slowCheck, 3 * s, fault.Freeze, 16 * s, true},
		{"blackhole with 5 s of reasonable check: the read timeout on the pooled connection", slowCheck, 3 * s, fault.Blackhole, 16 * s, true},
		{"InstancePollSeconds 1: refuse", fast, 3 * s, fault.Refuse, 4 * s, true},
		{"InstancePollSeconds 1: freeze", fast, 3 * s, fault.Freeze, 5 * s, true},
		{"no fault", def, 3 * s, fault.Heal, 0, false},
	} {
		got, ok, err := MasterInvalidAfter(tc.c, 0, tc.from, fault.Fault{Kind: tc.k})
		if err != nil || got != tc.want || ok != tc.ok {
			t.Errorf("%s: %v %t %v, want %v %t", tc.name, got, ok, err, tc.want, tc.ok)
		}
	}
	if _, _, err := MasterInvalidAfter(def, 0, 0, fault.Fault{Kind: fault.Slow, Delay: s}); err == nil || !strings.Contains(err.Error(), "slow") {
		t.Errorf("slow: %v, want an error naming it", err)
	}
}

// TestBoundsOf pins the detection spans under the defaults: a refused master is DeadMaster
// within a read cycle (6 s), a frozen one between 31 and 61 s (the I/O threads' timeout, 30 to
// 60 s after the last heartbeat, then the emergent read's tick), a stalled one never.
func TestBoundsOf(t *testing.T) {
	c, r := Defaults(), DefaultReplica()
	for _, tc := range []struct {
		k    fault.Kind
		want Bounds
	}{
		{fault.Refuse, Bounds{0, 5999 * time.Millisecond, 0, 5999 * time.Millisecond, true}},
		{fault.Freeze, Bounds{10 * s, 15999 * time.Millisecond, 31001 * time.Millisecond, 61 * s, true}},
		{fault.Stall, Bounds{10 * s, 15999 * time.Millisecond, 0, 0, false}},
	} {
		b, ok, err := BoundsOf(c, r, fault.Fault{Kind: tc.k})
		if err != nil || !ok || b != tc.want {
			t.Errorf("%s: %+v %t %v, want %+v", tc.k, b, ok, err, tc.want)
		}
	}
	if _, ok, _ := BoundsOf(c, r, fault.Fault{}); ok {
		t.Error("heal detected")
	}
}

// TestReadUnderPool: a blackhole hangs the connection Orchestrator holds until the read
// timeout, and a dial until the dial timeout; the other faults end a read alike either way.
func TestReadUnderPool(t *testing.T) {
	c := Defaults()
	for _, tc := range []struct {
		k              fault.Kind
		pooled, dialed Read
	}{
		{fault.Blackhole, Read{Took: c.DiscoveryReadTimeout}, Read{Took: c.ConnectTimeout}},
		{fault.Freeze, Read{Took: c.DiscoveryReadTimeout}, Read{Took: c.DiscoveryReadTimeout}},
		{fault.Stall, Read{Took: c.DiscoveryReadTimeout}, Read{Took: c.DiscoveryReadTimeout}},
		{fault.Refuse, Read{}, Read{}},
		{fault.Heal, Read{OK: true}, Read{OK: true}},
	} {
		p, err1 := ReadUnder(c, fault.Fault{Kind: tc.k}, true)
		d, err2 := ReadUnder(c, fault.Fault{Kind: tc.k}, false)
		if err1 != nil || err2 != nil || p != tc.pooled || d != tc.dialed {
			t.Errorf("%s: pooled %+v, dialled %+v; want %+v, %+v", tc.k, p, d, tc.pooled, tc.dialed)
		}
	}
}
