package proxy

import (
	"fmt"
	"net"
	"syscall"
	"time"
)

// blackhole is a listening socket whose accept queue is full: Linux drops every new SYN, so a
// client's connect hangs until its own timeout. It holds the queue full with one connection
// of its own that is never accepted.
type blackhole struct {
	fd     int
	filler net.Conn
}

// openBlackhole binds addr with an accept backlog of zero and fills the queue.
func openBlackhole(addr *net.TCPAddr) (*blackhole, error) {
	var sa syscall.Sockaddr
	family := syscall.AF_INET
	if ip4 := addr.IP.To4(); ip4 != nil || addr.IP == nil {
		s := &syscall.SockaddrInet4{Port: addr.Port}
		copy(s.Addr[:], ip4)
		sa = s
	} else {
		family = syscall.AF_INET6
		s := &syscall.SockaddrInet6{Port: addr.Port}
		copy(s.Addr[:], addr.IP.To16())
		sa = s
	}
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("blackhole socket: %w", err)
	}
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("blackhole socket: %w", err)
	}
	if err := syscall.Bind(fd, sa); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("blackhole bind %s: %w", addr, err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("blackhole listen %s: %w", addr, err)
	}
	dial := addr.String()
	if addr.IP == nil || addr.IP.IsUnspecified() {
		dial = net.JoinHostPort("127.0.0.1", fmt.Sprint(addr.Port))
	}
	filler, err := net.DialTimeout("tcp", dial, 2*time.Second)
	if err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("blackhole fill %s: %w", addr, err)
	}
	return &blackhole{fd: fd, filler: filler}, nil
}

// close releases the port; SYNs still queued by clients are answered by what binds next.
func (h *blackhole) close() {
	h.filler.Close()
	syscall.Close(h.fd)
}
