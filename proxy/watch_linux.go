package proxy

import (
	"syscall"
	"unsafe"
)

// canWatch: the client's leaving can be seen without reading (watch.go).
const canWatch = true

// The poll(2) events peek asks for (linux/poll.h).
const (
	pollERR   = 0x0008
	pollHUP   = 0x0010
	pollRDHUP = 0x2000
)

// pollFd is struct pollfd.
type pollFd struct {
	fd      int32
	events  int16
	revents int16
}

// peek looks at the socket fd without taking a byte: one byte peeked without waiting tells a
// FIN (0 bytes), a reset (an error) and nothing yet (EAGAIN) apart; when bytes wait unread,
// poll's POLLRDHUP tells whether the peer's FIN is behind them.
func peek(fd uintptr) peer {
	var b [1]byte
	n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	switch {
	case err == syscall.EAGAIN || err == syscall.EINTR:
		return peerStays
	case err != nil:
		return peerReset
	case n == 0:
		return peerFIN
	}
	p := pollFd{fd: int32(fd), events: pollRDHUP}
	var now syscall.Timespec // a zero timeout: look, do not wait
	_, _, errno := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&p)), 1, uintptr(unsafe.Pointer(&now)), 0, 0, 0)
	switch {
	case errno != 0:
		return peerStays
	case p.revents&pollERR != 0:
		return peerReset
	case p.revents&(pollRDHUP|pollHUP) != 0:
		return peerFINAfterBytes
	}
	return peerStays
}
