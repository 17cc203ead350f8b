package orchestrator

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestActionOf(t *testing.T) {
	for _, tc := range []struct {
		c        Code
		graceful bool
		want     Action
	}{
		{DeadMaster, false, RecoverMaster},
		{DeadMasterAndSomeReplicas, false, RecoverMaster},
		{DeadMaster, true, Detect},
		{DeadMasterAndReplicas, false, Detect},
		{UnreachableMaster, false, Detect},
		{UnreachableMasterWithLaggingReplicas, false, Detect},
		{AllMasterReplicasNotReplicating, false, Detect},
		{LockedSemiSyncMaster, false, RegisterOnly},
		{LockedSemiSyncMasterHypothesis, false, Nothing},
		{DeadMasterWithoutReplicas, false, Nothing},
		{NoProblem, false, Nothing},
	} {
		if got := ActionOf(tc.c, tc.graceful); got != tc.want {
			t.Errorf("ActionOf(%s, %t) = %d, want %d", tc.c, tc.graceful, got, tc.want)
		}
	}
}

func TestAutomated(t *testing.T) {
	cl := Cluster{Name: "db1:3306", Alias: "shop"}
	for _, tc := range []struct {
		f    []string
		want bool
	}{
		{nil, false},
		{[]string{"*"}, true},
		{[]string{"db1:3306"}, true},
		{[]string{"shop"}, true},
		{[]string{"alias=shop"}, true},
		{[]string{"alias=other"}, false},
		{[]string{"alias~=^sh"}, true},
		{[]string{"alias~=^x"}, false},
		{[]string{"^db1"}, true},
		{[]string{"^db2"}, false},
		{[]string{""}, false},
		{[]string{"("}, false}, // not a regexp: matches nothing
		{[]string{"^x", "db"}, true},
	} {
		if got := Automated(tc.f, cl); got != tc.want {
			t.Errorf("Automated(%q) = %t, want %t", tc.f, got, tc.want)
		}
	}
}

func TestUnblocked(t *testing.T) {
	c := Defaults()
	if got := Unblocked(c, 100*s); got != 3701*s {
		t.Errorf("Unblocked(100s) = %v, want 3701s (cleared once more than 3600 s old)", got)
	}
	c.RecoveryPeriodBlock = 0
	if got := Unblocked(c, 100*s); got != 101*s {
		t.Errorf("no block: %v, want the next tick", got)
	}
}

