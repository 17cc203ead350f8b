package fence

import (
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/statemap"
)

func newTest(t *testing.T, policy Policy, roles ...Role) *Engine {
	t.Helper()
	var nodes []NodeConfig
	for i, r := range roles {
		nodes = append(nodes, NodeConfig{Name: "db" + string(rune('1'+i)), Role: r})
	}
	return New(Config{Nodes: nodes, Map: statemap.Default(), Policy: policy})
}

func kinds(evs []Event) string {
	var s []string
	for _, e := range evs {
		s = append(s, e.Kind.String())
	}
	return strings.Join(s, " ")
}

const s = time.Second

// Alarms age one count per tick and expire at the tick that reaches the threshold.
func TestAlarmAgesToThreshold(t *testing.T) {
	e := newTest(t, Automatic, Master, Replica)
	e.Probe(0, 0, statemap.OK)
	e.Probe(0, 1, statemap.OK)
	e.Ready()
	e.Probe(5*s, 0, statemap.LoginResponseTimeout)
	if got := kinds(e.Ready()); got != "state alarm-raised" {
		t.Fatalf("raise: %s", got)
	}
	for k := 1; k < 8; k++ {
		e.Tick(time.Duration(k) * 10 * s)
		if evs := e.Ready(); len(evs) != 0 {
			t.Fatalf("tick %d: %s", k, kinds(evs))
		}
		if a := e.Alarms(nil, 0); len(a) != 1 || a[0].Count != k {
			t.Fatalf("tick %d: alarms %+v", k, a)
		}
	}
	e.Tick(80 * s)
	evs := e.Ready()
	if got := kinds(evs); got != "alarm-expired failover" {
		t.Fatalf("tick 8: %s", got)
	}
	if evs[1].Other != "db2" || evs[1].At != 80*s {
		t.Fatalf("failover %+v", evs[1])
	}
	if e.Master() != 1 || !e.Node(0).Failed || !e.Node(0).Shunned {
		t.Fatalf("after failover: master %d, db1 %+v", e.Master(), e.Node(0))
	}
}

// A repeated bad condition does not raise a second alarm; an ok probe deletes every alarm.
func TestSelfHealDeletesAll(t *testing.T) {
	e := newTest(t, Automatic, Master, Replica)
	e.Probe(0, 1, statemap.SocketConnectTimeout)
	e.Probe(5*s, 1, statemap.SocketConnectTimeout)
	e.Probe(10*s, 1, statemap.LoginResponseTimeout)
	e.Tick(10 * s)
	if a := e.Alarms(nil, 1); len(a) != 2 || a[0].Count != 1 || a[1].Count != 1 {
		t.Fatalf("alarms %+v", a)
	}
	e.Ready()
	e.Probe(12*s, 1, statemap.OK)
	if got := kinds(e.Ready()); got != "state alarm-healed alarm-healed" {
		t.Fatalf("heal: %s", got)
	}
	if a := e.Alarms(nil, 1); len(a) != 0 {
		t.Fatalf("alarms left %+v", a)
	}
}

// Threshold -1 never expires, whatever the count.
func TestNeverExpires(t *testing.T) {
	e := newTest(t, Automatic, Master, Replica)
	e.Probe(0, 0, statemap.QueryResultsTimeout)
	for k := 1; k <= 1000; k++ {
		e.Tick(time.Duration(k) * 10 * s)
	}
	for _, ev := range e.Ready() {
		if ev.Kind == AlarmExpired || ev.Kind == Failover {
			t.Fatalf("expired: %+v", ev)
		}
	}
}

// Maintenance: states follow probes, nothing is raised or ticked.
func TestMaintenanceGates(t *testing.T) {
	e := newTest(t, Maintenance, Master, Replica)
	e.Probe(0, 0, statemap.SocketIOError)
	e.Tick(10 * s)
	if got := kinds(e.Ready()); got != "state" {
		t.Fatalf("maintenance: %s", got)
	}
	if e.Node(0).State != statemap.Stopped || e.Node(0).Failed {
		t.Fatalf("db1 %+v", e.Node(0))
	}
}

// The coordinator is the first node whose manager is up; an expiry with none waits for one.
func TestExpiryWaitsForCoordinator(t *testing.T) {
	e := newTest(t, Automatic, Master, Replica)
	e.Probe(0, 1, statemap.OK)
	e.SetManager(1*s, 0, false)
	e.SetManager(1*s, 1, false)
	if e.Coordinator() != -1 {
		t.Fatalf("coordinator %d", e.Coordinator())
	}
	// db1's probe before its manager went down had raised nothing; inject one directly while
	// a manager is briefly up, then take it down again.
	e.SetManager(2*s, 0, true)
	e.Probe(2*s, 0, statemap.SocketIOError)
	if e.Node(0).Failed != true {
		t.Fatal("socket_io_error with a coordinator did not fail db1")
	}
	e.Ready()
	e2 := newTest(t, Automatic, Master, Replica)
	e2.Probe(0, 1, statemap.OK)
	e2.Probe(0, 0, statemap.LoginResponseTimeout)
	e2.SetManager(1*s, 0, false)
	e2.SetManager(1*s, 1, false)
	e2.Ready()
	for k := 1; k <= 9; k++ {
		e2.Tick(time.Duration(k) * 10 * s)
	}
	if got := kinds(e2.Ready()); got != "expiry-waiting" {
		t.Fatalf("no coordinator: %s", got)
	}
	e2.SetManager(95*s, 1, true)
	if got := kinds(e2.Ready()); got != "manager-up coordinator alarm-expired failover" {
		t.Fatalf("coordinator back: %s", got)
	}
}

// Time going backwards is a driver bug: it panics.
func TestTimeBackwardsPanics(t *testing.T) {
	e := newTest(t, Automatic, Master, Replica)
	e.Tick(20 * s)
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	e.Tick(10 * s)
}

// SetMap: probes after it follow the new map; alarms raised before keep their threshold.
func TestSetMap(t *testing.T) {
	e := newTest(t, Automatic, Master, Replica)
	e.Probe(0, 1, statemap.SocketConnectTimeout) // threshold 8 under the defaults
	aggressive, err := statemap.FromBytes("a", []byte("socket_connect_timeout.state=timeout\nsocket_connect_timeout.threshold=1\nsocket_connect_timeout.action=fail\nquery_results_timeout.state=suspect\nquery_results_timeout.threshold=1\nquery_results_timeout.action=fail\n"))
	if err != nil {
		t.Fatal(err)
	}
	e.SetMap(aggressive)
	e.Probe(5*s, 1, statemap.QueryResultsTimeout)
	if v := e.Node(1); v.State != statemap.Suspect {
		t.Fatalf("state %s, want the new map's suspect", v.State)
	}
	e.Ready()
	e.Tick(10 * s)
	evs := e.Ready()
	if got := kinds(evs); got != "alarm-expired failed" || evs[0].Condition != statemap.QueryResultsTimeout {
		t.Fatalf("tick: %s %+v", got, evs)
	}
	if a := e.Alarms(nil, 1); len(a) != 1 || a[0].Threshold != 8 {
		t.Fatalf("the old alarm changed: %+v", a)
	}
}
