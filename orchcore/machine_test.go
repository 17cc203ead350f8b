package orchcore

import (
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/orchestrator"
	"github.com/failsim/failsim/repl"
)

const s = time.Second

var names = []string{"db1", "db2", "db3"}

// run drives a machine as the simulator's adapter does, from a settled start: each input at
// its time (after the ticks before it), then the machine's own ticks up to end; it returns
// every event said in words, prefixed by its time in seconds.
type input struct {
	at   time.Duration
	node int
	f    *fault.Fault
	in   repl.Input
}

func run(t *testing.T, c orchestrator.Config, end time.Duration, ins ...input) (string, *Machine) {
	t.Helper()
	m := New(Config{Orchestrator: c, Replica: orchestrator.DefaultReplica(), Nodes: 3, Master: 0, End: end, MariaDBGTID: true, Cluster: orchestrator.Cluster{Name: "db1"}})
	var b strings.Builder
	flush := func() {
		for _, ev := range m.Ready() {
			d, ok := Describe(names, ev)
			if !ok {
				t.Fatalf("%T not described", ev)
			}
			b.WriteString(ev.When().String() + " " + d + "\n")
		}
		m.Advance()
	}
	k := 0
	for {
		next, ok := m.Next()
		if k < len(ins) && (!ok || ins[k].at <= next) {
			for k < len(ins) && (!ok || ins[k].at <= next) {
				in := ins[k]
				if in.f != nil {
					m.Fault(in.at, in.node, *in.f)
				} else {
					m.Replicate(in.at, in.in)
				}
				next, ok = in.at, true
				k++
				if k < len(ins) && ins[k].at != in.at {
					break
				}
			}
		}
		if !ok || next > end {
			break
		}
		m.Step(next)
		flush()
	}
	if err := m.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String(), m
}

func flt(at time.Duration, node int, k fault.Kind) input {
	return input{at: at, node: node, f: &fault.Fault{Kind: k}}
}

func recovering() orchestrator.Config {
	c := orchestrator.Defaults()
	c.RecoverMasterClusterFilters = []string{"*"}
	return c
}

// TestHardDeath: a refused master breaks the replicas' I/O threads at once; the reads at 852 s
// (every 6 s from 0) find the master refused and the replicas Connecting: DeadMaster, 5 s
// after the fault, and a promotion of the first replica.
func TestHardDeath(t *testing.T) {
	got, m := run(t, recovering(), 900*s, flt(847*s, 0, fault.Refuse))
	want := `14m7s db2 I/O thread not replicating
14m7s db3 I/O thread not replicating
14m12s orchestrator: db1 last check invalid
14m12s orchestrator: db1 DeadMaster (replicas 2, read 2, replicating 0, lagging 0)
14m12s orchestrator: db1 DeadMaster: recovery promotes db2, repoints db3
14m12s db3 I/O thread replicating again
14m12s orchestrator: db2 NoProblem (replicas 1, read 1, replicating 1, lagging 0)
`
	if got != want {
		t.Errorf("got:\n%swant:\n%s", got, want)
	}
	if m.Master() != 1 {
		t.Errorf("master %d, want db2", m.Master())
	}
}

// TestStallIsUnreachable: under a stall the replicas stay connected: the master's check is
// invalid one second into the read that meets it, but UnreachableMaster comes only when that
// read fails at the read timeout (until then the last good read's partial success holds),
// never DeadMaster, and NoProblem at the heal.
func TestStallIsUnreachable(t *testing.T) {
	got, _ := run(t, recovering(), 2000*s, flt(660*s, 0, fault.Stall), flt(1260*s, 0, fault.Heal))
	want := `11m1s orchestrator: db1 last check invalid
11m10s orchestrator: db1 UnreachableMaster (replicas 2, read 2, replicating 2, lagging 0)
21m0s orchestrator: db1 read again
21m0s orchestrator: db1 NoProblem (replicas 2, read 2, replicating 2, lagging 0)
`
	if got != want {
		t.Errorf("got:\n%swant:\n%s", got, want)
	}
}

// TestDefaultsRecoverNothing: with no RecoverMasterClusterFilters a DeadMaster is told and
// left.
func TestDefaultsRecoverNothing(t *testing.T) {
	got, m := run(t, orchestrator.Defaults(), 900*s, flt(847*s, 0, fault.Refuse))
	if !strings.Contains(got, "DeadMaster: no recovery: not in RecoverMasterClusterFilters") || m.Master() != 0 {
		t.Errorf("got:\n%s", got)
	}
}

