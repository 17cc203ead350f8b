package main

import (
	"testing"

	"github.com/go-sql-driver/mysql"
)

func TestPasswordVar(t *testing.T) {
	for node, want := range map[string]string{
		"db1": "FAILSIM_PASSWORD_DB1", "db-1.east": "FAILSIM_PASSWORD_DB_1_EAST", "Ünï": "FAILSIM_PASSWORD__N_",
	} {
		if got := passwordVar(node); got != want {
			t.Errorf("passwordVar(%q) = %q, want %q", node, got, want)
		}
	}
}

// A DSN without a password takes the environment's; one with a password keeps it; with the
// variable unset or empty the DSN stays as it is, passwordless.
func TestWithPassword(t *testing.T) {
	const env = "FAILSIM_PASSWORD_TEST"
	password := func(dsn string) string {
		cfg, err := mysql.ParseDSN(dsn)
		if err != nil {
			t.Fatalf("%q: %v", dsn, err)
		}
		return cfg.Passwd
	}
	t.Setenv(env, "s3cret")
	for dsn, want := range map[string]string{
		"probe@tcp(127.0.0.1:3306)/":                    "s3cret",
		"probe:@tcp(127.0.0.1:3306)/?readTimeout=1s":    "s3cret",
		"probe:mine@tcp(127.0.0.1:3306)/":               "mine",
		"probe@unix(/run/mysqld/mysqld.sock)/heartbeat": "s3cret",
	} {
		got := withPassword(dsn, env)
		if p := password(got); p != want {
			t.Errorf("withPassword(%q) = %q: password %q, want %q", dsn, got, p, want)
		}
	}
	if got := withPassword("probe@tcp(127.0.0.1:3306)/?readTimeout=1s", env); password(got) != "s3cret" {
		t.Errorf("lost its parameters or password: %q", got)
	} else if cfg, _ := mysql.ParseDSN(got); cfg.ReadTimeout.String() != "1s" || cfg.User != "probe" || cfg.Addr != "127.0.0.1:3306" {
		t.Errorf("the DSN changed beyond its password: %q", got)
	}
	// A DSN that does not parse is not touched: the checker reports it without quoting it.
	if got := withPassword("probe@tcp(127.0.0.1:3306", env); got != "probe@tcp(127.0.0.1:3306" {
		t.Errorf("a bad DSN became %q", got)
	}
	t.Setenv(env, "")
	if got := withPassword("probe@tcp(127.0.0.1:3306)/", env); got != "probe@tcp(127.0.0.1:3306)/" {
		t.Errorf("an empty variable changed the DSN to %q", got)
	}
}
