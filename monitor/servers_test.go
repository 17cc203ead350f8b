package monitor

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/failsim/failsim/internal/liveservers"
	"github.com/failsim/failsim/statemap"
)

// TestServerDifferences probes each server straight (no proxy) in the ways its own answers
// matter to the checker, and pins where MariaDB and the in-process server agree and where they
// differ (docs/live.md, "The two servers"). The proxy's faults make their error packets
// themselves, so TestConformanceFaults cannot see these.
func TestServerDifferences(t *testing.T) {
	type outcome struct {
		cond  statemap.Condition
		phase Phase
		code  uint16 // the server's error number; 0 for none
	}
	cases := []struct {
		name     string
		dsn      func(s liveservers.Server) string
		query    string
		mariadb  outcome
		embedded outcome
	}{
		{"ok", nil, "",
			outcome{statemap.OK, Done, 0}, outcome{statemap.OK, Done, 0}},
		{"heartbeat row", nil, "SELECT ts FROM failsim.heartbeat WHERE id = 1",
			outcome{statemap.OK, Done, 0}, outcome{statemap.OK, Done, 0}},
		{"wrong password", func(s liveservers.Server) string {
			return strings.Replace(s.DSN(""), ":"+s.Password+"@", ":not-the-password@", 1)
		}, "",
			outcome{statemap.WrongCredentials, Login, 1045}, outcome{statemap.WrongCredentials, Login, 1045}},
		// The one difference in the login: go-mysql-server finds no auth method for a user it
		// does not know and says so with 2012 (CR_SERVER_HANDSHAKE_ERR) where MySQL and MariaDB
		// say 1045. A live replay never meets it: it logs in as the server's own probe user.
		{"unknown user", func(s liveservers.Server) string { return "nobody:pw@tcp(" + s.Addr + ")/" }, "",
			outcome{statemap.WrongCredentials, Login, 1045}, outcome{statemap.QueryExecutionFailed, Login, 2012}},
		{"unknown database", func(s liveservers.Server) string { return strings.Replace(s.DSN(""), ")/", ")/nodb", 1) }, "",
			outcome{statemap.QueryExecutionFailed, Login, 1049}, outcome{statemap.QueryExecutionFailed, Login, 1049}},
		{"missing table", nil, "SELECT * FROM failsim.nope",
			outcome{statemap.QueryResultFailed, Query, 1146}, outcome{statemap.QueryResultFailed, Query, 1146}},
		// go-mysql-server answers most query errors with 1105 (ER_UNKNOWN_ERROR); the
		// condition is the same.
		{"privilege", nil, "CREATE DATABASE nope",
			outcome{statemap.QueryResultFailed, Query, 1044}, outcome{statemap.QueryResultFailed, Query, 1105}},
		// A reply the server itself holds back: both run SLEEP.
		{"server-side sleep", nil, "SELECT SLEEP(3)",
			outcome{statemap.QueryResultsTimeout, Query, 0}, outcome{statemap.QueryResultsTimeout, Query, 0}},
	}
	for _, srv := range liveservers.All {
		t.Run(srv.Name, func(t *testing.T) {
			s := srv.Need(t)
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					w := map[string]outcome{"mariadb": c.mariadb, "embedded": c.embedded}[srv.Name]
					dsn := s.DSN("")
					if c.dsn != nil {
						dsn = c.dsn(s)
					}
					r := probe(t, dsn, c.query, time.Second)
					var code uint16
					var me *mysql.MySQLError
					if errors.As(r.Err, &me) {
						code = me.Number
					}
					if got := (outcome{r.Condition, r.Phase, code}); got != w {
						t.Errorf("probe ended %s in phase %s with error number %d (%v); want %s in %s with %d",
							r.Condition, r.Phase, code, r.Err, w.cond, w.phase, w.code)
					}
				})
			}
		})
	}
}