// TestAntiFlap: the promoted master dies 20 minutes later: its DeadMaster is blocked by the
// first recovery's hour.
func TestAntiFlap(t *testing.T) {
	got, m := run(t, recovering(), 3000*s, flt(847*s, 0, fault.Refuse), flt(2000*s, 1, fault.Refuse))
	if !strings.Contains(got, "db2 DeadMasterWithoutReplicas") && !strings.Contains(got, "db2 DeadMaster") {
		t.Fatalf("no analysis of db2:\n%s", got)
	}
	if m.Master() != 1 {
		t.Errorf("master %d, want db2 still (blocked):\n%s", m.Master(), got)
	}
	if !strings.Contains(got, "db2 DeadMaster: no recovery: blocked by a recent recovery") {
		t.Errorf("want the block told:\n%s", got)
	}
}

// TestFrozenLinkIsOneReplica: one replica's frozen replication link stops only it; the master
// is read fine: MasterSingle... is not the code with two replicas, NoProblem stays until
// every replica stops.
func TestFrozenLinkIsOneReplica(t *testing.T) {
	got, _ := run(t, recovering(), 400*s, input{at: 100 * s, in: repl.SetStream{Node: 1, Frozen: true}})
	want := "2m30s db2 I/O thread not replicating\n"
	if got != want {
		t.Errorf("got:\n%swant:\n%s", got, want)
	}
}

// TestLaggingReplicas: with every replica 30 s behind, a stalled master is
// UnreachableMasterWithLaggingReplicas, which starts no recovery.
func TestLaggingReplicas(t *testing.T) {
	got, m := run(t, recovering(), 800*s,
		input{at: 0, in: repl.SetLag{Node: 1, Lag: 30 * s}}, input{at: 0, in: repl.SetLag{Node: 2, Lag: 30 * s}},
		flt(660*s, 0, fault.Stall))
	if !strings.Contains(got, "11m1s orchestrator: db1 UnreachableMasterWithLaggingReplicas (replicas 2, read 2, replicating 2, lagging 2)") || m.Master() != 0 {
		t.Errorf("got:\n%s", got)
	}
}

func TestUnmodelledFault(t *testing.T) {
	m := New(Config{Orchestrator: orchestrator.Defaults(), Replica: orchestrator.DefaultReplica(), Nodes: 2, Master: 0, End: time.Hour})
	m.Fault(s, 0, fault.Fault{Kind: fault.Slow, Delay: s})
	if err := m.Err(); err == nil || !strings.Contains(err.Error(), "slow") {
		t.Errorf("err = %v, want one naming slow", err)
	}
	if _, ok := m.Next(); ok {
		t.Error("a machine in error still wakes")
	}
}

// TestDriverContract: the machine asks the driver for no probe and no tick.
func TestDriverContract(t *testing.T) {
	m := New(Config{Orchestrator: orchestrator.Defaults(), Nodes: 2, Master: 0, End: time.Hour})
	if steady, until := m.Steady(0, 0); !steady || until < time.Hour {
		t.Errorf("Steady = %t %v", steady, until)
	}
	if _, ok := m.TicksToExpiry(); ok || !m.Quiet() {
		t.Error("the machine wants Tungsten ticks")
	}
	m.Apply(0, &act.Action{Kind: act.ManagerDown, Node: 0})
	if !m.Running(0) {
		t.Error("a manager action stopped a node's reads")
	}
}

// TestFailOnLag: with a heartbeat table's lag (ReplicationLagQuery), a replica 2 minutes behind
// lags 125 s at the DeadMaster 5 s after the death (its stream stopped at the death), and
// FailMasterPromotionOnLagMinutes 1 refuses to promote it.
func TestFailOnLag(t *testing.T) {
	c := recovering()
	c.FailOnLag, c.ReplicationLagQuery = time.Minute, "select lag from meta.heartbeat"
	got, m := run(t, c, 900*s,
		input{at: 0, in: repl.SetLag{Node: 1, Lag: 120 * s}}, input{at: 0, in: repl.SetLag{Node: 2, Lag: 120 * s}},
		flt(847*s, 0, fault.Refuse))
	if !strings.Contains(got, "14m12s orchestrator: db1 DeadMaster: recovery found no replica to promote: FailMasterPromotionOnLagMinutes: the candidate lags 2m5s") || m.Master() != 0 {
		t.Errorf("got:\n%s", got)
	}
}

