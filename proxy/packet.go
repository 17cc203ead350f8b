package proxy

import "encoding/binary"

// errPacket returns a whole MySQL ERR packet with sequence id seq: the error code, its SQL
// state and a message, as a server writes it.
func errPacket(seq byte, code uint16) []byte {
	state, msg := "HY000", "failsim proxy: injected error"
	switch code {
	case 1040:
		state, msg = "08004", "Too many connections"
	case 1045:
		state, msg = "28000", "Access denied for user (failsim proxy: injected error 1045)"
	}
	payload := make([]byte, 0, 9+len(msg))
	payload = append(payload, 0xff)
	payload = binary.LittleEndian.AppendUint16(payload, code)
	payload = append(payload, '#')
	payload = append(payload, state...)
	payload = append(payload, msg...)
	p := make([]byte, headerLen, headerLen+len(payload))
	p[0], p[1], p[2], p[3] = byte(len(payload)), byte(len(payload)>>8), byte(len(payload)>>16), seq
	return append(p, payload...)
}

// comQuit is the command byte of COM_QUIT: it passes through stall and error.
const comQuit = 0x01
