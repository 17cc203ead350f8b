package orchestrator

import (
	"fmt"
	"time"
)

// Code is a failure analysis code of Orchestrator's (inst/analysis.go:29-81), for a master
// of classic (not group) replication. The zero value is NoProblem.
type Code uint8

// The codes of a master's analysis, in the order analysis_dao.go tests them
// (inst/analysis_dao.go:494-561): the first that holds is the code.
const (
	NoProblem                             Code = iota
	DeadMasterWithoutReplicas                  // :495
	DeadMaster                                 // :499
	DeadMasterAndReplicas                      // :503
	DeadMasterAndSomeReplicas                  // :507
	UnreachableMasterWithLaggingReplicas       // :511
	UnreachableMaster                          // :515, :520
	LockedSemiSyncMaster                       // :525-527
	LockedSemiSyncMasterHypothesis             // :525, :529-530
	MasterSingleReplicaNotReplicating          // :542
	MasterSingleReplicaDead                    // :546
	AllMasterReplicasNotReplicating            // :550
	AllMasterReplicasNotReplicatingOrDead      // :554
	numCodes
)

var codeNames = [numCodes]string{
	NoProblem: "NoProblem", DeadMasterWithoutReplicas: "DeadMasterWithoutReplicas", DeadMaster: "DeadMaster",
	DeadMasterAndReplicas: "DeadMasterAndReplicas", DeadMasterAndSomeReplicas: "DeadMasterAndSomeReplicas",
	UnreachableMasterWithLaggingReplicas: "UnreachableMasterWithLaggingReplicas", UnreachableMaster: "UnreachableMaster",
	LockedSemiSyncMaster: "LockedSemiSyncMaster", LockedSemiSyncMasterHypothesis: "LockedSemiSyncMasterHypothesis",
	MasterSingleReplicaNotReplicating: "MasterSingleReplicaNotReplicating", MasterSingleReplicaDead: "MasterSingleReplicaDead",
	AllMasterReplicasNotReplicating: "AllMasterReplicasNotReplicating", AllMasterReplicasNotReplicatingOrDead: "AllMasterReplicasNotReplicatingOrDead",
}

// String is the code's name as Orchestrator's API writes it.
func (c Code) String() string {
	if c < numCodes {
		return codeNames[c]
	}
	return fmt.Sprintf("code(%d)", uint8(c))
}

// MasterRead is what Orchestrator holds of the master, as its analysis query reads it.
type MasterRead struct {
	// LastCheckValid is is_last_check_valid: the last read succeeded, and no read under way
	// has been noted as hanging past InstancePoll+ReasonableInstanceCheck
	// (inst/analysis_dao.go:159-162; Valid computes it).
	LastCheckValid bool
	// PartialSuccess is last_check_partial_success: the last read failed after some of its
	// queries worked (inst/instance_dao.go:974). failsim's faults fail a read whole: false.
	PartialSuccess bool
	// Downtimed: the master is in downtime (Orchestrator's maintenance analog,
	// inst/analysis_dao.go:231-234): its analysis is skipped by automated recovery.
	Downtimed bool
	// SemiSync is the master's semi-synchronous replication, for LockedSemiSyncMaster.
	SemiSync SemiSync
}

// SemiSync is a master's rpl_semi_sync_master_* state as Orchestrator reads it. The zero value
// is semisync off.
type SemiSync struct {
	Enabled, Status bool // rpl_semi_sync_master_enabled; Rpl_semi_sync_master_status (on, not fallen back)
	WaitFor         uint // rpl_semi_sync_master_wait_for_slave_count
	Clients         uint // Rpl_semi_sync_master_clients
	// Stale: the master's binary log position has not moved for
	// ReasonableLockedSemiSyncMasterSeconds (inst/analysis_dao.go:139-146).
	Stale bool
}

// ReplicaRead is what Orchestrator holds of one of the master's replicas: Valid says whether
// its last read succeeded; the rest is what its last successful read found (the analysis
// query reads the stored row, valid or not).
type ReplicaRead struct {
	Valid      bool // last_checked <= last_seen (inst/analysis_dao.go:195-200)
	IORunning  bool // Slave_IO_Running is Yes (Connecting is not)
	SQLRunning bool // Slave_SQL_Running is Yes
	// FailingToConnect: the I/O thread stopped with "error connecting to master" while the SQL
	// thread runs (inst/analysis_dao.go:209-217).
	FailingToConnect bool
	// Lag is Seconds_Behind_Master (or ReplicationLagQuery's), in whole seconds as MySQL
	// reports it; LagKnown false when it is NULL (the I/O thread stopped).
	Lag      time.Duration
	LagKnown bool
	Delayed  bool // sql_delay > 0 (MASTER_DELAY)
	// Downtimed: the replica is in downtime (inst/analysis_dao.go:350-357).
	Downtimed bool
}