func TestDecide(t *testing.T) {
	c := Defaults()
	on := Defaults()
	on.RecoverMasterClusterFilters = []string{"*"}
	cl := Cluster{Name: "db1"}
	dead := Analysis{Code: DeadMaster, Replicas: 2, ValidReplicas: 2}
	for _, tc := range []struct {
		name     string
		c        Config
		a        Analysis
		now      time.Duration
		recent   Recent
		graceful bool
		want     Verdict
	}{
		{"the default filters recover nothing", c, dead, 10 * s, Recent{}, false, NoFilter},
		{"with *", on, dead, 10 * s, Recent{}, false, Runs},
		{"unreachable starts none", on, Analysis{Code: UnreachableMaster}, 10 * s, Recent{}, false, NotActed},
		{"downtimed", on, Analysis{Code: DeadMaster, SkippableDueToDowntime: true}, 10 * s, Recent{}, false, Downtimed},
		{"blocked an hour after the last", on, dead, 3700 * s, Recent{Started: 100 * s, Any: true}, false, BlockedBy},
		{"free after", on, dead, 3701 * s, Recent{Started: 100 * s, Any: true}, false, Runs},
		{"graceful", on, dead, 10 * s, Recent{}, true, NotActed},
		{"locked semisync registers without filters", c, Analysis{Code: LockedSemiSyncMaster}, 10 * s, Recent{}, false, Runs},
	} {
		if got := Decide(tc.c, cl, tc.a, tc.now, tc.recent, tc.graceful); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func showPromotion(p Promotion) string {
	if p.Node < 0 {
		return fmt.Sprintf("none (%s) lost %v", p.Why, p.Lost)
	}
	return fmt.Sprintf("db%d delay %v repointed %v lost %v", p.Node+1, p.Delay, p.Repointed, p.Lost)
}

func cand(node int, pos int64, r Rule, dc string) Candidate {
	return Candidate{Node: node, Valid: true, Position: pos, Rule: r, DC: dc}
}

// TestPromote pins the candidate choice with exact outcomes (nodes named db1.. as node+1).
func TestPromote(t *testing.T) {
	c := Defaults()
	prevent := Defaults()
	prevent.PreventCrossDataCenter = true
	for _, tc := range []struct {
		name string
		c    Config
		rs   []Candidate
		want string
	}{
		{"most up to date wins", c, []Candidate{cand(1, 10, Neutral, ""), cand(2, 12, Neutral, "")}, "db3 delay 0s repointed [1] lost []"},
		{"a tie goes to the lower node", c, []Candidate{cand(1, 10, Neutral, ""), cand(2, 10, Neutral, "")}, "db2 delay 0s repointed [2] lost []"},
		{"a tie goes to the better rule", c, []Candidate{cand(1, 10, PreferNot, ""), cand(2, 10, Neutral, "")}, "db3 delay 0s repointed [1] lost []"},
		{"a tie goes to the master's data centre first", c, []Candidate{cand(1, 10, Prefer, "b"), cand(2, 10, Neutral, "a")}, "db2 delay 0s repointed [2] lost []"},
		{"must_not is never promoted; the ahead one is lost", c, []Candidate{cand(1, 12, MustNot, "a"), cand(2, 10, Neutral, "a")}, "db3 delay 0s repointed [] lost [1]"},
		{"all must_not: none", c, []Candidate{cand(1, 12, MustNot, "")}, "none (no replica to promote: none reachable that is not must_not) lost []"},
		{"unreachable replicas are lost", c, []Candidate{{Node: 1, Position: 20}, cand(2, 10, Neutral, "")}, "db3 delay 0s repointed [] lost [1]"},
		{"a prefer replica behind takes over from a neutral one", c, []Candidate{cand(1, 12, Neutral, "a"), cand(2, 10, Prefer, "a")}, "db3 delay 0s repointed [1] lost []"},
		{"a prefer_not one is replaced by a neutral one", c, []Candidate{cand(1, 12, PreferNot, "a"), cand(2, 10, Neutral, "a"), cand(3, 9, Neutral, "a")}, "db4 delay 0s repointed [1 2] lost []"},
		{"prefer_not alone stays", c, []Candidate{cand(1, 12, PreferNot, "a")}, "db2 delay 0s repointed [] lost []"},
		{"cross-DC prevented", prevent, []Candidate{cand(1, 12, Neutral, "b")}, "none (PreventCrossDataCenterMasterFailover: will not promote a replica in \"b\" when the failed master is in \"a\") lost []"},
		{"cross-DC prevented: a neutral one in the master's DC replaces it", prevent, []Candidate{cand(1, 12, Neutral, "b"), cand(2, 10, Neutral, "a")}, "db3 delay 0s repointed [1] lost []"},
	} {
		if got := showPromotion(Promote(tc.c, "a", tc.rs)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

func TestPromoteOverrides(t *testing.T) {
	lagging := Candidate{Node: 1, Valid: true, Position: 10, Lag: 61 * s, Unapplied: 3 * s}
	c := Defaults()
	c.FailOnLag, c.ReplicationLagQuery = time.Minute, "q"
	if p := Promote(c, "", []Candidate{lagging}); p.Node != -1 || !strings.Contains(p.Why, "FailMasterPromotionOnLagMinutes") {
		t.Errorf("lag over a minute: %s", showPromotion(p))
	}
	lagging.Lag = 59 * s
	if p := Promote(c, "", []Candidate{lagging}); p.Node != 1 {
		t.Errorf("lag under a minute: %s", showPromotion(p))
	}
	c = Defaults()
	c.FailIfSQLThreadNotUpToDate = true
	if p := Promote(c, "", []Candidate{lagging}); p.Node != -1 || !strings.Contains(p.Why, "SQLThreadNotUpToDate") {
		t.Errorf("fail if not up to date: %s", showPromotion(p))
	}
	c = Defaults()
	c.DelayIfSQLThreadNotUpToDate = true
	if p := Promote(c, "", []Candidate{lagging}); p.Node != 1 || p.Delay != 3*s {
		t.Errorf("delay until up to date: %s", showPromotion(p))
	}
	if p := Promote(Defaults(), "", []Candidate{lagging}); p.Delay != 0 {
		t.Errorf("no delay by default: %s", showPromotion(p))
	}
}

func TestParseRule(t *testing.T) {
	for _, r := range []Rule{Neutral, Must, Prefer, PreferNot, MustNot} {
		if got, ok := ParseRule(r.String()); !ok || got != r {
			t.Errorf("ParseRule(%s) = %v %t", r, got, ok)
		}
	}
	if _, ok := ParseRule("maybe"); ok {
		t.Error("maybe parsed")
	}
}
