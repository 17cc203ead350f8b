package bundle

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/failsim/failsim/fileline"
)

// Ls is what one cctrl output file holds: its `ls` snapshots, in file order.
type Ls struct {
	File      string
	Snapshots []Snapshot
	Skipped   int    // lines the parser does not know, skipped
	Notes     []Note // lines it knows but cannot place: a datasource before any COORDINATOR line
}

// Snapshot is one `cctrl ls`: the COORDINATOR line and the datasources after it.
type Snapshot struct {
	Source      Source // the COORDINATOR line
	Coordinator string // the coordinator's host
	Policy      string // AUTOMATIC, MANUAL or MAINTENANCE, as printed
	Datasources []Datasource
}

// Time is the latest STATUS time of the snapshot's datasources: when the last of their states
// began, the earliest the snapshot can have been taken (cctrl prints no time of its own). The
// zero time for a snapshot with no datasource, which the parser refuses.
func (s *Snapshot) Time() time.Time {
	var t time.Time
	for _, d := range s.Datasources {
		if d.Time.After(t) {
			t = d.Time
		}
	}
	return t
}

// Datasource is one datasource of a snapshot, as its header and STATUS lines state it.
type Datasource struct {
	Source Source // the header line
	Name   string
	Role   string // master, slave, relay, standby, archive or witness, as printed; "composite master" for a composite
	State  string // ONLINE, OFFLINE, FAILED, SHUNNED, ... as printed
	// Reason is what the parentheses after the state hold: FAILED's last error ("DATASERVER
	// 'db3@alpha' STOPPED"), SHUNNED's reason ("MANUALLY-SHUNNED", "FAILSAFE AFTER ..."); ""
	// for none.
	Reason string
	// Alert and Time are the STATUS line's: OK, CRITICAL, SHUNNED, DIMINISHED, ..., and when
	// the datasource's state last changed.
	Alert  string
	Time   time.Time
	Status Source // the STATUS line; zero for a witness, which has none
	// Manager, Replicator and Dataserver are the component lines' states ("ONLINE",
	// "STOPPED"); "" where the snapshot has no such line.
	Manager, Replicator, Dataserver string
}

// ShunReason is the reason of a SHUNNED datasource without the error it followed:
// "FAILSAFE" of "FAILSAFE AFTER Shunned by fail-safe procedure"; "" for another state.
func (d *Datasource) ShunReason() string {
	if d.State != "SHUNNED" {
		return ""
	}
	r, _, _ := strings.Cut(d.Reason, " AFTER ")
	return r
}

// LastError is the error a FAILED or SHUNNED datasource's reason names: FAILED's whole
// reason, SHUNNED's part after " AFTER "; "" for none.
func (d *Datasource) LastError() string {
	switch d.State {
	case "FAILED":
		return d.Reason
	case "SHUNNED":
		_, e, _ := strings.Cut(d.Reason, " AFTER ")
		return e
	}
	return ""
}

var (
	coordinatorLine = regexp.MustCompile(`^COORDINATOR\[([^:\[\]]*):([A-Z]+):([A-Z]+)\]$`)
	statusLine      = regexp.MustCompile(`^STATUS \[([A-Z_-]+)\] \[([^\]]*)\]`)
	componentLine   = regexp.MustCompile(`^(MANAGER|REPLICATOR|DATASERVER|CONNECTIONS)\((.*)\)$`)
	dsName          = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)
)

// policies are the policy words a COORDINATOR line may hold.
var policies = map[string]bool{"AUTOMATIC": true, "MANUAL": true, "MAINTENANCE": true}

// MaxLine is the longest line, in bytes, the parsers read; a longer one is an error.
const MaxLine = 64 << 10

// ParseLs reads a file of cctrl output: one or more `ls` (or `ls -l`) outputs, each from its
// COORDINATOR line, in the bordered table cctrl prints or raw. Lines of other commands (ping,
// prompts) are skipped and counted. A datasource header without its STATUS line, a malformed
// COORDINATOR, header or STATUS line, or a STATUS time it cannot read is an error at its line.
func ParseLs(file string, data []byte) (*Ls, error) {
	p := lsParser{ls: &Ls{File: file}}
	sc := bufio.NewScanner(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))))
	sc.Buffer(make([]byte, 0, 4096), MaxLine)
	for sc.Scan() {
		p.line++
		if err := p.read(sc.Text()); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fileline.Errorf(file, p.line+1, "line too long or unreadable (at most %d bytes a line): %v", MaxLine, err)
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	return p.ls, nil
}

