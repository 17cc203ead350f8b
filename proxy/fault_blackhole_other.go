//go:build !linux

package proxy

import (
	"errors"
	"net"
)

// fullQueue stands for the Linux socket whose full accept queue drops SYNs.
type fullQueue struct{}

// openFullQueue fails: only Linux drops the SYNs of a full accept queue.
func openFullQueue(*net.TCPAddr) (*fullQueue, error) {
	return nil, errors.New("blackhole needs Linux (a full accept queue that drops SYNs)")
}

// Close does nothing.
func (h *fullQueue) Close() error { return nil }
