package proxy

import "github.com/failsim/failsim/fault"

// heal is no fault: every byte passes, and every fault held before it lets go, byte-exact. It
// has no hooks, so its connections move the server's bytes by splice.
type heal struct{}

func (heal) kind() fault.Kind { return fault.Heal }
