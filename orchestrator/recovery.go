package orchestrator

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Action is what Orchestrator's recovery tick does with a master's analysis code
// (getCheckAndRecoverFunction, logic/topology_recovery.go:1705-1767).
type Action uint8

// The actions.
const (
	// Nothing: no recovery function (NoProblem, and the codes with none).
	Nothing Action = iota
	// Detect: a problem with no recovery (checkAndRecoverGenericProblem: :1742-1751), and
	// DeadMaster in the 5 s after an emergent restart of its replicas' replication (:1712-1713).
	Detect
	// RecoverMaster: recover the dead master, fail it over (checkAndRecoverDeadMaster,
	// :1711-1716, :842-940).
	RecoverMaster
	// RegisterOnly: LockedSemiSyncMaster registers a recovery, which blocks others, and acts only
	// with RecoverLockedSemiSyncMaster or EnforceExactSemiSyncReplicas, both off by default and
	// not modelled (:1717-1722, :1484-1497).
	RegisterOnly
)

// ActionOf returns the action of code; graceful says the master is in its emergency operation
// graceful period (5 s from an emergent restart of its replicas' replication under
// UnreachableMasterWithLaggingReplicas: :232, :1664-1670, :1654-1657).
func ActionOf(code Code, graceful bool) Action {
	switch code {
	case DeadMaster, DeadMasterAndSomeReplicas:
		if graceful {
			return Detect
		}
		return RecoverMaster
	case LockedSemiSyncMaster:
		if graceful {
			return Detect
		}
		return RegisterOnly
	case DeadMasterAndReplicas, UnreachableMaster, UnreachableMasterWithLaggingReplicas,
		AllMasterReplicasNotReplicating, AllMasterReplicasNotReplicatingOrDead:
		return Detect
	}
	return Nothing
}

// EmergencyGrace is how long after an emergent restart of a master's replicas' replication no
// DeadMaster of it is recovered (logic/topology_recovery.go:232).
const EmergencyGrace = 5 * time.Second

// Cluster names a cluster as RecoverMasterClusterFilters match it: its name (Orchestrator's is
// the master's host:port) and its alias.
type Cluster struct {
	Name, Alias string
}

// Automated reports whether filters (RecoverMasterClusterFilters) let Orchestrator recover the
// cluster's master on its own (HasAutomatedMasterRecovery, inst/cluster.go:92-125): a filter
// equal to the name or the alias, "alias=A", "alias~=REGEXP" matching the alias, "*", or a
// regexp matching the name. A filter that is not a valid regexp matches nothing, as
// regexp.MatchString's error is ignored there.
func Automated(filters []string, cl Cluster) bool {
	for _, f := range filters {
		if f == cl.Name || f == cl.Alias {
			return true
		}
		if a, ok := strings.CutPrefix(f, "alias="); ok {
			if a == cl.Alias {
				return true
			}
		} else if p, ok := strings.CutPrefix(f, "alias~="); ok {
			if m, _ := regexp.MatchString(p, cl.Alias); m {
				return true
			}
		} else if f == "*" {
			return true
		} else if m, _ := regexp.MatchString(f, cl.Name); m && f != "" {
			return true
		}
	}
	return false
}

// Verdict is whether a master recovery runs at a recovery tick, and if not why.
type Verdict uint8

// The verdicts. Decide checks whether the code starts a recovery first, then downtime, the
// filters and the block, in Orchestrator's order (which skips a downtimed master before it
// looks at the code: the same outcome, no recovery).
const (
	Runs      Verdict = iota // the recovery is registered and runs
	Downtimed                // the master is downtimed: skipped (logic/topology_recovery.go:1920-1923)
	NotActed                 // the code starts no recovery (ActionOf)
	NoFilter                 // RecoverMasterClusterFilters does not name the cluster (:843-845)
	BlockedBy                // a recovery of the cluster is in its active period (topology_recovery_dao.go:207-231)
)

var verdictNames = [...]string{Runs: "runs", Downtimed: "downtimed", NotActed: "no recovery for this code", NoFilter: "not in RecoverMasterClusterFilters", BlockedBy: "blocked by a recent recovery"}

// String says the verdict in words.
func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("verdict(%d)", uint8(v))
}

// Recent is the cluster's last recovery, for the anti-flap block: Started is when it was
// registered; Any false for none.
type Recent struct {
	Started time.Duration
	Any     bool
}

// Unblocked returns the first recovery tick at which a recovery registered at started no
// longer blocks another: ClearActiveRecoveries ends its active period once it started more than
// RecoveryPeriodBlockSeconds ago (topology_recovery_dao.go:255-266, each RecoveryPoll,
// logic/orchestrator.go:596), a recovery that found no replica to promote included, since it
// was registered before it looked. failsim runs the clearing before the analysis of its tick.
func Unblocked(c Config, started time.Duration) time.Duration {
	return TickAtOrAfter(started+c.RecoveryPeriodBlock+time.Nanosecond, RecoveryPoll)
}

