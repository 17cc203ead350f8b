package group

import "fmt"

// Rule is the check of the quorum rule that concluded a manager's quorum check, in the order
// the manager's ClusterMembershipDigest.isInPrimaryPartition makes them. The zero value is
// NoView: the manager is down and checks nothing.
type Rule uint8

const (
	// NoView: the manager is down; it has no view and is in no partition.
	NoView Rule = iota
	// NoDBInView: the view holds no database member ("INVALID POTENTIAL QUORUM MEMBERS SET:
	// GROUP COMMUNICATION VIEW CONTAINS NO MEMBERS"): a witness alone, or witnesses only.
	// Not primary.
	NoDBInView
	// InvalidMembership: some member of the view does not answer the manager's
	// group-communication ping ("MEMBERSHIP IS NOT VALID"): right after a member fell silent,
	// before it leaves the view. Not primary.
	InvalidMembership
	// SingleMember: the quorum set is this one database member ("A SINGLE VALIDATED MEMBER IN
	// THE QUORUM SET"): a cluster of one node and no witness. Primary.
	SingleMember
	// SimpleMajority: the validated database members reach the simple majority. Primary.
	SimpleMajority
	// WitnessTieBreak: the validated database members are one short of the simple majority
	// and validated active witnesses make up the difference. Primary.
	WitnessTieBreak
	// OneShort: one short of the simple majority with no validated witness to make it up.
	// Not primary.
	OneShort
	// Minority: further short of the simple majority. Not primary.
	Minority
)

var ruleNames = [...]string{
	NoView: "no-view", NoDBInView: "no-db-in-view", InvalidMembership: "invalid-membership",
	SingleMember: "single-member", SimpleMajority: "simple-majority", WitnessTieBreak: "witness-tie-break",
	OneShort: "one-short", Minority: "minority",
}

// String is the rule's stable name, such as "simple-majority".
func (r Rule) String() string {
	if int(r) < len(ruleNames) {
		return ruleNames[r]
	}
	return fmt.Sprintf("rule(%d)", uint8(r))
}

// Primary reports whether the rule concludes a primary partition.
func (r Rule) Primary() bool { return r == SingleMember || r == SimpleMajority || r == WitnessTieBreak }

// Digest is one manager's quorum check: what it saw and what it concluded, the counts its
// log prints. Sets name members by index. The zero value is a manager that is down (NoView).
type Digest struct {
	Manager   int // the manager that checked
	DB        Set // the configured database members
	Witnesses Set // the configured active witnesses; DB|Witnesses is the quorum set
	View      Set // its group-communication view: database members and witnesses
	Validated Set // the members of View that answered its group-communication ping
	Reachable Set // the members whose hosts answered its host ping (logged, decides nothing)
	Majority  int // the simple majority size: database members / 2 + 1
	Rule      Rule
}

// Primary reports whether the manager is in a primary partition.
func (d Digest) Primary() bool { return d.Rule.Primary() }

// ValidatedDB is the number of validated database members.
func (d Digest) ValidatedDB() int { return (d.Validated & d.DB).Len() }

// ValidatedWitnesses is the number of validated active witnesses.
func (d Digest) ValidatedWitnesses() int { return (d.Validated & d.Witnesses).Len() }

// Coordinator is the coordinator of a primary view, its first member in cluster order, or -1
// when the view is not primary.
func (d Digest) Coordinator() int {
	if !d.Primary() {
		return -1
	}
	return d.View.First()
}

// Check is the quorum rule exactly as the manager's ClusterMembershipDigest decides it, for
// manager self with group-communication view view, of which validated answered its
// group-communication ping, and reachable answered its host ping. db and witnesses are the
// configured members; every view member is configured in this model, so the quorum set is
// db|witnesses and the simple majority is db.Len()/2+1, witnesses never counting towards it.
// The checks, in the source's order, the first that applies concluding:
//
//  1. the view holds no database member: not primary (an invalid potential quorum set);
//  2. some view member is not validated: not primary (invalid membership);
//  3. the quorum set is one member and it is validated: primary;
//  4. the validated database members reach the simple majority: primary;
//  5. they are one short of it: primary if they and the validated active witnesses reach it,
//     else not;
//  6. otherwise not primary.
//
// self must be in view and in validated (a live manager hears itself); validated must be
// within view; anything else panics.
// Majority is the simple majority of n database members, n/2+1: the one place failsim counts
// it (the quorum check, the group's state a run reports, and whether a manager that stops
// leaves one up).
func Majority(n int) int { return n/2 + 1 }

func Check(self int, db, witnesses, view, validated, reachable Set) Digest {
	if !view.Has(self) || !validated.Has(self) || validated&^view != 0 || view&^(db|witnesses) != 0 {
		panic(fmt.Sprintf("group: Check(%d) of view %v validated %v", self, view, validated))
	}
	d := Digest{Manager: self, DB: db, Witnesses: witnesses, View: view, Validated: validated,
		Reachable: reachable, Majority: Majority(db.Len())}
	vdb := d.ValidatedDB()
	switch {
	case view&db == 0:
		d.Rule = NoDBInView
	case validated != view:
		d.Rule = InvalidMembership
	case (db|witnesses).Len() == 1 && vdb == 1:
		d.Rule = SingleMember
	case vdb >= d.Majority:
		d.Rule = SimpleMajority
	case vdb == d.Majority-1 && vdb+d.ValidatedWitnesses() >= d.Majority:
		d.Rule = WitnessTieBreak
	case vdb == d.Majority-1:
		d.Rule = OneShort
	default:
		d.Rule = Minority
	}
	return d
}
