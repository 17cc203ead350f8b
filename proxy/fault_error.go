package proxy

import "github.com/failsim/failsim/fault"

// errorFault answers in the server's place with a MySQL ERR packet. Unarmed, error 1045
// refuses the login once the client sends it (the server never sees it) and any other code
// replaces the greeting; both then close with FIN. Armed by a trigger, it answers every
// command from then on (the server never sees the command; COM_QUIT passes).
type errorFault struct {
	code  uint16 // fault.Fault.Code
	armed bool   // the mode has a trigger
}

func (errorFault) kind() fault.Kind { return fault.Error }

// connect sends the ERR instead of the greeting; 1045 waits for the login.
func (e errorFault) connect(c *conn) verdict {
	if e.code == 1045 {
		return pass
	}
	c.injected(fault.Error)
	c.client.Write(errPacket(0, e.code))
	c.closeFIN()
	return stop
}

// login refuses the login with ERR 1045, as the server would, and ends the client's stream.
func (e errorFault) login(c *conn, st packetStart) verdict {
	if e.armed || e.code != 1045 {
		return pass
	}
	c.injected(fault.Error)
	c.client.Write(errPacket(st.seq+1, 1045))
	c.client.CloseWrite() // the server refused the login and closes
	return drop
}

// command answers a command with the ERR, once the trigger has fired.
func (e errorFault) command(c *conn, st packetStart) verdict {
	if !e.armed || st.cmd == comQuit {
		return pass
	}
	c.injected(fault.Error)
	if _, err := c.client.Write(errPacket(st.seq+1, e.code)); err != nil {
		return stop
	}
	return drop
}