type lsParser struct {
	ls   *Ls
	line int
	cur  *Snapshot   // the snapshot being read; nil before the first COORDINATOR line
	ds   *Datasource // the datasource being read, in cur
}

func (p *lsParser) errf(format string, args ...any) error {
	return fileline.Errorf(p.ls.File, p.line, format, args...)
}

// cells returns a line's content: without cctrl's table borders and surrounding space.
func cells(raw string) string {
	s := strings.TrimSpace(raw)
	if strings.HasPrefix(s, "|") {
		s = strings.TrimPrefix(s, "|")
		s = strings.TrimSuffix(s, "|")
		s = strings.TrimSpace(s)
	}
	return s
}

func (p *lsParser) read(raw string) error {
	if !utf8.ValidString(raw) {
		return p.errf("not UTF-8 text: cctrl prints text")
	}
	s := cells(raw)
	src := Source{File: p.ls.File, Line: p.line, Text: raw}
	switch {
	case s == "" || strings.HasPrefix(s, "+-") || s == "DATASOURCES:" || s == "ROUTERS:" ||
		strings.HasPrefix(s, "connector@") || strings.HasPrefix(s, "REASON[") || strings.HasPrefix(s, "VIP="):
		return nil
	case strings.HasPrefix(s, "COORDINATOR["):
		m := coordinatorLine.FindStringSubmatch(s)
		if m == nil {
			return p.errf("COORDINATOR line %q: want COORDINATOR[HOST:POLICY:STATE], e.g. COORDINATOR[db1:AUTOMATIC:ONLINE]", s)
		}
		if !policies[m[2]] {
			return p.errf("COORDINATOR policy %q: want AUTOMATIC, MANUAL or MAINTENANCE", m[2])
		}
		if err := p.finish(); err != nil {
			return err
		}
		p.ls.Snapshots = append(p.ls.Snapshots, Snapshot{Source: src, Coordinator: m[1], Policy: m[2]})
		p.cur = &p.ls.Snapshots[len(p.ls.Snapshots)-1]
		return nil
	case strings.HasPrefix(s, "STATUS ["):
		return p.status(s)
	}
	if m := componentLine.FindStringSubmatch(s); m != nil {
		if p.ds != nil {
			p.component(m[1], m[2])
		}
		return nil
	}
	if d, ok, err := p.header(s, src); ok || err != nil {
		if err != nil {
			return err
		}
		if p.cur == nil {
			p.ls.Notes = append(p.ls.Notes, Note{Lines: []Source{src}, Why: "a datasource before any COORDINATOR line: no snapshot to place it in"})
			return nil
		}
		if err := p.endDatasource(); err != nil {
			return err
		}
		p.cur.Datasources = append(p.cur.Datasources, d)
		p.ds = &p.cur.Datasources[len(p.cur.Datasources)-1]
		if d.Role == "witness" {
			p.ds = nil // a witness has a header only
		}
		return nil
	}
	p.ls.Skipped++
	return nil
}

// header reads a datasource's header line, NAME[*](ROLE:STATE[(REASON)][, progress=...]);
// ok is false for a line that is not one (no NAME( at its start).
func (p *lsParser) header(s string, src Source) (Datasource, bool, error) {
	open := strings.IndexByte(s, '(')
	if open <= 0 {
		return Datasource{}, false, nil
	}
	name := strings.TrimSuffix(s[:open], "*")
	if !dsName.MatchString(name) {
		return Datasource{}, false, nil
	}
	close, ok := matching(s, open)
	if !ok {
		return Datasource{}, true, p.errf("datasource %s: unbalanced parentheses (is the line cut short?)", name)
	}
	inner := s[open+1 : close]
	role, rest, ok := strings.Cut(inner, ":")
	if !ok || role == "" {
		return Datasource{}, true, p.errf("datasource %s: want NAME(ROLE:STATE...), got %q", name, s)
	}
	d := Datasource{Source: src, Name: name, Role: role}
	i := 0
	for i < len(rest) && rest[i] >= 'A' && rest[i] <= 'Z' || i < len(rest) && rest[i] == '_' {
		i++
	}
	d.State, rest = rest[:i], rest[i:]
	if d.State == "" {
		return Datasource{}, true, p.errf("datasource %s: no state after %q: want e.g. ONLINE, FAILED, SHUNNED", name, role+":")
	}
	rest = strings.TrimPrefix(rest, ":ARCHIVE ")
	if strings.HasPrefix(rest, "(") {
		// Within the header's balanced parentheses, the reason's always close.
		end, _ := matching(rest, 0)
		d.Reason, rest = rest[1:end], rest[end+1:]
	}
	if rest != "" && !strings.HasPrefix(rest, ",") {
		return Datasource{}, true, p.errf("datasource %s: unexpected %q after its state", name, rest)
	}
	return d, true, nil
}

