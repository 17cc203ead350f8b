package report_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/failsim/failsim/act"
	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/report"
	"github.com/failsim/failsim/statemap"
)

// TestEveryEventPrinted pins the text and JSON line of every decision kind and of the fault
// note, with node indices printed as names. The shipped goldens show most kinds in text, but
// not every kind in JSON.
func TestEveryEventPrinted(t *testing.T) {
	names := []string{"db1", "db2", "db3"}
	sc := statemap.SocketIOError
	evs := []act.Event{
		&act.FaultSet{At: 1 * time.Second, Node: 0, Fault: fault.Fault{Kind: fault.Slow, Delay: 2 * time.Second}},
		&fence.StateChanged{At: 2 * time.Second, Node: 0, Condition: sc, From: statemap.Online, To: statemap.Stopped},
		&fence.AlarmRaised{Node: 1, Condition: sc, Threshold: 3, Action: statemap.Fail},
		&fence.AlarmExpired{Node: 1, Condition: sc, Count: 3, Threshold: 3, Action: statemap.Fail, Coordinator: 2},
		&fence.AlarmHealed{Node: 1, Condition: sc, Count: 1, Threshold: 3},
		&fence.AlarmCleared{Node: 1, Condition: sc, Count: 2, Threshold: 3, By: fence.ClearedByMaintenance},
		&fence.AlarmCleared{Node: 1, Condition: sc, Count: 0, Threshold: 3, By: fence.ClearedByRecover},
		&fence.ExpiryWaiting{Node: 1, Condition: sc, Count: 3, Threshold: 3, Action: statemap.Fail},
		&fence.Logged{Node: 1, Condition: sc},
		&fence.AlertNotImplemented{Node: 1, Condition: sc},
		&fence.AlreadyFailed{Node: 1, Condition: sc},
		&fence.NodeFailed{Node: 1, Condition: sc, Role: fence.Replica},
		&fence.NodeFailed{Node: 0, Condition: sc, Role: fence.Master},
		&fence.Failover{Node: 0, Condition: sc, To: 2},
		&fence.NoCandidate{Node: 0, Condition: sc, Ineligible: []fence.Ineligible{{Node: 1, Why: fence.IsFailed}, {Node: 2, Why: fence.ManagerIsDown}}},
		&fence.NoCandidate{Node: 0, Condition: sc, Ineligible: []fence.Ineligible{{Node: 1, Why: fence.NeverProbed}, {Node: 2, Why: fence.LastProbeNotOK}}},
		&fence.NoCandidate{Node: 0, Condition: sc, Ineligible: []fence.Ineligible{{Node: 1, Why: fence.NotChosen}}},
		&fence.NoCandidate{Node: 0, Condition: sc},
		&fence.NodeRecovered{Node: 1, Role: fence.Replica, By: fence.RecoveredByProbe},
		&fence.NodeRecovered{Node: 0, Role: fence.Master, By: fence.RecoveredByOperator},
		&fence.RecoverIgnored{Node: 2},
		&fence.PolicyChanged{Policy: fence.Maintenance},
		&fence.ManagerDown{Node: 2},
		&fence.ManagerUp{Node: 2},
		&fence.CoordinatorChanged{Coordinator: 1},
		&fence.CoordinatorChanged{Coordinator: -1},
	}
	wantText := `00:00:01 db1 fault slow 2s
00:00:02 db1 state online -> stopped (socket_io_error)
00:00:00 db2 alarm raised: socket_io_error (threshold 3, action fail)
00:00:00 db2 alarm expired: socket_io_error after 3 ticks (threshold 3): action fail, coordinator db3
00:00:00 db2 alarm self-healed: socket_io_error after 1 tick (threshold 3)
00:00:00 db2 alarm cleared by maintenance: socket_io_error after 2 ticks (threshold 3)
00:00:00 db2 alarm cleared by the operator's recover: socket_io_error after 0 ticks (threshold 3)
00:00:00 db2 alarm expired: socket_io_error after 3 ticks, but there is no coordinator to fence: waiting
00:00:00 db2 socket_io_error: action none, logged only
00:00:00 db2 socket_io_error: action alert: ALERT NOT IMPLEMENTED
00:00:00 db2 socket_io_error: action fail, but db2 is already failed
00:00:00 db2 FAILED: replica out of service (socket_io_error)
00:00:00 db1 FAILED: master out of service (socket_io_error); manual policy: no failover
00:00:00 db1 FAILOVER: master db1 failed (socket_io_error), db3 is master
00:00:00 db1 FAILED: master out of service (socket_io_error); no failover: no replica eligible (db2 is failed, db3's manager is down); the cluster has no master
00:00:00 db1 FAILED: master out of service (socket_io_error); no failover: no replica eligible (db2 has not been probed yet, db3's last probe was not ok); the cluster has no master
00:00:00 db1 FAILED: master out of service (socket_io_error); no failover: no replica eligible (db2 was eligible, but the candidate rule chose no node); the cluster has no master
00:00:00 db1 FAILED: master out of service (socket_io_error); no failover: no replica eligible (the cluster has no replica); the cluster has no master
00:00:00 db2 recovered: back in service as replica (ok probe)
00:00:00 db1 recovered: back in service as master (operator)
00:00:00 db3 recover ignored: not failed
00:00:00 cluster policy maintenance
00:00:00 db3 manager down
00:00:00 db3 manager up
00:00:00 cluster coordinator db2
00:00:00 cluster coordinator none: no manager is up
`
	const z = `"t":0,"time":"00:00:00",`
	wantJSON := `{"t":1,"time":"00:00:01","event":"fault","node":"db1","detail":"slow 2s","text":"db1 fault slow 2s"}
{"t":2,"time":"00:00:02","event":"state","node":"db1","condition":"socket_io_error","from":"online","to":"stopped","text":"db1 state online -\u003e stopped (socket_io_error)"}
{` + z + `"event":"alarm-raised","node":"db2","condition":"socket_io_error","threshold":3,"action":"fail","text":"db2 alarm raised: socket_io_error (threshold 3, action fail)"}
{` + z + `"event":"alarm-expired","node":"db2","condition":"socket_io_error","count":3,"threshold":3,"action":"fail","text":"db2 alarm expired: socket_io_error after 3 ticks (threshold 3): action fail, coordinator db3"}
{` + z + `"event":"alarm-healed","node":"db2","condition":"socket_io_error","count":1,"threshold":3,"text":"db2 alarm self-healed: socket_io_error after 1 tick (threshold 3)"}
{` + z + `"event":"alarm-cleared","node":"db2","condition":"socket_io_error","count":2,"threshold":3,"detail":"maintenance","text":"db2 alarm cleared by maintenance: socket_io_error after 2 ticks (threshold 3)"}
{` + z + `"event":"alarm-cleared","node":"db2","condition":"socket_io_error","count":0,"threshold":3,"detail":"recover","text":"db2 alarm cleared by the operator's recover: socket_io_error after 0 ticks (threshold 3)"}
{` + z + `"event":"expiry-waiting","node":"db2","condition":"socket_io_error","count":3,"threshold":3,"action":"fail","text":"db2 alarm expired: socket_io_error after 3 ticks, but there is no coordinator to fence: waiting"}
{` + z + `"event":"logged","node":"db2","condition":"socket_io_error","text":"db2 socket_io_error: action none, logged only"}
{` + z + `"event":"alert","node":"db2","condition":"socket_io_error","detail":"ALERT NOT IMPLEMENTED","text":"db2 socket_io_error: action alert: ALERT NOT IMPLEMENTED"}
{` + z + `"event":"already-failed","node":"db2","condition":"socket_io_error","text":"db2 socket_io_error: action fail, but db2 is already failed"}
{` + z + `"event":"failed","node":"db2","condition":"socket_io_error","role":"replica","text":"db2 FAILED: replica out of service (socket_io_error)"}
{` + z + `"event":"failed","node":"db1","condition":"socket_io_error","role":"master","detail":"manual policy: no failover","text":"db1 FAILED: master out of service (socket_io_error); manual policy: no failover"}
{` + z + `"event":"failover","node":"db1","condition":"socket_io_error","master":"db3","text":"db1 FAILOVER: master db1 failed (socket_io_error), db3 is master"}
{` + z + `"event":"no-candidate","node":"db1","condition":"socket_io_error","detail":"db2 is failed, db3's manager is down","text":"db1 FAILED: master out of service (socket_io_error); no failover: no replica eligible (db2 is failed, db3's manager is down); the cluster has no master"}
{` + z + `"event":"no-candidate","node":"db1","condition":"socket_io_error","detail":"db2 has not been probed yet, db3's last probe was not ok","text":"db1 FAILED: master out of service (socket_io_error); no failover: no replica eligible (db2 has not been probed yet, db3's last probe was not ok); the cluster has no master"}
{` + z + `"event":"no-candidate","node":"db1","condition":"socket_io_error","detail":"db2 was eligible, but the candidate rule chose no node","text":"db1 FAILED: master out of service (socket_io_error); no failover: no replica eligible (db2 was eligible, but the candidate rule chose no node); the cluster has no master"}
{` + z + `"event":"no-candidate","node":"db1","condition":"socket_io_error","detail":"the cluster has no replica","text":"db1 FAILED: master out of service (socket_io_error); no failover: no replica eligible (the cluster has no replica); the cluster has no master"}
{` + z + `"event":"recovered","node":"db2","role":"replica","detail":"ok probe","text":"db2 recovered: back in service as replica (ok probe)"}
{` + z + `"event":"recovered","node":"db1","role":"master","detail":"operator","text":"db1 recovered: back in service as master (operator)"}
{` + z + `"event":"recover-ignored","node":"db3","detail":"not failed","text":"db3 recover ignored: not failed"}
{` + z + `"event":"policy","policy":"maintenance","text":"cluster policy maintenance"}
{` + z + `"event":"manager-down","node":"db3","text":"db3 manager down"}
{` + z + `"event":"manager-up","node":"db3","text":"db3 manager up"}
{` + z + `"event":"coordinator","coordinator":"db2","text":"cluster coordinator db2"}
{` + z + `"event":"coordinator","coordinator":"","text":"cluster coordinator none: no manager is up"}
`
	start := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, f := range []report.Format{report.Text, report.JSON} {
		var b bytes.Buffer
		p := report.NewPrinter(&b, f, start, names)
		for _, ev := range evs {
			p.Event(ev)
		}
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
		want := wantText
		if f == report.JSON {
			want = wantJSON
		}
		if got := b.String(); got != want {
			gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
			for i := range min(len(gl), len(wl)) {
				if gl[i] != wl[i] {
					t.Errorf("format %d, line %d:\n got %s\nwant %s", f, i+1, gl[i], wl[i])
				}
			}
			if len(gl) != len(wl) {
				t.Errorf("format %d: %d lines, want %d", f, len(gl), len(wl))
			}
		}
	}
}
