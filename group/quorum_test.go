package group

import (
	"slices"
	"testing"
)

// TestCheck pins the quorum rule to exact values, case by case as ClusterMembershipDigest
// decides it, the consequences the reference states included: a partition whose side one short
// of the majority holds an active witness makes both sides primary.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		name                     string
		db, witnesses            Set
		self                     int
		view, validated          Set
		rule                     Rule
		majority, vdb, vw, coord int
	}{
		// 3 DB + 1 witness (db1 db2 db3 w1 = 0 1 2 3) split {db1, w1} | {db2, db3}: both primary.
		{"3+1 {db1 w1}", SetOf(0, 1, 2), SetOf(3), 0, SetOf(0, 3), SetOf(0, 3), WitnessTieBreak, 2, 1, 1, 0},
		{"3+1 {db2 db3}", SetOf(0, 1, 2), SetOf(3), 1, SetOf(1, 2), SetOf(1, 2), SimpleMajority, 2, 2, 0, 1},
		// 2 DB + 2 witnesses (db1 db2 w1 w2 = 0 1 2 3) split {db1, w1} | {db2, w2}: both primary.
		{"2+2 {db1 w1}", SetOf(0, 1), SetOf(2, 3), 0, SetOf(0, 2), SetOf(0, 2), WitnessTieBreak, 2, 1, 1, 0},
		{"2+2 {db2 w2}", SetOf(0, 1), SetOf(2, 3), 1, SetOf(1, 3), SetOf(1, 3), WitnessTieBreak, 2, 1, 1, 1},
		// 3 DB + 2 witnesses (db1 db2 db3 w1 w2 = 0..4) split {db1, w1} | {db2, db3, w2}: both primary.
		{"3+2 {db1 w1}", SetOf(0, 1, 2), SetOf(3, 4), 3, SetOf(0, 3), SetOf(0, 3), WitnessTieBreak, 2, 1, 1, 0},
		{"3+2 {db2 db3 w2}", SetOf(0, 1, 2), SetOf(3, 4), 4, SetOf(1, 2, 4), SetOf(1, 2, 4), SimpleMajority, 2, 2, 1, 1},
		// 4 DB + 1 witness split {db1 db2 w1} | {db3 db4}: the witness side only (majority 3).
		{"4+1 {db1 db2 w1}", SetOf(0, 1, 2, 3), SetOf(4), 0, SetOf(0, 1, 4), SetOf(0, 1, 4), WitnessTieBreak, 3, 2, 1, 0},
		{"4+1 {db3 db4}", SetOf(0, 1, 2, 3), SetOf(4), 2, SetOf(2, 3), SetOf(2, 3), OneShort, 3, 2, 0, -1},
		// 2 DB, no witness, the link lost: no primary anywhere.
		{"2+0 {db1}", SetOf(0, 1), 0, 0, SetOf(0), SetOf(0), OneShort, 2, 1, 0, -1},
		{"2+0 {db2}", SetOf(0, 1), 0, 1, SetOf(1), SetOf(1), OneShort, 2, 1, 0, -1},
		// 5 DB split 1 | 4: the one is further short.
		{"5+0 {db1}", SetOf(0, 1, 2, 3, 4), 0, 0, SetOf(0), SetOf(0), Minority, 3, 1, 0, -1},
		{"5+0 {db2..db5}", SetOf(0, 1, 2, 3, 4), 0, 1, SetOf(1, 2, 3, 4), SetOf(1, 2, 3, 4), SimpleMajority, 3, 4, 0, 1},
		// A single-member cluster: primary by the first rule.
		{"1+0", SetOf(0), 0, 0, SetOf(0), SetOf(0), SingleMember, 1, 1, 0, 0},
		// 1 DB + 1 witness: the database alone has the majority of 1; the witness alone has no
		// database member in its view.
		{"1+1 {db1}", SetOf(0), SetOf(1), 0, SetOf(0), SetOf(0), SimpleMajority, 1, 1, 0, 0},
		{"1+1 {w1}", SetOf(0), SetOf(1), 1, SetOf(1), SetOf(1), NoDBInView, 1, 0, 1, -1},
		// 1 DB + 2 witnesses: {w1 w2} would make up the majority of 1, but holds no database.
		{"1+2 {w1 w2}", SetOf(0), SetOf(1, 2), 1, SetOf(1, 2), SetOf(1, 2), NoDBInView, 1, 0, 2, -1},
		// Right after db1's link failed, before it leaves the views: no side is primary.
		{"3+0 invalid, db1's side", SetOf(0, 1, 2), 0, 0, SetOf(0, 1, 2), SetOf(0), InvalidMembership, 2, 1, 0, -1},
		{"3+0 invalid, db2's side", SetOf(0, 1, 2), 0, 1, SetOf(0, 1, 2), SetOf(1, 2), InvalidMembership, 2, 2, 0, -1},
		// db1's manager stopped cleanly and left at once: the rest keep the majority.
		{"3+0 db1 stopped", SetOf(0, 1, 2), 0, 2, SetOf(1, 2), SetOf(1, 2), SimpleMajority, 2, 2, 0, 1},
		// Two of three managers stopped: the last is one short.
		{"3+0 two stopped", SetOf(0, 1, 2), 0, 2, SetOf(2), SetOf(2), OneShort, 2, 1, 0, -1},
		// A witness coordinates when it comes first in cluster order.
		{"w1 first", SetOf(1, 2, 3), SetOf(0), 2, SetOf(0, 1, 2), SetOf(0, 1, 2), SimpleMajority, 2, 2, 1, 0},
	} {
		d := Check(c.self, c.db, c.witnesses, c.view, c.validated, 0)
		if d.Rule != c.rule || d.Majority != c.majority || d.ValidatedDB() != c.vdb || d.ValidatedWitnesses() != c.vw || d.Coordinator() != c.coord {
			t.Errorf("%s: %v majority %d db %d witnesses %d coordinator %d, want %v %d %d %d %d", c.name,
				d.Rule, d.Majority, d.ValidatedDB(), d.ValidatedWitnesses(), d.Coordinator(), c.rule, c.majority, c.vdb, c.vw, c.coord)
		}
		if d.Primary() != c.rule.Primary() || d.Primary() != (c.coord >= 0) {
			t.Errorf("%s: primary %v", c.name, d.Primary())
		}
	}
}

