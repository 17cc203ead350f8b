package proxy

import (
	"errors"
	"fmt"
	"net"
	"syscall"
	"time"
	"unsafe"
)

// fullQueue is a listening socket whose accept queue is full: Linux drops every new SYN, so a
// client's connect hangs until its own timeout. Nothing ever accepts from it.
//
// The queue is filled by connections of the socket's own (fillers), but it does not matter
// who fills it: under connection load, clients racing the fillers may take some of the slots
// (their connects complete, and are reset when the blackhole is lifted). So openFullQueue does
// not wait for its fillers to connect; it watches the queue's length (TCP_INFO on the
// listener) and is done as soon as the queue is full, whoever filled it.
type fullQueue struct {
	fd      int
	fillers []int // non-blocking sockets connecting to the blackhole; some may never complete
}

// holeBacklog is the full queue's listen backlog. Linux queues backlog+1 connections; with a
// backlog of 0 it would answer even the fillers with SYN cookies only, which fails under load.
const holeBacklog = 1

// holeFillTimeout bounds how long filling the queue may take. On loopback a filler's
// handshake completes within the connect call or a few scheduler ticks later; the bound only
// matters if the kernel drops the fillers' SYNs without the queue being full.
const holeFillTimeout = 5 * time.Second

// holeMaxFillers bounds the fillers started for one full queue.
const holeMaxFillers = 16

// openFullQueue binds addr with a tiny accept backlog and fills the queue.
func openFullQueue(addr *net.TCPAddr) (*fullQueue, error) {
	family, sa := sockaddr(addr)
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
	dial := addr
	if addr.IP == nil || addr.IP.IsUnspecified() {
		dial = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: addr.Port}
	}
	h := &fullQueue{fd: fd}
	if err := h.fill(dial, time.Now().Add(holeFillTimeout)); err != nil {
		h.Close()
		return nil, fmt.Errorf("blackhole fill %s: %w", addr, err)
	}
	return h, nil
}

// fill starts fillers until the accept queue is full, whoever completes the connections.
func (h *fullQueue) fill(dial *net.TCPAddr, deadline time.Time) error {
	pause := 100 * time.Microsecond
	for {
		queued, limit, err := acceptQueue(h.fd)
		if err != nil {
			return err
		}
		if queued > limit { // sk_acceptq_is_full: new SYNs are dropped from now on
			return nil
		}
		if pending := h.connecting(); int(queued)+pending <= int(limit) {
			if len(h.fillers) >= holeMaxFillers {
				return fmt.Errorf("%d fillers started, the accept queue holds %d of %d", len(h.fillers), queued, limit+1)
			}
			if err := h.startFiller(dial); err != nil {
				return err
			}
			continue
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the accept queue holds %d of %d after %v", queued, limit+1, holeFillTimeout)
		}
		time.Sleep(pause)
		pause = min(2*pause, 10*time.Millisecond)
	}
}

// startFiller begins a non-blocking connect to the full queue's socket.
func (h *fullQueue) startFiller(dial *net.TCPAddr) error {
	family, sa := sockaddr(dial)
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("filler socket: %w", err)
	}
	if err := syscall.Connect(fd, sa); err != nil && !errors.Is(err, syscall.EINPROGRESS) {
		syscall.Close(fd)
		return fmt.Errorf("filler connect: %w", err)
	}
	h.fillers = append(h.fillers, fd)
	return nil
}

// connecting counts the fillers whose handshake has not completed yet.
func (h *fullQueue) connecting() int {
	n := 0
	for _, fd := range h.fillers {
		if info, err := tcpInfo(fd); err == nil && info.State == tcpSynSent {
			n++
		}
	}
	return n
}

// Close releases the port; SYNs still queued by clients are answered by what binds next.
func (h *fullQueue) Close() error {
	for _, fd := range h.fillers {
		syscall.Close(fd)
	}
	return syscall.Close(h.fd)
}

// tcpSynSent is TCP_SYN_SENT in tcp_info's state.
const tcpSynSent = 2

// acceptQueue returns a listener's accept queue length and its backlog limit: on a listening
// socket Linux reports them in TCP_INFO's unacked and sacked fields. The queue is full (new
// SYNs are dropped) when queued > limit.
func acceptQueue(fd int) (queued, limit uint32, err error) {
	info, err := tcpInfo(fd)
	if err != nil {
		return 0, 0, err
	}
	return info.Unacked, info.Sacked, nil
}

// tcpInfo reads a socket's TCP_INFO.
func tcpInfo(fd int) (*syscall.TCPInfo, error) {
	var info syscall.TCPInfo
	size := uint32(unsafe.Sizeof(info))
	_, _, e := syscall.Syscall6(syscall.SYS_GETSOCKOPT, uintptr(fd), syscall.IPPROTO_TCP, syscall.TCP_INFO,
		uintptr(unsafe.Pointer(&info)), uintptr(unsafe.Pointer(&size)), 0)
	if e != 0 {
		return nil, fmt.Errorf("tcp_info: %w", e)
	}
	return &info, nil
}

// sockaddr converts addr for the socket calls.
func sockaddr(addr *net.TCPAddr) (int, syscall.Sockaddr) {
	if ip4 := addr.IP.To4(); ip4 != nil || addr.IP == nil {
		s := &syscall.SockaddrInet4{Port: addr.Port}
		copy(s.Addr[:], ip4)
		return syscall.AF_INET, s
	}
	s := &syscall.SockaddrInet6{Port: addr.Port}
	copy(s.Addr[:], addr.IP.To16())
	return syscall.AF_INET6, s
}