// Decide is what the recovery tick at now does with analysis a of cluster cl's master, last
// recovered as recent, graceful saying it is in its emergency graceful period. No operator
// acknowledges a recovery (ack-cluster-recoveries would end the block early).
func Decide(c Config, cl Cluster, a Analysis, now time.Duration, recent Recent, graceful bool) Verdict {
	act := ActionOf(a.Code, graceful)
	if act != RecoverMaster && act != RegisterOnly {
		return NotActed
	}
	if a.SkippableDueToDowntime {
		return Downtimed
	}
	if act == RecoverMaster && !Automated(c.RecoverMasterClusterFilters, cl) {
		return NoFilter
	}
	if recent.Any && now < Unblocked(c, recent.Started) {
		return BlockedBy
	}
	return Runs
}

// Rule is an instance's promotion rule (inst/promotion_rule.go:27-41). The zero value is
// Neutral, the rule of an instance nobody registered as a candidate.
type Rule uint8

// The promotion rules, best first after Neutral's zero.
const (
	Neutral Rule = iota
	Must
	Prefer
	PreferNot
	MustNot
)

var ruleNames = [...]string{Neutral: "neutral", Must: "must", Prefer: "prefer", PreferNot: "prefer_not", MustNot: "must_not"}

// order is promotionRuleOrderMap (inst/promotion_rule.go:35-41): lower is better.
func (r Rule) order() int {
	switch r {
	case Must:
		return 0
	case Prefer:
		return 1
	case Neutral:
		return 2
	case PreferNot:
		return 3
	}
	return 4
}

// better is BetterThan (inst/promotion_rule.go:43-49).
func (r Rule) better(o Rule) bool { return r.order() < o.order() }

// String is the rule as Orchestrator spells it.
func (r Rule) String() string {
	if int(r) < len(ruleNames) {
		return ruleNames[r]
	}
	return fmt.Sprintf("rule(%d)", uint8(r))
}

// ParseRule reads a promotion rule as Orchestrator spells it.
func ParseRule(s string) (Rule, bool) {
	for i, n := range ruleNames {
		if n == s {
			return Rule(i), true
		}
	}
	return 0, false
}

// Candidate is a replica of the dead master as the recovery sees it.
type Candidate struct {
	Node     int           // the replica's index, for messages and for the ties Orchestrator leaves to chance
	Valid    bool          // its last check is valid (isGenerallyValidAsWouldBeMaster: topology_recovery.go:1028-1031)
	Position int64         // its executed position (ExecBinlogCoordinates): higher is more up to date
	Rule     Rule          // its promotion rule
	DC       string        // its data centre; "" for none named
	Lag      time.Duration // its lag as Orchestrator last read it (ReplicationLagSeconds)
	// Unapplied is how long its SQL thread still needs to apply what it received: 0 when it is
	// up to date (SQLThreadUpToDate).
	Unapplied time.Duration
}

// Promotion is what a master recovery did: the replica promoted (Node -1 for none, with Why),
// when it is master (Delay after the recovery began: DelayMasterPromotionIfSQLThreadNotUpToDate
// waits for its SQL thread), the replicas repointed under it and those lost (ahead of it, or
// unreachable).
type Promotion struct {
	Node      int
	Why       string
	Delay     time.Duration
	Repointed []int
	Lost      []int
}

