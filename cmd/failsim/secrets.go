package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/spf13/cobra"

	"github.com/failsim/failsim/internal/input"
	"github.com/failsim/failsim/proxy"
)

// Where secrets come from when they are not on the command line, where every local user can
// read them in /proc.
const (
	// tokenEnv holds the control token when neither --control-token nor --control-token-file
	// is given.
	tokenEnv = "FAILSIM_CONTROL_TOKEN"
	// passwordEnv holds the password of replay --live's --mysql DSN when it has none.
	passwordEnv = "FAILSIM_PASSWORD"
)

// tokenFlagsUsage are the help texts of the token flags.
const (
	tokenUsage     = "`TOKEN` the control API requires; visible to every local user in /proc: prefer --control-token-file or " + tokenEnv
	tokenFileUsage = "read the control token from `FILE` (at most 4 KiB; surrounding whitespace ignored)"
)

// controlToken returns the control token from, first found: --control-token, the file of
// --control-token-file, the environment variable FAILSIM_CONTROL_TOKEN. found is false when
// none of them gives one.
func controlToken(ctx context.Context, c *cobra.Command, token, file string) (tok string, found bool, err error) {
	flags := c.Flags()
	clean := func(from, t string) (string, bool, error) {
		t, err := proxy.CleanToken(t)
		if err != nil {
			return "", false, usageErr(fmt.Errorf("%s: %w", from, err), "a token is one word: no whitespace or control character inside")
		}
		return t, t != "", nil
	}
	switch {
	case flags.Changed("control-token") && flags.Changed("control-token-file"):
		return "", false, usageErr(errors.New("give --control-token or --control-token-file, not both"), "")
	case flags.Changed("control-token"):
		return clean("--control-token", token)
	case flags.Changed("control-token-file"):
		data, err := input.ReadFile(ctx, file, "token file", input.TokenMax)
		if err != nil {
			return "", false, loadErr(ctx, "proxy", fmt.Errorf("--control-token-file: %w", err))
		}
		tok, found, err := clean("--control-token-file "+file, string(data))
		if err == nil && !found {
			return "", false, usageErr(fmt.Errorf("--control-token-file %s: no token in the file: want it on one line", file), "")
		}
		return tok, found, err
	}
	return clean(tokenEnv, os.Getenv(tokenEnv))
}

// passwordVar is the environment variable that holds a watched node's password when its DSN
// has none: FAILSIM_PASSWORD_ and the node's name upper-cased, every character other than A-Z
// and 0-9 turned into _ (db-1.east reads FAILSIM_PASSWORD_DB_1_EAST).
func passwordVar(node string) string {
	name := strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return r
		}
		return '_'
	}, strings.ToUpper(node))
	return passwordEnv + "_" + name
}

// withPassword returns dsn with the password from the environment variable env when the DSN
// has none (or an empty one) and env is set and not empty; otherwise dsn as it is. A DSN that
// does not parse is returned as it is, for the checker to report without quoting it.
func withPassword(dsn, env string) string {
	pw := os.Getenv(env)
	if pw == "" {
		return dsn
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil || cfg.Passwd != "" {
		return dsn
	}
	cfg.Passwd = pw
	return cfg.FormatDSN()
}