// Analysis is a master's analysis: its code and the counts the query computed it from
// (inst/analysis_dao.go:465-490).
type Analysis struct {
	Code                   Code
	Replicas               int // count_replicas
	ValidReplicas          int // count_valid_replicas
	ValidReplicating       int // count_valid_replicating_replicas
	FailingToConnect       int // count_replicas_failing_to_connect_to_master
	Lagging                int // count_lagging_replicas: lag over ReasonableReplicationLag
	Delayed                int // count_delayed_replicas
	DowntimedReplicas      int // count_downtimed_replicas
	SkippableDueToDowntime bool
}

// Analyze computes the master's analysis code from what Orchestrator read, as
// GetReplicationAnalysis's query and its chain of tests do (inst/analysis_dao.go:58-561), for a
// master of classic replication (not a group member, not a co-master, no intermediate
// master). reasonableLag is ReasonableReplicationLagSeconds. Codes that need a setting off by
// default are left out (NoWriteableMasterStructureWarning needs RecoverNonWriteableMaster,
// :538; MasterWithTooManySemiSyncReplicas needs EnforceExactSemiSyncReplicas, :534).
func Analyze(m MasterRead, rs []ReplicaRead, reasonableLag time.Duration) Analysis {
	a := Analysis{Replicas: len(rs)}
	for _, r := range rs {
		if r.Valid {
			a.ValidReplicas++
			if r.IORunning && r.SQLRunning {
				a.ValidReplicating++
			}
			if !r.IORunning && r.FailingToConnect && r.SQLRunning {
				a.FailingToConnect++
			}
		}
		// count_lagging_replicas: slave_lag_seconds > ?, valid or not, NULL not counted (:337-341).
		if r.LagKnown && int64(r.Lag/time.Second) > int64(reasonableLag/time.Second) {
			a.Lagging++
		}
		if r.Delayed {
			a.Delayed++
		}
		if r.Downtimed {
			a.DowntimedReplicas++
		}
	}
	a.Code = code(m, a)
	// appendAnalysis (:646-664).
	a.SkippableDueToDowntime = m.Downtimed
	if a.Replicas == a.DowntimedReplicas {
		switch a.Code {
		case AllMasterReplicasNotReplicating, AllMasterReplicasNotReplicatingOrDead, MasterSingleReplicaDead:
			a.SkippableDueToDowntime = true
		}
	}
	return a
}

// code is the chain of tests of inst/analysis_dao.go:495-557 for a master (IsMaster true,
// IsReplicationGroupMember false).
func code(m MasterRead, a Analysis) Code {
	n, valid, repl := a.Replicas, a.ValidReplicas, a.ValidReplicating
	dead := !m.LastCheckValid
	ss := m.SemiSync
	switch {
	case dead && n == 0: // :495
		return DeadMasterWithoutReplicas
	case dead && valid == n && repl == 0: // :499
		return DeadMaster
	case dead && n > 0 && valid == 0 && repl == 0: // :503
		return DeadMasterAndReplicas
	case dead && valid < n && valid > 0 && repl == 0: // :507
		return DeadMasterAndSomeReplicas
	case dead && a.Lagging == n && a.Delayed < n && repl > 0: // :511
		return UnreachableMasterWithLaggingReplicas
	case dead && !m.PartialSuccess && valid > 0 && repl > 0: // :515
		return UnreachableMaster
	case dead && m.PartialSuccess && a.FailingToConnect > 0 && valid > 0 && repl > 0: // :520
		return UnreachableMaster
	case ss.Enabled && ss.Status && ss.WaitFor > 0 && ss.Clients < ss.WaitFor: // :525
		if ss.Stale {
			return LockedSemiSyncMaster
		}
		return LockedSemiSyncMasterHypothesis
	case !dead && n == 1 && valid == n && repl == 0: // :542
		return MasterSingleReplicaNotReplicating
	case !dead && n == 1 && valid == 0: // :546
		return MasterSingleReplicaDead
	case !dead && n > 1 && valid == n && repl == 0: // :550
		return AllMasterReplicasNotReplicating
	case !dead && n > 1 && valid < n && valid > 0 && repl == 0: // :554
		return AllMasterReplicasNotReplicatingOrDead
	}
	return NoProblem
}
