package fence

import (
	"slices"
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

func kinds(evs []Decision) string {
	var s []string
	for _, e := range evs {
		s = append(s, e.Kind().String())
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
	if fo := evs[1].(*Failover); fo.To != 1 || fo.Node != 0 || fo.At != 80*s {
		t.Fatalf("failover %+v", fo)
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
	if a := e.Alarms(nil, 1); len(a) != 2 || a[0].Count != 1 || a[1].Count != 1 || e.AlarmCount(1) != 2 {
		t.Fatalf("alarms %+v, count %d", a, e.AlarmCount(1))
	}
	e.Ready()
	e.Probe(12*s, 1, statemap.OK)
	if got := kinds(e.Ready()); got != "state alarm-healed alarm-healed" {
		t.Fatalf("heal: %s", got)
	}
	if a := e.Alarms(nil, 1); len(a) != 0 || e.AlarmCount(1) != 0 {
		t.Fatalf("alarms left %+v, count %d", a, e.AlarmCount(1))
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
		if k := ev.Kind(); k == KindAlarmExpired || k == KindFailover {
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
	if got := kinds(evs); got != "alarm-expired failed" || evs[0].(*AlarmExpired).Condition != statemap.QueryResultsTimeout {
		t.Fatalf("tick: %s %+v", got, evs)
	}
	if a := e.Alarms(nil, 1); len(a) != 1 || a[0].Threshold != 8 {
		t.Fatalf("the old alarm changed: %+v", a)
	}
}

// TicksToExpiry counts the ticks to the first alarm's expiry, exactly; Ticks accounts for the
// ticks skipped before it, and panics past it.
func TestTicksToExpiry(t *testing.T) {
	e := newTest(t, Automatic, Master, Replica, Replica)
	if n, ok := e.TicksToExpiry(); ok {
		t.Fatalf("no alarm: %d ticks", n)
	}
	e.Probe(0, 0, statemap.OK)
	e.Probe(0, 1, statemap.OK)
	e.Probe(5*s, 1, statemap.QueryResultsTimeout) // threshold -1: never expires
	if n, ok := e.TicksToExpiry(); ok {
		t.Fatalf("a -1 alarm: %d ticks", n)
	}
	e.Probe(5*s, 0, statemap.LoginResponseTimeout) // threshold 8
	if n, ok := e.TicksToExpiry(); !ok || n != 8 {
		t.Fatalf("threshold 8 raised: %d, %v; want 8", n, ok)
	}
	e.Ticks(30*s, 3)
	if n, _ := e.TicksToExpiry(); n != 5 {
		t.Fatalf("after 3 ticks: %d, want 5", n)
	}
	if a := e.Alarms(nil, 0); a[0].Count != 3 {
		t.Fatalf("count %d, want 3", a[0].Count)
	}
	e.Probe(32*s, 2, statemap.NoRouteToHost) // threshold 6: expires at tick 9, after the first
	if n, _ := e.TicksToExpiry(); n != 5 {
		t.Fatalf("a later alarm: %d, want 5", n)
	}
	e.Ready()
	e.Ticks(70*s, 4)
	if evs := e.Ready(); len(evs) != 0 {
		t.Fatalf("skipped ticks decided: %s", kinds(evs))
	}
	e.Probe(75*s, 1, statemap.OK) // heals db2's -1 alarm: db2 is eligible again
	if n, _ := e.TicksToExpiry(); n != 1 {
		t.Fatalf("after 7 ticks and a heal: %d, want 1", n)
	}
	e.Ready()
	e.Ticks(80*s, 1)
	if got := kinds(e.Ready()); got != "alarm-expired failover" {
		t.Fatalf("tick 8: %s", got)
	}
	if n, _ := e.TicksToExpiry(); n != 1 {
		t.Fatalf("after the failover: %d, want 1 (db3's alarm at tick 9)", n)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("skipping the tick at which db3's alarm expires did not panic")
			}
		}()
		e.Ticks(100*s, 2)
	}()
	e2 := newTest(t, Maintenance, Master, Replica)
	e2.Probe(0, 0, statemap.SocketIOError)
	if n, ok := e2.TicksToExpiry(); ok {
		t.Fatalf("maintenance: %d ticks", n)
	}
}

// A master failed under manual policy is shunned: ok probes do not return it, not even once
// the policy is automatic again; recover does, as master, and deletes its alarms.
func TestManualMasterStaysFailed(t *testing.T) {
	e := newTest(t, Manual, Master, Replica)
	e.Probe(0, 1, statemap.OK)
	e.Probe(0, 0, statemap.SocketConnectTimeout) // threshold 8, ageing
	e.Probe(5*s, 0, statemap.SocketIOError)      // fails the master at once
	if v := e.Node(0); !v.Failed || !v.Shunned || e.Master() != -1 {
		t.Fatalf("db1 %+v, master %d", v, e.Master())
	}
	e.SetPolicy(60*s, Automatic)
	e.Probe(120*s, 0, statemap.OK)
	if v := e.Node(0); !v.Failed {
		t.Fatal("db1 came back by itself")
	}
	e.Probe(125*s, 0, statemap.SocketConnectTimeout) // a failed node raises nothing
	e.Ready()
	e.Recover(130*s, 0)
	if got := kinds(e.Ready()); got != "recovered" {
		t.Fatalf("recover: %s", got)
	}
	if v := e.Node(0); v.Failed || e.Master() != 0 {
		t.Fatalf("after recover: db1 %+v, master %d", v, e.Master())
	}
}

// Recover deletes the node's alarms, those still ageing included, so that they cannot fail it
// again.
func TestRecoverClearsAlarms(t *testing.T) {
	e := newTest(t, Manual, Master, Replica)
	e.Probe(0, 0, statemap.OK)
	e.Probe(0, 1, statemap.SocketConnectTimeout) // threshold 8
	e.Probe(5*s, 1, statemap.SocketIOError)      // failed at once
	e.Ticks(50*s, 5)
	e.Ready()
	e.Recover(55*s, 1)
	evs := e.Ready()
	if got := kinds(evs); got != "alarm-cleared recovered" || *evs[0].(*AlarmCleared) != (AlarmCleared{At: 55 * s, Node: 1, Condition: statemap.SocketConnectTimeout, Count: 5, Threshold: 8, By: ClearedByRecover}) {
		t.Fatalf("recover: %s %+v", got, evs)
	}
	if n, ok := e.TicksToExpiry(); ok {
		t.Fatalf("an alarm left: %d ticks", n)
	}
	e.Ticks(80*s, 3)
	if e.Node(1).Failed {
		t.Fatal("the old alarm failed db2 again")
	}
}

// A replica whose manager is down is not eligible; the event says why no replica was.
func TestCandidateNeedsManager(t *testing.T) {
	e := newTest(t, Automatic, Master, Replica, Replica, Replica)
	for i := range 4 {
		e.Probe(0, i, statemap.OK)
	}
	e.SetManager(1*s, 1, false)
	e.Probe(2*s, 2, statemap.TooManyConnections)
	e.Ready()
	e.Probe(3*s, 0, statemap.SocketIOError)
	evs := e.Ready()
	if ev, ok := evs[len(evs)-1].(*Failover); !ok || ev.To != 3 {
		t.Fatalf("failover %+v", evs[len(evs)-1])
	}
	e.SetManager(4*s, 3, false)
	e.Probe(5*s, 3, statemap.SocketIOError) // db4's manager is down: ignored
	e.SetManager(6*s, 3, true)
	e.Probe(6*s, 3, statemap.SocketIOError)
	evs = e.Ready()
	ev, ok := evs[len(evs)-1].(*NoCandidate)
	want := []Ineligible{{Node: 0, Why: IsFailed}, {Node: 1, Why: ManagerIsDown}, {Node: 2, Why: LastProbeNotOK}}
	if !ok || ev.Node != 3 || !slices.Equal(ev.Ineligible, want) {
		t.Fatalf("no candidate: %+v, want ineligible %+v", evs[len(evs)-1], want)
	}
}