// matching returns the index of the parenthesis that closes the one at s[open].
func matching(s string, open int) (int, bool) {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i, true
			}
		}
	}
	return 0, false
}

func (p *lsParser) component(kind, args string) {
	state := ""
	for _, kv := range strings.Split(args, ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok && k == "state" {
			state = v
		}
	}
	switch kind {
	case "MANAGER":
		p.ds.Manager = state
	case "REPLICATOR":
		p.ds.Replicator = state
	case "DATASERVER":
		p.ds.Dataserver = state
	}
}

func (p *lsParser) status(s string) error {
	m := statusLine.FindStringSubmatch(s)
	if m == nil {
		return p.errf("STATUS line %q: want STATUS [ALERT] [yyyy/MM/dd hh:mm:ss AM|PM ZONE]", s)
	}
	if p.ds == nil || !p.ds.Status.isZero() {
		return p.errf("a STATUS line with no datasource line before it")
	}
	t, err := ParseStatusTime(m[2])
	if err != nil {
		return p.errf("%w", err)
	}
	p.ds.Alert, p.ds.Time = m[1], t
	p.ds.Status = Source{File: p.ls.File, Line: p.line, Text: s}
	return nil
}

func (s Source) isZero() bool { return s.Line == 0 }

// endDatasource checks the datasource being read is whole: it has its STATUS line.
func (p *lsParser) endDatasource() error {
	if p.ds != nil && p.ds.Status.isZero() {
		return fileline.Errorf(p.ls.File, p.ds.Source.Line, "datasource %s has no STATUS line: the output is cut short", p.ds.Name)
	}
	p.ds = nil
	return nil
}

// finish checks the snapshot being read is whole.
func (p *lsParser) finish() error {
	if err := p.endDatasource(); err != nil {
		return err
	}
	if p.cur != nil && len(p.cur.Datasources) == 0 {
		return fileline.Errorf(p.ls.File, p.cur.Source.Line, "a COORDINATOR line with no datasource after it: the output is cut short")
	}
	return nil
}

// zones are the time zone abbreviations a STATUS time may end with, and their offsets: Java's
// SimpleDateFormat "z" prints an abbreviation, which alone names no offset, so only these
// (UTC and the common European and North American ones) are read.
var zones = map[string]int{
	"UTC": 0, "GMT": 0, "Z": 0, "WET": 0, "BST": 1, "IST": 1, "WEST": 1, "CET": 1, "CEST": 2, "EET": 2, "EEST": 3,
	"EST": -5, "EDT": -4, "CST": -6, "CDT": -5, "MST": -7, "MDT": -6, "PST": -8, "PDT": -7,
}

// ParseStatusTime reads a STATUS line's time, "2025/01/24 02:59:42 PM UTC" (Java's
// "yyyy/MM/dd hh:mm:ss a z"), in the zone its abbreviation names.
func ParseStatusTime(s string) (time.Time, error) {
	clock, zone, ok := cutLast(s, " ")
	off, known := zones[zone]
	if !ok || !known {
		return time.Time{}, fmt.Errorf("STATUS time %q: want yyyy/MM/dd hh:mm:ss AM|PM ZONE, ZONE one of UTC, GMT, BST, CET, CEST, EST, EDT, CST, CDT, PST, PDT (an abbreviation alone names no offset)", s)
	}
	t, err := time.ParseInLocation("2006/01/02 03:04:05 PM", clock, time.FixedZone(zone, off*3600))
	if err != nil {
		return time.Time{}, fmt.Errorf("STATUS time %q: want yyyy/MM/dd hh:mm:ss AM|PM ZONE, e.g. 2025/01/24 02:59:42 PM UTC", s)
	}
	return t.UTC(), nil
}

func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}
