package orchlive_test

import (
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
)

// remoteAddrs returns the remote addresses of process pid's TCP sockets (IPv4 and IPv6), read
// from /proc: its descriptors' socket inodes matched to the rows of /proc/PID/net/tcp{,6}. ok is
// false where /proc cannot tell (not Linux).
func remoteAddrs(pid int) (addrs []net.IP, ok bool, err error) {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return nil, false, nil
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		l, err := os.Readlink(filepath.Join(fmt.Sprintf("/proc/%d/fd", pid), fd.Name()))
		if err == nil && strings.HasPrefix(l, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	for _, table := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			return nil, false, nil
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 || !inodes[f[9]] {
				continue
			}
			ip, err := procIP(strings.Split(f[2], ":")[0])
			if err != nil {
				return nil, true, fmt.Errorf("/proc/%d/net/%s: %q: %v", pid, table, f[2], err)
			}
			addrs = append(addrs, ip)
		}
	}
	return addrs, true, nil
}

// procIP decodes /proc/net/tcp's address: 4-byte words in host (little-endian) order.
func procIP(h string) (net.IP, error) {
	b, err := hex.DecodeString(h)
	if err != nil || (len(b) != 4 && len(b) != 16) {
		return nil, fmt.Errorf("not an address")
	}
	for i := 0; i < len(b); i += 4 {
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	return net.IP(b), nil
}
