package proxy

import (
	"bytes"
	"strings"
)

// What the rewriter reads of a COM_QUERY's text: which of its statements report topology, and
// for a SELECT what each item of its select list is. Only a prefix of the text is read
// (rwQueryMax); keywords are case-insensitive; comments and quoted strings are skipped.

// token kinds of the small SQL lexer.
type tokKind uint8

const (
	tokEnd    tokKind = iota
	tokWord           // a keyword, identifier, number or @@variable (dots included)
	tokQuoted         // a 'string', "string" or `identifier`
	tokPunct          // one other character: , ( ) ;
)

type token struct {
	kind tokKind
	text []byte // a tokQuoted's text without its quotes
}

// is reports whether t is the word w (lower case), case-insensitively.
func (t token) is(w string) bool { return t.kind == tokWord && strings.EqualFold(string(t.text), w) }

// punct reports whether t is the character c.
func (t token) punct(c byte) bool { return t.kind == tokPunct && len(t.text) == 1 && t.text[0] == c }

// lexer splits SQL text into tokens.
type lexer struct {
	s []byte
	i int
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' ||
		b == '_' || b == '$' || b == '@' || b == '.' || b >= 0x80
}

// next returns the next token; tokEnd at the end of the text.
func (l *lexer) next() token {
	for l.i < len(l.s) {
		b := l.s[l.i]
		switch {
		case b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '\v':
			l.i++
		case b == '#' || b == '-' && l.i+2 < len(l.s) && l.s[l.i+1] == '-' && (l.s[l.i+2] == ' ' || l.s[l.i+2] == '\t'):
			if j := bytes.IndexByte(l.s[l.i:], '\n'); j >= 0 {
				l.i += j + 1
			} else {
				l.i = len(l.s)
			}
		case b == '/' && l.i+1 < len(l.s) && l.s[l.i+1] == '*':
			if j := bytes.Index(l.s[l.i+2:], []byte("*/")); j >= 0 {
				l.i += 2 + j + 2
			} else {
				l.i = len(l.s)
			}
		case b == '\'' || b == '"' || b == '`':
			start := l.i + 1
			j := start
			for j < len(l.s) && l.s[j] != b {
				if l.s[j] == '\\' && b != '`' {
					j++
				}
				j++
			}
			l.i = min(j+1, len(l.s))
			return token{kind: tokQuoted, text: l.s[start:min(j, len(l.s))]}
		case isWordByte(b):
			start := l.i
			for l.i < len(l.s) && isWordByte(l.s[l.i]) {
				l.i++
			}
			return token{kind: tokWord, text: l.s[start:l.i]}
		default:
			l.i++
			return token{kind: tokPunct, text: l.s[l.i-1 : l.i]}
		}
	}
	return token{}
}

// classify returns the statements of a COM_QUERY's text, or nil when none reports topology.
func classify(text []byte) []stmt {
	if len(text) > rwQueryMax {
		text = text[:rwQueryMax]
	}
	if !bytes.Contains(text, []byte("@@")) && !containsFold(text, "show") {
		return nil
	}
	l := lexer{s: text}
	var stmts []stmt
	any := false
	for len(stmts) < rwStmtMax {
		st, more := classifyStmt(&l)
		stmts = append(stmts, st)
		any = any || st.kind != stmtOther
		if !more {
			break
		}
	}
	if !any {
		return nil
	}
	return stmts
}

// containsFold reports whether s holds w (lower-case ASCII), case-insensitively.
func containsFold(s []byte, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		if strings.EqualFold(string(s[i:i+len(w)]), w) {
			return true
		}
	}
	return false
}

// classifyStmt reads one statement, up to its ';'; more reports whether one follows.
func classifyStmt(l *lexer) (st stmt, more bool) {
	t := l.next()
	switch {
	case t.is("show"):
		st.kind = showKind(l)
	case t.is("select"):
		st = selectStmt(l)
	}
	return st, skipStmt(l)
}

// skipStmt skips to the end of the statement; it reports whether another follows.
func skipStmt(l *lexer) bool {
	for {
		t := l.next()
		switch {
		case t.kind == tokEnd:
			return false
		case t.punct(';'):
			return true
		}
	}
}

