package timing

import (
	"testing"
	"time"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/faultmodel"
	"github.com/failsim/failsim/statemap"
)

const s = time.Second

func span(lo, hi time.Duration) Span { return Span{Earliest: lo, Latest: hi, Ever: true} }

// The default statemap's timing under the default checker, to exact values.
func TestDefaultTable(t *testing.T) {
	want := map[string][3]Span{
		"heal":                     {},
		"refuse":                   {span(0, 3*s), span(0, 3*s), span(0, 3*s)},
		"freeze":                   {span(5*s, 8*s), span(5*s, 8*s), span(75*s, 88*s)},
		"blackhole":                {span(5*s, 8*s), span(5*s, 8*s), span(75*s, 88*s)},
		"stall":                    {span(5*s, 8*s), span(5*s, 8*s), {}},
		"slow 2s":                  {},
		"slow 10s":                 {span(5*s, 8*s), span(5*s, 8*s), {}},
		"delay 500ms":              {},
		"delay 2.5s":               {span(5*s, 8*s), span(5*s, 8*s), {}},
		"error 1045":               {span(0, 3*s), span(0, 3*s), {}},
		"unreachable":              {span(0, 3*s), span(0, 3*s), span(50*s, 63*s)},
		"probe query_exec_timeout": {span(5*s, 8*s), span(5*s, 8*s), {}},
		// toxiproxy's toxics: a socket error after the toxic's own time, or a timeout after the
		// budget, or nothing.
		"latency 1s jitter 500ms": {},
		"latency 2.5s upstream":   {span(5*s, 8*s), span(5*s, 8*s), {}},
		"timeout 1s":              {span(1*s, 4*s), span(1*s, 4*s), span(1*s, 4*s)},
		"timeout 1s upstream":     {span(1*s, 4*s), span(1*s, 4*s), {}},
		"timeout 0":               {span(5*s, 8*s), span(5*s, 8*s), span(75*s, 88*s)},
		"reset-peer":              {span(0, 3*s), span(0, 3*s), span(0, 3*s)},
		"reset-peer 1s upstream":  {span(1*s, 4*s), span(1*s, 4*s), span(1*s, 4*s)},
		"limit-data 64":           {span(0, 3*s), span(0, 3*s), span(0, 3*s)},
		"limit-data 110":          {span(0, 3*s), span(0, 3*s), {}},
		"limit-data 4096":         {},
	}
	rows := Table(statemap.Default(), 3*s, 5*s)
	if len(rows) != 31 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		w, ok := want[r.Fault.String()]
		if !ok {
			continue
		}
		if got := [3]Span{r.StateChange, r.Alarm, r.Fence}; got != w {
			t.Errorf("%s: %+v, want %+v", r.Fault, got, w)
		}
		delete(want, r.Fault.String())
	}
	if len(want) > 0 {
		t.Errorf("rows not in the table: %v", want)
	}
}

