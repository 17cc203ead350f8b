package monitor

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/sim"
)

func TestMetrics(t *testing.T) {
	tl, err := sim.Parse("m.timeline", []byte(`cluster db1:master db2:replica db3:replica
00:00:20 db3 blackhole
00:00:40 db1 refuse
00:00:45 cluster end
`))
	if err != nil {
		t.Fatal(err)
	}
	probers := []*predicted{{timeout: 5 * time.Second}, {timeout: 5 * time.Second}, {timeout: 5 * time.Second}}
	nodes := []Node{{Name: "db1", Role: tl.Nodes[0].Role, Prober: probers[0]}, {Name: "db2", Prober: probers[1]}, {Name: "db3", Prober: probers[2]}}
	m := NewMetrics([]string{"db1", "db2", "db3"})
	mock := clock.NewMock()
	r, err := New(Config{Nodes: nodes, Clock: mock, Observers: []sim.Observer{m}, End: tl.End,
		OnProbe: func(_ time.Duration, i int, res Result) { m.Probed(i, res.Condition) },
		Actions: Script(tl, func(i int, f fault.Fault) { probers[i].set(f) })})
	if err != nil {
		t.Fatal(err)
	}
	drive(t, r, mock)
	var b bytes.Buffer
	m.WriteTo(&b)
	got := b.String()
	for _, want := range []string{
		`failsim_datasource_state{node="db1",state="stopped"} 1`,
		`failsim_datasource_state{node="db1",state="online"} 0`,
		`failsim_datasource_state{node="db3",state="timeout"} 1`,
		`failsim_node_failed{node="db1"} 1`,
		`failsim_node_master{node="db2"} 1`,
		`failsim_node_master{node="db1"} 0`,
		`failsim_probes_total{node="db1",condition="ok"} 14`,
		`failsim_probes_total{node="db1",condition="socket_io_error"} 2`,
		`failsim_alarms_active{node="db3"} 1`,
		`failsim_alarm_ticks{node="db3",condition="socket_connect_timeout",threshold="8"} 2`,
		`failsim_alarms_active{node="db1"} 0`,
		`failsim_failovers_total{from="db1",to="db2"} 1`,
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("missing %s in:\n%s", want, got)
		}
	}
}
