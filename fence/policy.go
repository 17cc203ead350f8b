package fence

import "fmt"

// Policy is the cluster's policy mode. The zero value is Automatic.
type Policy uint8

// The policy modes.
const (
	Automatic   Policy = iota // detect, fence, fail over, recover replicas
	Manual                    // detect and fence; no failover, no automatic recovery
	Maintenance               // states follow probes; no alarm is raised or ticked, nothing is fenced
	numPolicies
)

var policyNames = [numPolicies]string{"automatic", "manual", "maintenance"}

func (p Policy) String() string {
	if p < numPolicies {
		return policyNames[p]
	}
	return fmt.Sprintf("policy(%d)", uint8(p))
}

// ParsePolicy reads a policy name.
func ParsePolicy(s string) (Policy, bool) {
	for i, n := range policyNames {
		if n == s {
			return Policy(i), true
		}
	}
	return 0, false
}

// Role is a node's place in the cluster. The zero value is Replica.
type Role uint8

// The roles a node is configured with.
const (
	Replica Role = iota
	Master
)

func (r Role) String() string {
	if r == Master {
		return "master"
	}
	return "replica"
}

// ParseRole reads a configured role: master or replica.
func ParseRole(s string) (Role, bool) {
	switch s {
	case "master":
		return Master, true
	case "replica":
		return Replica, true
	}
	return 0, false
}
