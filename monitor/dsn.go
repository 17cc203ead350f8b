package monitor

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// The DSN checks. A go-sql-driver/mysql DSN holds the password: no error here quotes any part
// of it (ParseDSN's own messages quote none either). They name no flag: the command that took
// the DSN adds its own.

// parseDSN reads the DSN of a server to probe: over tcp (tcp4, tcp6) or a unix socket.
func parseDSN(dsn string) (*mysql.Config, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("bad DSN: %w", err)
	}
	if cfg.Net != "tcp" && cfg.Net != "tcp4" && cfg.Net != "tcp6" && cfg.Net != "unix" {
		return nil, fmt.Errorf("bad DSN: network %q: want tcp or unix", cfg.Net)
	}
	if err := checkAddr(dsn, cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// checkAddr refuses a DSN that names no server (the driver would quietly use 127.0.0.1:3306:
// an empty DSN probes whatever listens there) and a tcp address whose port cannot be one.
func checkAddr(dsn string, cfg *mysql.Config) error {
	if strings.TrimSpace(dsn) == "" {
		return fmt.Errorf("bad DSN: it is empty: want USER@tcp(HOST:PORT)/")
	}
	if !strings.Contains(dsn, cfg.Net+"(") {
		return fmt.Errorf("bad DSN: it names no server address: want USER@%s(ADDRESS)/", cfg.Net)
	}
	if cfg.Net == "unix" {
		return nil
	}
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return fmt.Errorf("bad DSN: address %q: want HOST:PORT", cfg.Addr)
	}
	if host == "" {
		return fmt.Errorf("bad DSN: address %q: no host", cfg.Addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("bad DSN: address %q: port %q: want 1 to 65535", cfg.Addr, port)
	}
	return nil
}

// ProxyDSN reads the DSN of the server a live replay's proxies forward to, which must be a tcp
// DSN: each proxy dials the server's address. LiveReplay checks its DSN with it; a command
// checks its flag's value with it before it starts anything.
func ProxyDSN(dsn string) (*mysql.Config, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("bad DSN: %w", err)
	}
	if cfg.Net != "tcp" {
		return nil, fmt.Errorf("network %q: the proxies need a tcp DSN", cfg.Net)
	}
	if err := checkAddr(dsn, cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}
