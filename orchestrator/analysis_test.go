package orchestrator

import (
	"testing"
	"time"
)

// rr is a replica read: v valid, io and sql the threads, lag in seconds (-1: NULL).
func rr(v, io, sql bool, lag int) ReplicaRead {
	r := ReplicaRead{Valid: v, IORunning: io, SQLRunning: sql}
	if lag >= 0 {
		r.Lag, r.LagKnown = time.Duration(lag)*time.Second, true
	}
	return r
}

var (
	ok      = rr(true, true, true, 0)            // replicating, no lag
	stopped = rr(true, false, true, -1)          // valid read, I/O thread Connecting
	gone    = rr(false, true, true, 0)           // the read failed; it replicated when last read
	lagging = rr(true, true, true, 11)           // over the default 10 s
	atLag   = rr(true, true, true, 10)           // exactly at it: not lagging (> 10)
	goneOff = rr(false, false, true, -1)         // the read failed; it had stopped
	ghost   = ReplicaRead{Valid: true, Lag: 5e9} // threads stopped, lag stored
)

// TestAnalyze holds each code of inst/analysis_dao.go:495-557 to exact inputs, with the
// neighbours that must not give it.
func TestAnalyze(t *testing.T) {
	dead := MasterRead{}
	up := MasterRead{LastCheckValid: true}
	for _, tc := range []struct {
		name string
		m    MasterRead
		rs   []ReplicaRead
		want Code
	}{
		{"dead, no replica", dead, nil, DeadMasterWithoutReplicas},
		{"dead, every replica read and none replicating", dead, []ReplicaRead{stopped, stopped}, DeadMaster},
		{"dead, one replica still replicating: unreachable", dead, []ReplicaRead{stopped, ok}, UnreachableMaster},
		{"dead, every replica unread", dead, []ReplicaRead{gone, goneOff}, DeadMasterAndReplicas},
		{"dead, one unread, the read one stopped", dead, []ReplicaRead{goneOff, stopped}, DeadMasterAndSomeReplicas},
		{"dead, one unread, the read one replicating", dead, []ReplicaRead{gone, ok}, UnreachableMaster},
		{"dead, all replicating and lagging", dead, []ReplicaRead{lagging, lagging}, UnreachableMasterWithLaggingReplicas},
		{"dead, lag at the limit is no lag", dead, []ReplicaRead{lagging, atLag}, UnreachableMaster},
		{"dead, all lagging but all delayed", dead, []ReplicaRead{{Valid: true, IORunning: true, SQLRunning: true, Lag: 20e9, LagKnown: true, Delayed: true}}, UnreachableMaster},
		{"dead, partial success and nobody failing to connect: nothing", MasterRead{PartialSuccess: true}, []ReplicaRead{ok}, NoProblem},
		{"dead, partial success, one failing to connect", MasterRead{PartialSuccess: true}, []ReplicaRead{ok, {Valid: true, SQLRunning: true, FailingToConnect: true}}, UnreachableMaster},
		{"up, all fine", up, []ReplicaRead{ok, ok}, NoProblem},
		{"up, lagging is no problem", up, []ReplicaRead{lagging, lagging}, NoProblem},
		{"up, single replica stopped", up, []ReplicaRead{stopped}, MasterSingleReplicaNotReplicating},
		{"up, single replica unread", up, []ReplicaRead{gone}, MasterSingleReplicaDead},
		{"up, all replicas stopped", up, []ReplicaRead{stopped, ghost}, AllMasterReplicasNotReplicating},
		{"up, some unread, the others stopped", up, []ReplicaRead{stopped, goneOff}, AllMasterReplicasNotReplicatingOrDead},
		{"up, every replica unread: nothing", up, []ReplicaRead{gone, gone}, NoProblem},
		{"up, no replica", up, nil, NoProblem},
		{"semisync locked", MasterRead{LastCheckValid: true, SemiSync: SemiSync{Enabled: true, Status: true, WaitFor: 1, Stale: true}}, []ReplicaRead{ok}, LockedSemiSyncMaster},
		{"semisync locked, not yet stale", MasterRead{LastCheckValid: true, SemiSync: SemiSync{Enabled: true, Status: true, WaitFor: 1}}, []ReplicaRead{ok}, LockedSemiSyncMasterHypothesis},
		{"semisync with its clients", MasterRead{LastCheckValid: true, SemiSync: SemiSync{Enabled: true, Status: true, WaitFor: 1, Clients: 1, Stale: true}}, []ReplicaRead{ok}, NoProblem},
		{"semisync fallen back", MasterRead{LastCheckValid: true, SemiSync: SemiSync{Enabled: true, WaitFor: 1, Stale: true}}, []ReplicaRead{ok}, NoProblem},
		{"dead master wins over semisync", MasterRead{SemiSync: SemiSync{Enabled: true, Status: true, WaitFor: 1, Stale: true}}, []ReplicaRead{stopped}, DeadMaster},
	} {
		a := Analyze(tc.m, tc.rs, 10*time.Second)
		if a.Code != tc.want {
			t.Errorf("%s: %s (%+v), want %s", tc.name, a.Code, a, tc.want)
		}
	}
}

func TestAnalyzeCounts(t *testing.T) {
	a := Analyze(MasterRead{}, []ReplicaRead{ok, stopped, gone, lagging, {Valid: true, SQLRunning: true, FailingToConnect: true, Downtimed: true}}, 10*time.Second)
	want := Analysis{Code: UnreachableMaster, Replicas: 5, ValidReplicas: 4, ValidReplicating: 2, FailingToConnect: 1, Lagging: 1, DowntimedReplicas: 1}
	if a != want {
		t.Errorf("got  %+v\nwant %+v", a, want)
	}
}

func TestAnalyzeDowntime(t *testing.T) {
	if a := Analyze(MasterRead{Downtimed: true}, []ReplicaRead{stopped}, 10*time.Second); a.Code != DeadMaster || !a.SkippableDueToDowntime {
		t.Errorf("downtimed master: %+v, want a skippable DeadMaster", a)
	}
	down := stopped
	down.Downtimed = true
	if a := Analyze(MasterRead{LastCheckValid: true}, []ReplicaRead{down, down}, 10*time.Second); a.Code != AllMasterReplicasNotReplicating || !a.SkippableDueToDowntime {
		t.Errorf("all replicas downtimed: %+v, want skippable", a)
	}
	if a := Analyze(MasterRead{}, []ReplicaRead{down, down}, 10*time.Second); a.SkippableDueToDowntime {
		t.Errorf("a DeadMaster with downtimed replicas is not skippable: %+v", a)
	}
}

func TestCodeString(t *testing.T) {
	if DeadMaster.String() != "DeadMaster" || Code(200).String() != "code(200)" {
		t.Error(DeadMaster.String(), Code(200).String())
	}
}
