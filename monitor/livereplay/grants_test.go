package livereplay

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/failsim/failsim/internal/liveservers"
	"github.com/failsim/failsim/timeline"
)

// missing reads SHOW GRANTS lines as MariaDB writes them: global, database and table grants,
// ALL PRIVILEGES, column lists, a role's grants, and lines that grant no privilege.
func TestMissingGrants(t *testing.T) {
	for _, c := range []struct {
		name   string
		grants []string
		need   []privilege
		want   []privilege
	}{
		{"table", []string{"GRANT USAGE ON *.* TO `w`@`%` IDENTIFIED BY PASSWORD '*D8'", "GRANT INSERT ON `failsim`.`ledger` TO `w`@`%`"}, writerNeeds, nil},
		{"database", []string{"GRANT INSERT, SELECT ON `failsim`.* TO `w`@`%`"}, writerNeeds, nil},
		{"all", []string{"GRANT ALL PRIVILEGES ON *.* TO `w`@`%` WITH GRANT OPTION"}, append(slices.Clone(adminNeeds), writerNeeds...), nil},
		{"column", []string{"GRANT INSERT (`id`, `x`), SELECT ON `failsim`.`ledger` TO `w`@`%`"}, writerNeeds, nil},
		{"usage only", []string{"GRANT USAGE ON *.* TO `w`@`%`"}, writerNeeds, writerNeeds},
		{"another table", []string{"GRANT INSERT ON `failsim`.`other` TO `w`@`%`", "GRANT INSERT ON `other`.* TO `w`@`%`"}, writerNeeds, writerNeeds},
		{"a role's", []string{"GRANT `r1` TO `a`@`%`", "GRANT USAGE ON *.* TO `a`@`%`",
			"GRANT RELOAD, READ_ONLY ADMIN, REPLICATION SLAVE ADMIN, SLAVE MONITOR ON *.* TO `r1`", "SET DEFAULT ROLE `r1` FOR `a`@`%`"}, adminNeeds, nil},
		{"admin on a database is not global", []string{"GRANT RELOAD, READ_ONLY ADMIN, SLAVE MONITOR ON *.* TO `a`@`%`", "GRANT ALL PRIVILEGES ON `failsim`.* TO `a`@`%`"},
			adminNeeds, []privilege{{"REPLICATION SLAVE ADMIN", "*", "*"}}},
		{"proxy and a routine", []string{"GRANT PROXY ON ''@'%' TO 'a'@'%'", "GRANT EXECUTE ON PROCEDURE `failsim`.`p` TO `a`@`%`"}, writerNeeds, writerNeeds},
	} {
		if got := missing(c.grants, c.need); !slices.Equal(got, c.want) {
			t.Errorf("%s: missing %v, want %v", c.name, got, c.want)
		}
	}
}

// The preflight of a live replay with a workload checks the grants, not only the logins, on a
// real MariaDB: a --writer without INSERT on the ledger, an --admin without RELOAD (and,
// under semisync, REPLICATION MASTER ADMIN) are refused before the run, naming the user, the
// node and the privilege. Both nodes are the one server here: the run never starts.
func TestReplayReplChecksGrants(t *testing.T) {
	s := liveservers.MariaDB(t)
	root, err := s.Root()
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS failsim", "CREATE TABLE IF NOT EXISTS failsim.ledger (id BIGINT PRIMARY KEY)",
		"CREATE USER IF NOT EXISTS 'g_writer'@'%' IDENTIFIED BY 'pw-w'", "GRANT SELECT ON failsim.ledger TO 'g_writer'@'%'",
		"CREATE USER IF NOT EXISTS 'g_admin'@'%' IDENTIFIED BY 'pw-a'",
		"GRANT REPLICATION SLAVE ADMIN, REPLICA MONITOR, READ_ONLY ADMIN ON *.* TO 'g_admin'@'%'",
		"CREATE USER IF NOT EXISTS 'g_fulladmin'@'%' IDENTIFIED BY 'pw-a'",
		"GRANT REPLICATION SLAVE ADMIN, RELOAD, REPLICA MONITOR, READ_ONLY ADMIN ON *.* TO 'g_fulladmin'@'%'",
		"CREATE USER IF NOT EXISTS 'g_goodwriter'@'%' IDENTIFIED BY 'pw-w'", "GRANT INSERT ON failsim.ledger TO 'g_goodwriter'@'%'",
	} {
		if _, err := root.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	run := func(src, admin, writer string) error {
		tl, err := timeline.Parse("g.timeline", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		bases, err := ReplServers(tl.Names(), []string{s.DSN(""), s.DSN("")})
		if err != nil {
			t.Fatal(err)
		}
		_, err = ReplayRepl(ctx, ReplayReplConfig{Timeline: tl, Servers: bases, Log: zerolog.Nop(),
			Admin:  ReplUser{Name: admin, Password: "pw-a"},
			Writer: ReplUser{Name: writer, Password: "pw-w"},
			Ready:  func() { t.Error("the run started") }})
		return err
	}
	async := "cluster db1:master db2:replica\nworkload writes=5/s\n00:00:01 db1 refuse\n00:00:10 cluster end\n"
	semi := "cluster db1:master db2:replica\nworkload writes=5/s\nreplication semisync timeout=1s\n00:00:01 db1 refuse\n00:00:10 cluster end\n"
	for _, c := range []struct {
		src, admin, writer, want string
		field                    Field
		user                     string
	}{
		{async, "g_fulladmin", "g_writer", "writer g_writer on db1 (" + s.Addr + ") lacks INSERT ON failsim.ledger", FieldWriter, "g_writer"},
		{async, "g_admin", "g_goodwriter", "admin g_admin on db1 (" + s.Addr + ") lacks RELOAD ON *.*", FieldAdmin, "g_admin"},
		{semi, "g_fulladmin", "g_goodwriter", "admin g_fulladmin on db1 (" + s.Addr + ") lacks REPLICATION MASTER ADMIN ON *.*", FieldAdmin, "g_fulladmin"},
	} {
		err := run(c.src, c.admin, c.writer)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Error() != c.want || ie.Check != CheckLacks || ie.Field != c.field || ie.Node != "db1" || ie.User != c.user || ie.Addr != s.Addr {
			t.Errorf("%s/%s: %v (%#v), want the InputError %q of CheckLacks on %s %s", c.admin, c.writer, err, ie, c.want, c.field, c.user)
		}
	}
}
