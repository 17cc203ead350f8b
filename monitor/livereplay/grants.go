package livereplay

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// A privilege a live replay's user needs: Priv on DB.Table ("*" for any), as SHOW GRANTS
// names it (MariaDB 10.5 and later: REPLICA MONITOR shows as SLAVE MONITOR).
type privilege struct {
	Priv, DB, Table string
}

func (p privilege) String() string {
	if p.DB == "*" {
		return p.Priv + " ON *.*"
	}
	return p.Priv + " ON " + p.DB + "." + p.Table
}

// The privileges each user needs (docs/live.md, "The privileges each user needs").
var (
	writerNeeds = []privilege{{"INSERT", "failsim", "ledger"}}
	probeNeeds  = []privilege{{"SELECT", "failsim", "ledger"}}
	adminNeeds  = []privilege{{"REPLICATION SLAVE ADMIN", "*", "*"}, {"RELOAD", "*", "*"}, {"SLAVE MONITOR", "*", "*"}, {"READ_ONLY ADMIN", "*", "*"}}
	// semisyncNeeds is the admin's further need under replication semisync.
	semisyncNeeds = privilege{"REPLICATION MASTER ADMIN", "*", "*"}
)

// grant is one privilege-level line of SHOW GRANTS: the privileges on a target.
type grant struct {
	privs     []string // upper case, column lists dropped; "ALL PRIVILEGES" for all
	db, table string   // unquoted; "*" for any
}

// parseGrant reads one line of SHOW GRANTS; ok is false for a line that grants no privilege
// on a database or table (a role, PROXY, a routine).
func parseGrant(line string) (grant, bool) {
	rest, ok := strings.CutPrefix(line, "GRANT ")
	if !ok {
		return grant{}, false
	}
	privs, target, ok := cutTop(rest, " ON ")
	if !ok {
		return grant{}, false // GRANT `role` TO ...
	}
	target, _, ok = cutTop(target, " TO ")
	if !ok || strings.HasPrefix(target, "PROCEDURE ") || strings.HasPrefix(target, "FUNCTION ") || strings.HasPrefix(target, "PACKAGE ") {
		return grant{}, false
	}
	db, table, ok := cutTop(target, ".")
	if !ok {
		return grant{}, false
	}
	g := grant{db: unquote(db), table: unquote(table)}
	depth, from := 0, 0
	add := func(p string) {
		if i := strings.IndexByte(p, '('); i >= 0 {
			p = p[:i] // a column-level grant: INSERT (id)
		}
		if p = strings.ToUpper(strings.TrimSpace(p)); p != "" {
			g.privs = append(g.privs, p)
		}
	}
	for i := 0; i < len(privs); i++ {
		switch privs[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				add(privs[from:i])
				from = i + 1
			}
		}
	}
	add(privs[from:])
	if g.privs[0] == "PROXY" {
		return grant{}, false
	}
	return g, true
}

// cutTop cuts s around the first sep outside backquotes.
func cutTop(s, sep string) (before, after string, ok bool) {
	quoted := false
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			quoted = !quoted
			continue
		}
		if !quoted && strings.HasPrefix(s[i:], sep) {
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}

func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '`' && s[len(s)-1] == '`' {
		return strings.ReplaceAll(s[1:len(s)-1], "``", "`")
	}
	return s
}

// missing returns the privileges of need that no line of grants gives.
func missing(grants []string, need []privilege) []privilege {
	var gs []grant
	for _, l := range grants {
		if g, ok := parseGrant(l); ok {
			gs = append(gs, g)
		}
	}
	var out []privilege
	for _, p := range need {
		held := slices.ContainsFunc(gs, func(g grant) bool {
			on := g.db == "*" || (strings.EqualFold(g.db, p.DB) && (g.table == "*" || (p.Table != "*" && strings.EqualFold(g.table, p.Table))))
			if p.DB == "*" {
				on = g.db == "*"
			}
			return on && (slices.Contains(g.privs, p.Priv) || slices.Contains(g.privs, "ALL PRIVILEGES") || slices.Contains(g.privs, "ALL"))
		})
		if !held {
			out = append(out, p)
		}
	}
	return out
}

// checkGrants reads SHOW GRANTS as the user of db (its roles' grants among them, for the
// roles it has on) and returns the privileges of need it lacks.
func checkGrants(ctx context.Context, db *sql.DB, need []privilege) ([]privilege, error) {
	rows, err := db.QueryContext(ctx, "SHOW GRANTS")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			return nil, err
		}
		lines = append(lines, l)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return missing(lines, need), nil
}

// lacks says which privileges a user lacks ("lacks INSERT ON failsim.ledger"): the Err of an
// *InputError of CheckLacks.
func lacks(ps []privilege) error {
	var s []string
	for _, p := range ps {
		s = append(s, p.String())
	}
	return fmt.Errorf("lacks %s", strings.Join(s, ", "))
}
