package bundle

import (
	"bufio"
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/failsim/failsim/fileline"
)

// Log is what one tmsvc.log holds for the importer: its quorum checks, in file order.
type Log struct {
	File    string
	Checks  []Check
	Skipped int    // lines that are not part of a quorum check, skipped
	Notes   []Note // quorum lines it cannot place: a conclusion whose check began before the log
}

// Check is one quorum check of a manager, as ClusterMembershipDigest.isInPrimaryPartition logs
// it, from "CHECKING FOR QUORUM" to its "CONCLUSION" line.
type Check struct {
	Start      Source    // the CHECKING FOR QUORUM line
	Time       time.Time // the CHECKING line's time, read as UTC
	Majority   int       // SIMPLE MAJORITY SIZE (or the CHECKING line's "AT LEAST n"); 0 if neither was logged
	QuorumSet  []string  // (POTENTIAL) QUORUM SET MEMBERS ARE
	View       []string  // GC VIEW OF CURRENT DB MEMBERS IS
	Validated  []string  // VALIDATED DB MEMBERS ARE
	Reachable  []string  // REACHABLE DB MEMBERS ARE
	Witnesses  []string  // VALIDATED ACTIVE WITNESS MEMBERS ARE: the active witnesses it hears
	Passive    bool      // WITNESS HOSTS ARE was logged: passive witnesses, which failsim does not model
	Primary    bool      // the conclusion: I AM IN A PRIMARY PARTITION
	Conclusion Source    // the CONCLUSION line
	Lines      []Source  // every line of the check, in order
}

var logTime = regexp.MustCompile(`(\d{4})/(\d{2})/(\d{2}) (\d{2}):(\d{2}):(\d{2})`)

// quorum lines: the phrase that starts each, in the order they are tried (a longer phrase
// before one it contains).
const (
	qChecking  = "CHECKING FOR QUORUM"
	qSet       = "QUORUM SET MEMBERS ARE:"
	qMajority  = "SIMPLE MAJORITY SIZE:"
	qViewW     = "GC VIEW OF CURRENT ACTIVE WITNESS MEMBERS IS:"
	qView      = "GC VIEW OF CURRENT DB MEMBERS IS:"
	qValidW    = "VALIDATED ACTIVE WITNESS MEMBERS ARE:"
	qReachW    = "REACHABLE ACTIVE WITNESS MEMBERS ARE:"
	qValid     = "VALIDATED DB MEMBERS ARE:"
	qReach     = "REACHABLE DB MEMBERS ARE:"
	qHosts     = "WITNESS HOSTS ARE:"
	qReachP    = "REACHABLE WITNESSES ARE:"
	qConclude  = "CONCLUSION:"
	qAndThere  = "AND THERE ARE"
	qMember    = "MEMBERSHIP IS"
	qInvalid   = "INVALID POTENTIAL QUORUM MEMBERS SET"
	qGroupComm = "(GROUP COMMUNICATIONS MAY BE"
	qRule      = "=========="
)

var phrases = []string{qChecking, qViewW, qView, qValidW, qReachW, qValid, qReach, qSet, qMajority, qHosts, qReachP, qConclude, qAndThere, qMember, qInvalid, qGroupComm, qRule}

// ParseQuorum reads a manager's log for its quorum checks. Each line of a check carries the
// log's time, "yyyy/MM/dd HH:mm:ss", read as UTC (the log names no zone). A check the log
// ends inside (no CONCLUSION line) or that a new CHECKING line interrupts, a quorum line with
// no time, a majority that is not a number or a member name failsim cannot hold is an error at
// its line; every other line is skipped and counted.
func ParseQuorum(file string, data []byte) (*Log, error) {
	p := quorumParser{log: &Log{File: file}}
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
	if p.cur != nil {
		return nil, fileline.Errorf(file, p.cur.Start.Line, "the log ends inside this quorum check: no CONCLUSION line (is the log cut short?)")
	}
	return p.log, nil
}

type quorumParser struct {
	log  *Log
	line int
	cur  *Check // the check being read; nil between checks
}

