package proxy

import "github.com/failsim/failsim/fault"

// stall lets TCP and the login through and holds every command before it reaches the server,
// so its reply never comes: the storage-hang case. COM_QUIT passes, so a client can leave.
type stall struct{}

func (stall) kind() fault.Kind { return fault.Stall }

// command holds a command until the mode changes.
func (stall) command(_ *conn, st packetStart) verdict {
	if st.cmd == comQuit {
		return pass
	}
	return hold
}