// Promote chooses and checks the replica that a recovery of a dead master in data centre dc
// promotes, from its replicas rs in node order, as recoverDeadMaster does with GTID
// (logic/topology_recovery.go:515-615, :864-893):
//
//  1. The regroup's candidate (GetCandidateReplica, inst/instance_topology.go:2262-2296): the
//     replicas sorted most up to date first, ties broken by the master's data centre, then the
//     better promotion rule (inst/instance_utils.go:113-153), then the lower node (Orchestrator
//     leaves that order to sort.Sort); the first not must_not (:2206-2224). Replicas ahead of
//     it are lost; the others are repointed under it (:2236-2253). failsim offers only
//     replicas with a valid check: an unreachable one is lost.
//  2. Unless it is ideal (in dc and must or prefer, or no repointed replica has a better rule
//     and it is not must_not: topology_recovery.go:534-550), a replacement
//     (SuggestReplacementForPromotedReplica, :633-794): a valid must/prefer replica under it
//     in dc, else it if it is must/prefer and the data-centre rule allows, else a must/prefer
//     in its data centre, else any must/prefer the rule allows; and if it is prefer_not or the
//     rule forbids it, the same search among neutral replicas. Each search takes the last that
//     fits, as its loops do.
//  3. The overrides (:864-893): PreventCrossDataCenterMasterFailover, FailMasterPromotionOnLagMinutes,
//     FailMasterPromotionIfSQLThreadNotUpToDate fail it; DelayMasterPromotionIfSQLThreadNotUpToDate
//     waits for the SQL thread.
func Promote(c Config, dc string, rs []Candidate) Promotion {
	var pool []Candidate
	p := Promotion{Node: -1}
	for _, r := range rs {
		if r.Valid {
			pool = append(pool, r)
		} else {
			p.Lost = append(p.Lost, r.Node)
		}
	}
	// 1. Sort: most up to date first.
	sorted := append([]Candidate(nil), pool...)
	less := func(a, b Candidate) bool { // a is the better candidate
		if a.Position != b.Position {
			return a.Position > b.Position
		}
		if (a.DC == dc) != (b.DC == dc) {
			return a.DC == dc
		}
		if a.Rule.better(b.Rule) || b.Rule.better(a.Rule) {
			return a.Rule.better(b.Rule)
		}
		return a.Node < b.Node
	}
	for i := 1; i < len(sorted); i++ { // insertion sort: a handful of replicas
		for j := i; j > 0 && less(sorted[j], sorted[j-1]); j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	ci := -1
	for i, r := range sorted {
		if r.Rule != MustNot {
			ci = i
			break
		}
	}
	if ci < 0 {
		p.Why = "no replica to promote: none reachable that is not must_not"
		return p
	}
	cand := sorted[ci]
	var under []Candidate // repointed under the candidate, in node order
	for _, r := range pool {
		if r.Node == cand.Node {
			continue
		}
		if r.Position > cand.Position {
			p.Lost = append(p.Lost, r.Node)
		} else {
			under = append(under, r)
		}
	}
	// 2. The replacement.
	best := true
	for _, r := range under {
		if r.Rule.better(cand.Rule) {
			best = false
		}
	}
	ideal := cand.DC == dc && (cand.Rule == Must || cand.Rule == Prefer || (best && cand.Rule != MustNot))
	final := cand
	if !ideal {
		final = replacement(c, dc, cand, under)
	}
	// 3. The overrides.
	switch {
	case c.PreventCrossDataCenter && final.DC != dc:
		p.Why = fmt.Sprintf("PreventCrossDataCenterMasterFailover: will not promote a replica in %q when the failed master is in %q", final.DC, dc)
		return p
	case c.FailOnLag > 0 && final.Lag/time.Second*time.Second >= c.FailOnLag:
		p.Why = fmt.Sprintf("FailMasterPromotionOnLagMinutes: the candidate lags %v", final.Lag/time.Second*time.Second)
		return p
	case c.FailIfSQLThreadNotUpToDate && final.Unapplied > 0:
		p.Why = "FailMasterPromotionIfSQLThreadNotUpToDate: the candidate's SQL thread is not up to date"
		return p
	}
	if c.DelayIfSQLThreadNotUpToDate {
		p.Delay = final.Unapplied
	}
	p.Node = final.Node
	for _, r := range pool {
		if r.Node != final.Node && !contains(p.Lost, r.Node) {
			p.Repointed = append(p.Repointed, r.Node)
		}
	}
	return p
}

// replacement is SuggestReplacementForPromotedReplica (topology_recovery.go:633-794) for a
// promoted replica that is not ideal: under are the replicas now under it.
func replacement(c Config, dc string, promoted Candidate, under []Candidate) Candidate {
	geo := func(r Candidate) bool { return !c.PreventCrossDataCenter || r.DC == dc }
	candidate := func(r Rule) bool { return r == Must || r == Prefer }
	last := func(rs []Candidate, ok func(Candidate) bool) (Candidate, bool) {
		var out Candidate
		found := false
		for _, r := range rs {
			if ok(r) {
				out, found = r, true
			}
		}
		return out, found
	}
	takes := func(r Candidate) bool { return r.Valid && r.Rule != MustNot } // canTakeOverPromotedServerAsMaster (:1048-1059)
	if candidate(promoted.Rule) && promoted.DC == dc {
		return promoted // :642-651
	}
	if r, ok := last(under, func(r Candidate) bool { return candidate(r.Rule) && takes(r) && r.DC == dc }); ok {
		return r // :652-662
	}
	if candidate(promoted.Rule) && geo(promoted) {
		return promoted // :663-675
	}
	if r, ok := last(under, func(r Candidate) bool { return candidate(r.Rule) && takes(r) && r.DC == promoted.DC }); ok {
		return r // :676-686
	}
	if r, ok := last(under, func(r Candidate) bool { return candidate(r.Rule) && takes(r) && geo(r) }); ok {
		return r // :687-698
	}
	if !geo(promoted) || promoted.Rule == PreferNot { // :700-705: keep searching among the neutral
		for _, ok := range []func(Candidate) bool{
			func(r Candidate) bool { return r.DC == dc },          // :712-721
			func(r Candidate) bool { return r.DC == promoted.DC }, // :722-731
			geo, // :732-743
		} {
			if r, found := last(under, func(r Candidate) bool { return r.Rule == Neutral && takes(r) && ok(r) }); found {
				return r
			}
		}
	}
	return promoted
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
