//go:build !linux

package proxy

import (
	"errors"
	"net"
)

type blackhole struct{}

func openBlackhole(*net.TCPAddr) (*blackhole, error) {
	return nil, errors.New("blackhole needs Linux (a full accept queue that drops SYNs)")
}

func (h *blackhole) close() {}
