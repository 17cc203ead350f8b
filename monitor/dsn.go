package monitor

import (
	"fmt"

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
	return cfg, nil
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
	return cfg, nil
}