func (p *quorumParser) errf(format string, args ...any) error {
	return fileline.Errorf(p.log.File, p.line, format, args...)
}

func (p *quorumParser) read(raw string) error {
	phrase, at := "", -1
	for _, ph := range phrases {
		if i := strings.Index(raw, ph); i >= 0 {
			phrase, at = ph, i
			break
		}
	}
	if phrase == "" {
		p.log.Skipped++
		return nil
	}
	if !utf8.ValidString(raw) {
		return p.errf("not UTF-8 text")
	}
	src := Source{File: p.log.File, Line: p.line, Text: raw}
	msg := raw[at:]
	rest := strings.TrimSpace(msg[len(phrase):])
	if phrase == qChecking {
		if p.cur != nil {
			return fileline.Errorf(p.log.File, p.cur.Start.Line, "this quorum check has no CONCLUSION line before the next one at line %d (is the log cut?)", p.line)
		}
		t, err := p.time(raw[:at])
		if err != nil {
			return err
		}
		p.cur = &Check{Start: src, Time: t, Lines: []Source{src}}
		if n, ok := leadingNumber(strings.TrimPrefix(rest, ": MUST BE AT LEAST")); ok {
			p.cur.Majority = n
		}
		return nil
	}
	if p.cur == nil {
		if phrase == qConclude {
			p.log.Notes = append(p.log.Notes, Note{Lines: []Source{src}, Why: "a conclusion whose quorum check began before the log"})
			return nil
		}
		p.log.Skipped++
		return nil
	}
	if _, err := p.time(raw[:at]); err != nil {
		return err
	}
	c := p.cur
	c.Lines = append(c.Lines, src)
	var err error
	switch phrase {
	case qSet:
		c.QuorumSet, err = p.members(rest)
	case qMajority:
		n, ok := leadingNumber(rest)
		if !ok || strings.TrimSpace(rest) != strconv.Itoa(n) {
			return p.errf("SIMPLE MAJORITY SIZE %q: not a number", rest)
		}
		c.Majority = n
	case qView:
		c.View, err = p.members(rest)
	case qValid:
		c.Validated, err = p.members(rest)
	case qReach:
		c.Reachable, err = p.members(rest)
	case qValidW:
		c.Witnesses, err = p.members(rest)
	case qHosts:
		c.Passive = true
	case qConclude:
		c.Primary = strings.Contains(rest, "I AM IN A PRIMARY PARTITION")
		c.Conclusion = src
		p.log.Checks = append(p.log.Checks, *c)
		p.cur = nil
	}
	return err
}

// time reads the log time in the text before a quorum phrase.
func (p *quorumParser) time(prefix string) (time.Time, error) {
	m := logTime.FindStringSubmatch(prefix)
	if m == nil {
		return time.Time{}, p.errf("a quorum line with no time before it: want yyyy/MM/dd HH:mm:ss, as tmsvc.log writes")
	}
	n := make([]int, 6)
	for i := range n {
		n[i], _ = strconv.Atoi(m[i+1])
	}
	t := time.Date(n[0], time.Month(n[1]), n[2], n[3], n[4], n[5], 0, time.UTC)
	if t.Month() != time.Month(n[1]) || t.Day() != n[2] || n[3] > 23 || n[4] > 59 || n[5] > 59 {
		return time.Time{}, p.errf("log time %q is not a time", m[0])
	}
	return t, nil
}

// members reads a comma-separated list of member names.
func (p *quorumParser) members(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		name := strings.TrimSpace(f)
		if name == "" {
			continue
		}
		if !dsName.MatchString(name) || name == "cluster" || name == "partition" {
			return nil, p.errf("member %q: want a letter, then letters, digits, '_', '.' or '-'", name)
		}
		out = append(out, name)
	}
	return out, nil
}

// leadingNumber reads the decimal number s starts with, after spaces.
func leadingNumber(s string) (int, bool) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i > 6 {
		return 0, false
	}
	n, _ := strconv.Atoi(s[:i])
	return n, true
}
