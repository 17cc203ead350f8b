package proxy

import (
	"fmt"
	"net"
	"syscall"
	"time"
)

// blackhole is a listening socket whose accept queue is full: Linux drops every new SYN, so a
// client's connect hangs until its own timeout. It holds the queue full with connections of
// its own that are never accepted.
type blackhole struct {
	fd      int
	fillers []net.Conn
}

// holeBacklog is the blackhole's listen backlog. Linux queues backlog+1 connections; with a
// backlog of 0 it would answer even the fillers with SYN cookies only, which fails under load.
const holeBacklog = 1

// openBlackhole binds addr with a tiny accept backlog and fills the queue.
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
	if err := syscall.Listen(fd, holeBacklog); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("blackhole listen %s: %w", addr, err)
	}
	dial := addr.String()
	if addr.IP == nil || addr.IP.IsUnspecified() {
		dial = net.JoinHostPort("127.0.0.1", fmt.Sprint(addr.Port))
	}
	h := &blackhole{fd: fd}
	for range holeBacklog + 1 {
		filler, err := net.DialTimeout("tcp", dial, 5*time.Second)
		if err != nil {
			h.close()
			return nil, fmt.Errorf("blackhole fill %s: %w", addr, err)
		}
		h.fillers = append(h.fillers, filler)
	}
	return h, nil
}

// close releases the port; SYNs still queued by clients are answered by what binds next.
func (h *blackhole) close() {
	for _, f := range h.fillers {
		f.Close()
	}
	syscall.Close(h.fd)
}