// The edges of the closed form: a condition mapped to online changes no state yet fences; a
// threshold of 0 fences when the alarm is raised; alert and none never fence; an interval as
// long as the tick.
func TestOfEdges(t *testing.T) {
	m, err := statemap.FromBytes("e.properties", []byte(`mysql_error.state=online
mysql_error.threshold=1
mysql_error.action=fail
login_response_timeout.state=timeout
login_response_timeout.threshold=0
login_response_timeout.action=fail
no_route_to_host.state=suspect
no_route_to_host.threshold=2
no_route_to_host.action=alert
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		f                   fault.Fault
		interval            time.Duration
		state, alarm, fence Span
	}{
		{fault.Fault{Kind: fault.Error, Code: 1205}, 3 * s, Span{}, span(0, 3*s), span(0, 13*s)},
		{fault.Fault{Kind: fault.Freeze}, 3 * s, span(5*s, 8*s), span(5*s, 8*s), span(5*s, 8*s)},
		{fault.Fault{Kind: fault.Unreachable}, 3 * s, span(0, 3*s), span(0, 3*s), Span{}},
		{fault.Fault{Kind: fault.Freeze}, 10 * s, span(5*s, 15*s), span(5*s, 15*s), span(5*s, 15*s)},
		{fault.Fault{Kind: fault.Blackhole}, 10 * s, span(5*s, 15*s), span(5*s, 15*s), span(75*s, 95*s)},
		{fault.Fault{Kind: fault.Slow, Delay: 2 * s}, 3 * s, Span{}, Span{}, Span{}},
	} {
		var row Row
		for _, r := range Table(m, c.interval, 5*s) {
			if r.Fault == c.f {
				row = r
			}
		}
		if row.Fault != c.f {
			t.Fatalf("no row for %s", c.f)
		}
		if row.StateChange != c.state || row.Alarm != c.alarm || row.Fence != c.fence {
			t.Errorf("%s every %s: %+v %+v %+v, want %+v %+v %+v", c.f, c.interval, row.StateChange, row.Alarm, row.Fence, c.state, c.alarm, c.fence)
		}
	}
}

// A probe forced to undefined is a condition like any other: under the defaults (unknown,
// threshold -1, none) it changes the state and raises the alarm at the first probe and never
// fences; under a rule that fails it, it fences. Only ok changes nothing.
func TestOfForcedUndefined(t *testing.T) {
	failing, err := statemap.FromBytes("u.properties", []byte("undefined.state=suspect\nundefined.threshold=1\nundefined.action=fail\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m                   *statemap.Map
		cond                string
		state, alarm, fence Span
	}{
		{statemap.Default(), "undefined", span(0, 3*s), span(0, 3*s), Span{}},
		{failing, "undefined", span(0, 3*s), span(0, 3*s), span(0, 13*s)},
		{statemap.Default(), "ok", Span{}, Span{}, Span{}},
	} {
		f := fault.Fault{Kind: fault.Probe, Condition: c.cond}
		r := faultmodel.Row{Fault: f, Outcome: faultmodel.Predict(f, 5*s)}
		r.Rule = c.m.Rule(r.Outcome.Condition)
		r.State = r.Rule.State
		row := Of(r, 3*s)
		if row.StateChange != c.state || row.Alarm != c.alarm || row.Fence != c.fence {
			t.Errorf("%s: %+v %+v %+v, want %+v %+v %+v", f, row.StateChange, row.Alarm, row.Fence, c.state, c.alarm, c.fence)
		}
	}
}

func TestOfPanicsOnNoInterval(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	Of(Table(statemap.Default(), 3*s, 5*s)[1].Row, 0)
}

func TestSpan(t *testing.T) {
	sp := span(5*s, 8*s)
	for d, want := range map[time.Duration]bool{4 * s: false, 5 * s: true, 8*s - 1: true, 8 * s: false} {
		if sp.Contains(d) != want {
			t.Errorf("%+v contains %s: %v", sp, d, !want)
		}
	}
	if (Span{}).Contains(0) || !(Span{}).Never() || sp.Never() {
		t.Error("the zero span is never and contains nothing")
	}
}

func TestCompare(t *testing.T) {
	for _, c := range []struct {
		a, b Span
		want Change
	}{
		{Span{}, Span{}, Same},
		{span(5*s, 8*s), span(5*s, 8*s), Same},
		{span(75*s, 88*s), span(5*s, 8*s), Sooner},
		{span(5*s, 8*s), span(75*s, 88*s), Later},
		{span(5*s, 8*s), span(5*s, 18*s), Later}, // threshold 0 to 1: only the latest moves
		{span(5*s, 18*s), span(5*s, 8*s), Sooner},
		{span(5*s, 8*s), Span{}, NoLonger},
		{Span{}, span(5*s, 8*s), Newly},
	} {
		if got := Compare(c.a, c.b); got != c.want {
			t.Errorf("Compare(%+v, %+v) = %s, want %s", c.a, c.b, got, c.want)
		}
	}
	for c, want := range map[Change]string{Same: "same", Sooner: "sooner", Later: "later", NoLonger: "no longer", Newly: "newly"} {
		if c.String() != want {
			t.Errorf("%d: %q", c, c.String())
		}
	}
}