// TestPartition: Orchestrator beside db3, the master db1 cut from db2 and db3: db1 is read as
// through a blackhole (invalid a second into the read at 60 s, UnreachableMaster when the
// read on the pooled connection times out at 70 s), db3's stream times out 60 s
// after its last heartbeat (at 30 s), and db2, on db1's side, cannot be read (a replica's
// hanging read counts as read until it fails: inst/analysis_dao.go:195-200 looks at
// last_checked alone): at 91 s DeadMasterAndSomeReplicas, and with recovery on, db3 is
// promoted and db2 lost.
func TestPartition(t *testing.T) {
	m := New(Config{Orchestrator: recovering(), Replica: orchestrator.DefaultReplica(), Nodes: 3, Master: 0, End: 300 * s, MariaDBGTID: true, Near: 2, NearOK: true, Cluster: orchestrator.Cluster{Name: "db1"}})
	m.Apply(59*s, &act.Action{Kind: act.Partition, Segments: []int{0, 0, 1}})
	var b strings.Builder
	stepUntil(m, 120*s, &b)
	want := `1m1s orchestrator: db1 last check invalid
1m1s orchestrator: db2 last check invalid
1m10s orchestrator: db1 UnreachableMaster (replicas 2, read 1, replicating 1, lagging 0)
1m30s db3 I/O thread not replicating
1m31s orchestrator: db1 DeadMasterAndSomeReplicas (replicas 2, read 1, replicating 0, lagging 0)
1m31s orchestrator: db1 DeadMasterAndSomeReplicas: recovery promotes db3, loses db2
1m31s orchestrator: db3 NoProblem (replicas 0, read 0, replicating 0, lagging 0)
`
	if got := b.String(); !strings.HasPrefix(got, want) {
		t.Errorf("got:\n%swant:\n%s", got, want)
	}
}

// TestManagersPartition: the same cut as TestPartition, of the managers' network alone
// (act.Action.ManagersOnly): Orchestrator, beside db3, cannot read db1 or db2, but no stream
// is cut, so db3 stays replicating and the code stays UnreachableMaster, which recovers
// nothing, up to the heal at 300 s; after it, db1 is read again and nothing was promoted.
func TestManagersPartition(t *testing.T) {
	m := New(Config{Orchestrator: recovering(), Replica: orchestrator.DefaultReplica(), Nodes: 3, Master: 0, End: 400 * s, MariaDBGTID: true, Near: 2, NearOK: true, Cluster: orchestrator.Cluster{Name: "db1"}})
	m.Apply(59*s, &act.Action{Kind: act.Partition, Segments: []int{0, 0, 1}, ManagersOnly: true})
	var b strings.Builder
	stepUntil(m, 299*s, &b)
	m.Apply(300*s, &act.Action{Kind: act.Partition})
	stepUntil(m, 400*s, &b)
	want := `1m1s orchestrator: db1 last check invalid
1m1s orchestrator: db2 last check invalid
1m10s orchestrator: db1 UnreachableMaster (replicas 2, read 1, replicating 1, lagging 0)
`
	got := b.String()
	if !strings.HasPrefix(got, want) || strings.Contains(got, "I/O thread not replicating") || strings.Contains(got, "recovery") {
		t.Errorf("got:\n%swant first:\n%s", got, want)
	}
	if m.Master() != 0 || !strings.Contains(got, "orchestrator: db1 read again") {
		t.Errorf("master %d at the end; got:\n%s", m.Master(), got)
	}
}

// stepUntil steps m through its own ticks up to end, writing each event in words, prefixed by
// its time, to b.
func stepUntil(m *Machine, end time.Duration, b *strings.Builder) {
	for {
		next, ok := m.Next()
		if !ok || next > end {
			return
		}
		m.Step(next)
		for _, ev := range m.Ready() {
			d, _ := Describe(names, ev)
			b.WriteString(ev.When().String() + " " + d + "\n")
		}
		m.Advance()
	}
}