// TestCheckPanics: a manager that does not hear itself, or validated members outside the view,
// are a caller's bug.
func TestCheckPanics(t *testing.T) {
	db := SetOf(0, 1, 2)
	mustPanic(t, "self not in view", func() { Check(0, db, 0, SetOf(1, 2), SetOf(1, 2), 0) })
	mustPanic(t, "self not validated", func() { Check(0, db, 0, SetOf(0, 1), SetOf(1), 0) })
	mustPanic(t, "validated outside the view", func() { Check(0, db, 0, SetOf(0), SetOf(0, 1), 0) })
	mustPanic(t, "view outside the quorum set", func() { Check(0, db, 0, SetOf(0, 5), SetOf(0), 0) })
}

// TestLines pins the decision steps the manager logs, in the source's order and words.
func TestLines(t *testing.T) {
	names := []string{"db1", "db2", "db3", "w1"}
	db, w := SetOf(0, 1, 2), SetOf(3)
	for _, c := range []struct {
		name string
		d    Digest
		want []string
	}{
		{"witness side", Check(0, db, w, SetOf(0, 3), SetOf(0, 3), SetOf(0, 3)), []string{
			"CHECKING FOR QUORUM: MUST BE AT LEAST 2 DB MEMBERS OR 1 DB MEMBERS PLUS AT LEAST 1 ACTIVE WITNESS",
			"QUORUM SET MEMBERS ARE: db1, db2, db3, w1",
			"SIMPLE MAJORITY SIZE: 2",
			"GC VIEW OF CURRENT DB MEMBERS IS: db1",
			"VALIDATED DB MEMBERS ARE: db1",
			"REACHABLE DB MEMBERS ARE: db1",
			"GC VIEW OF CURRENT ACTIVE WITNESS MEMBERS IS: w1",
			"VALIDATED ACTIVE WITNESS MEMBERS ARE: w1",
			"REACHABLE ACTIVE WITNESS MEMBERS ARE: w1",
			"MEMBERSHIP IS VALID BASED ON VIEW/VALIDATED CONSOLIDATED MEMBERS CONSISTENCY",
			"CONCLUSION: I AM IN A PRIMARY PARTITION WITH 1 VALIDATED DB MEMBERS AND 1 VALIDATED ACTIVE WITNESSES",
		}},
		{"invalid membership", Check(1, db, 0, SetOf(0, 1, 2), SetOf(1, 2), SetOf(1, 2)), []string{
			"CHECKING FOR QUORUM: MUST BE AT LEAST 2 DB MEMBERS",
			"QUORUM SET MEMBERS ARE: db1, db2, db3",
			"SIMPLE MAJORITY SIZE: 2",
			"GC VIEW OF CURRENT DB MEMBERS IS: db1, db2, db3",
			"VALIDATED DB MEMBERS ARE: db2, db3",
			"REACHABLE DB MEMBERS ARE: db2, db3",
			"MEMBERSHIP IS NOT VALID: 3 MEMBERS APPEAR IN VIEW AND ONLY 2 CAN BE VALIDATED",
			"CONCLUSION: MEMBERSHIP IS INVALID",
		}},
		{"witness alone", Check(3, db, w, SetOf(3), SetOf(3), SetOf(0, 1, 2, 3)), []string{
			"CHECKING FOR QUORUM: MUST BE AT LEAST 2 DB MEMBERS OR 1 DB MEMBERS PLUS AT LEAST 1 ACTIVE WITNESS",
			"QUORUM SET MEMBERS ARE: db1, db2, db3, w1",
			"SIMPLE MAJORITY SIZE: 2",
			"GC VIEW OF CURRENT DB MEMBERS IS: ",
			"VALIDATED DB MEMBERS ARE: ",
			"REACHABLE DB MEMBERS ARE: db1, db2, db3",
			"GC VIEW OF CURRENT ACTIVE WITNESS MEMBERS IS: w1",
			"VALIDATED ACTIVE WITNESS MEMBERS ARE: w1",
			"REACHABLE ACTIVE WITNESS MEMBERS ARE: w1",
			"INVALID POTENTIAL QUORUM MEMBERS SET: GROUP COMMUNICATION VIEW CONTAINS NO MEMBERS",
			"(GROUP COMMUNICATIONS MAY BE MISCONFIGURED OR BLOCKED BY A FIREWALL)",
			"CONCLUSION: UNABLE TO ESTABLISH MAJORITY DUE TO INVALID POTENTIAL QUORUM MEMBERS SET",
		}},
	} {
		if got := c.d.Lines(names); !slices.Equal(got, c.want) {
			t.Errorf("%s:\n%q\nwant\n%q", c.name, got, c.want)
		}
	}
}