// showKind reads what follows SHOW.
func showKind(l *lexer) stmtKind {
	save := l.i
	t := l.next()
	switch {
	case t.is("replicas"):
		return stmtHosts
	case t.is("global"), t.is("session"), t.is("local"):
		if l.next().is("variables") {
			return stmtVariables
		}
	case t.is("variables"):
		return stmtVariables
	case t.is("all"):
		t = l.next()
		if (t.is("slaves") || t.is("replicas")) && l.next().is("status") {
			return stmtStatus
		}
	case t.is("slave"), t.is("replica"):
		t = l.next()
		if t.is("hosts") {
			return stmtHosts
		}
		if t.kind == tokQuoted { // MariaDB's named connection: SHOW SLAVE 'name' STATUS
			t = l.next()
		}
		if t.is("status") {
			return stmtStatus
		}
	}
	l.i = save
	return stmtOther
}

// selectModifiers are the words that may come between SELECT and its first item.
var selectModifiers = []string{"all", "distinct", "distinctrow", "high_priority", "straight_join",
	"sql_small_result", "sql_big_result", "sql_buffer_result", "sql_cache", "sql_no_cache", "sql_calc_found_rows"}

// selectEnds are the words that end a select list.
var selectEnds = []string{"from", "where", "into", "limit", "union", "group", "order", "having",
	"for", "lock", "window", "procedure", "except", "intersect"}

func isAny(t token, words []string) bool {
	for _, w := range words {
		if t.is(w) {
			return true
		}
	}
	return false
}

// selectStmt reads a SELECT's select list: a stmtVars if it names an @@ variable. items holds
// each item's role when the whole list was read.
func selectStmt(l *lexer) stmt {
	var items []role
	var item []token
	depth, vars, whole := 0, false, true
	t := l.next()
	for isAny(t, selectModifiers) {
		t = l.next()
	}
	for ; ; t = l.next() {
		end := t.kind == tokEnd || t.punct(';') || depth == 0 && isAny(t, selectEnds)
		if end || depth == 0 && t.punct(',') {
			if len(items) < rwItemMax {
				ro := itemRole(item)
				items = append(items, ro)
			} else {
				whole = false
			}
			item = item[:0]
			if end {
				if t.punct(';') {
					l.i-- // the ';' is the statement's end: skipStmt reads it
				}
				break
			}
			continue
		}
		switch {
		case t.punct('('):
			depth++
		case t.punct(')'):
			depth = max(0, depth-1)
		case t.kind == tokWord && bytes.HasPrefix(t.text, []byte("@@")):
			vars = true
		}
		if len(item) < 16 {
			item = append(item, t)
		} else {
			item = append(item[:15], token{kind: tokPunct, text: []byte("?")}) // too long to be one we rewrite
		}
	}
	if !vars {
		return stmt{}
	}
	if !whole {
		items = nil
	}
	return stmt{kind: stmtVars, items: items}
}

// itemRole is what a select-list item reports: @@hostname, @@global.port, IFNULL(@@report_host,
// ”), COALESCE(...), each with or without an alias.
func itemRole(item []token) role {
	n := len(item)
	switch {
	case n >= 3 && item[n-2].is("as"):
		item = item[:n-2]
	case n >= 2 && (item[n-1].kind == tokWord || item[n-1].kind == tokQuoted) &&
		(item[n-2].kind == tokWord || item[n-2].punct(')')):
		item = item[:n-1]
	}
	n = len(item)
	switch {
	case n == 1 && item[0].kind == tokWord:
		return sysvarRole(item[0].text)
	case n >= 4 && (item[0].is("ifnull") || item[0].is("coalesce")) && item[1].punct('(') &&
		item[2].kind == tokWord && (item[3].punct(',') || item[3].punct(')')) && item[n-1].punct(')'):
		return sysvarRole(item[2].text)
	}
	return roleNone
}

// exprRole is what a column reports by its name: the server names a column without an alias by
// its expression's text.
func exprRole(name []byte) role {
	l := lexer{s: name}
	var item []token
	for t := l.next(); t.kind != tokEnd && len(item) < 16; t = l.next() {
		item = append(item, t)
	}
	return itemRole(item)
}

// sysvarRole is the role of a system variable reference such as @@global.hostname.
func sysvarRole(w []byte) role {
	s := strings.ToLower(string(w))
	s, ok := strings.CutPrefix(s, "@@")
	if !ok {
		return roleNone
	}
	for _, scope := range []string{"global.", "session.", "local."} {
		if v, ok := strings.CutPrefix(s, scope); ok {
			s = v
			break
		}
	}
	return varRole(s)
}

// varRole is the role of a system variable by its name, lower case.
func varRole(name string) role {
	switch name {
	case "hostname":
		return roleHostname
	case "port":
		return rolePort
	case "report_host":
		return roleReportHost
	case "report_port":
		return roleReportPort
	}
	return roleNone
}
