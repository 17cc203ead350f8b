package group

import "fmt"

// Checking is the first line the manager logs for a quorum check: what it must see.
func (d Digest) Checking() string {
	if d.Witnesses == 0 || d.Majority <= 1 {
		// The source prints a trailing space after "DB MEMBERS" with witnesses and a majority
		// of 1; it is left out here.
		return fmt.Sprintf("CHECKING FOR QUORUM: MUST BE AT LEAST %d DB MEMBERS", d.Majority)
	}
	return fmt.Sprintf("CHECKING FOR QUORUM: MUST BE AT LEAST %d DB MEMBERS OR %d DB MEMBERS PLUS AT LEAST 1 ACTIVE WITNESS",
		d.Majority, d.Majority-1)
}

// Conclusion is the line the manager logs last: "CONCLUSION: I AM IN A PRIMARY PARTITION ..."
// or why not, with its counts. The source's two-line non-primary conclusion (one short, no
// passive witness) is one line here, its parts separated by a space.
func (d Digest) Conclusion() string {
	switch d.Rule {
	case NoView:
		return "CONCLUSION: NO VIEW: THE MANAGER IS DOWN"
	case NoDBInView:
		return "CONCLUSION: UNABLE TO ESTABLISH MAJORITY DUE TO INVALID POTENTIAL QUORUM MEMBERS SET"
	case InvalidMembership:
		return "CONCLUSION: MEMBERSHIP IS INVALID"
	case SingleMember:
		return "CONCLUSION: I AM IN A PRIMARY PARTITION AS THERE IS A SINGLE VALIDATED MEMBER IN THE QUORUM SET"
	case SimpleMajority:
		return fmt.Sprintf("CONCLUSION: I AM IN A PRIMARY PARTITION OF %d DB MEMBERS OUT OF THE REQUIRED MAJORITY OF %d",
			d.ValidatedDB(), d.Majority)
	case WitnessTieBreak:
		return fmt.Sprintf("CONCLUSION: I AM IN A PRIMARY PARTITION WITH %d VALIDATED DB MEMBERS AND %d VALIDATED ACTIVE WITNESSES",
			d.ValidatedDB(), d.ValidatedWitnesses())
	case OneShort:
		// Passive witnesses were removed in 6.2: this model has none, so 0 out of 0.
		return fmt.Sprintf("CONCLUSION: I AM IN A NON-PRIMARY PARTITION OF %d MEMBERS OUT OF A REQUIRED MAJORITY SIZE OF %d AND THERE ARE 0 REACHABLE WITNESSES OUT OF 0",
			d.ValidatedDB(), d.Majority)
	case Minority:
		return fmt.Sprintf("CONCLUSION: I AM IN A NON-PRIMARY PARTITION OF %d MEMBERS OUT OF A REQUIRED MAJORITY SIZE OF %d",
			d.ValidatedDB(), d.Majority)
	}
	panic(fmt.Sprintf("group: Conclusion of %v", d.Rule))
}

// Lines are the decision steps the manager logs for this check, in the source's order (its
// "=====" rulers left out), members named from names (indexed like Config.Members) in
// cluster order, where the source lists them in hash or view order. One departure: the source
// prints the view's database members after "GC VIEW OF CURRENT ACTIVE WITNESS MEMBERS IS:";
// here it is the view's witnesses.
func (d Digest) Lines(names []string) []string {
	if d.Rule == NoView {
		return []string{d.Conclusion()}
	}
	list := func(s Set) string { return s.Names(names, ", ") }
	out := []string{
		d.Checking(),
		"QUORUM SET MEMBERS ARE: " + list(d.DB|d.Witnesses),
		fmt.Sprintf("SIMPLE MAJORITY SIZE: %d", d.Majority),
		"GC VIEW OF CURRENT DB MEMBERS IS: " + list(d.View&d.DB),
		"VALIDATED DB MEMBERS ARE: " + list(d.Validated&d.DB),
		"REACHABLE DB MEMBERS ARE: " + list(d.Reachable&d.DB),
	}
	if d.Witnesses != 0 {
		out = append(out,
			"GC VIEW OF CURRENT ACTIVE WITNESS MEMBERS IS: "+list(d.View&d.Witnesses),
			"VALIDATED ACTIVE WITNESS MEMBERS ARE: "+list(d.Validated&d.Witnesses),
			"REACHABLE ACTIVE WITNESS MEMBERS ARE: "+list(d.Reachable&d.Witnesses))
	}
	switch d.Rule {
	case NoDBInView:
		out = append(out,
			"INVALID POTENTIAL QUORUM MEMBERS SET: GROUP COMMUNICATION VIEW CONTAINS NO MEMBERS",
			"(GROUP COMMUNICATIONS MAY BE MISCONFIGURED OR BLOCKED BY A FIREWALL)")
	case InvalidMembership:
		out = append(out, fmt.Sprintf("MEMBERSHIP IS NOT VALID: %d MEMBERS APPEAR IN VIEW AND ONLY %d CAN BE VALIDATED",
			d.View.Len(), d.Validated.Len()))
	default:
		out = append(out, "MEMBERSHIP IS VALID BASED ON VIEW/VALIDATED CONSOLIDATED MEMBERS CONSISTENCY")
	}
	return append(out, d.Conclusion())
}