// TestConclusion pins every conclusion line with its counts.
func TestConclusion(t *testing.T) {
	db3, db2, w := SetOf(0, 1, 2), SetOf(0, 1), SetOf(3)
	for _, c := range []struct {
		d    Digest
		want string
	}{
		{Digest{}, "CONCLUSION: NO VIEW: THE MANAGER IS DOWN"},
		{Check(0, SetOf(0), 0, SetOf(0), SetOf(0), 0), "CONCLUSION: I AM IN A PRIMARY PARTITION AS THERE IS A SINGLE VALIDATED MEMBER IN THE QUORUM SET"},
		{Check(1, db3, 0, SetOf(1, 2), SetOf(1, 2), 0), "CONCLUSION: I AM IN A PRIMARY PARTITION OF 2 DB MEMBERS OUT OF THE REQUIRED MAJORITY OF 2"},
		{Check(0, db3, w, SetOf(0, 3), SetOf(0, 3), 0), "CONCLUSION: I AM IN A PRIMARY PARTITION WITH 1 VALIDATED DB MEMBERS AND 1 VALIDATED ACTIVE WITNESSES"},
		{Check(0, db2, 0, SetOf(0), SetOf(0), 0), "CONCLUSION: I AM IN A NON-PRIMARY PARTITION OF 1 MEMBERS OUT OF A REQUIRED MAJORITY SIZE OF 2 AND THERE ARE 0 REACHABLE WITNESSES OUT OF 0"},
		{Check(0, SetOf(0, 1, 2, 3, 4), 0, SetOf(0), SetOf(0), 0), "CONCLUSION: I AM IN A NON-PRIMARY PARTITION OF 1 MEMBERS OUT OF A REQUIRED MAJORITY SIZE OF 3"},
	} {
		if got := c.d.Conclusion(); got != c.want {
			t.Errorf("%v: %q, want %q", c.d.Rule, got, c.want)
		}
	}
	if got := Check(0, SetOf(0), w, SetOf(0), SetOf(0), 0).Checking(); got != "CHECKING FOR QUORUM: MUST BE AT LEAST 1 DB MEMBERS" {
		t.Errorf("majority 1 with a witness: %q", got)
	}
}

func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", name)
		}
	}()
	f()
}
