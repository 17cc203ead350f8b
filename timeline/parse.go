package timeline

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/orchestrator"
	"github.com/failsim/failsim/statemap"
)

var nodeName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)

// Parse reads a timeline. name is the file's name for errors and for resolving the statemap
// statement; data must be UTF-8. Every error is a *fileline.Error naming the line.
func Parse(name string, data []byte) (*Timeline, error) {
	p := &parser{tl: &Timeline{File: name, Interval: DefaultInterval, Timeout: DefaultTimeout, Start: time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)}, nodes: map[string]int{}, members: map[string]int{}}
	if err := p.parse(data); err != nil {
		return nil, err
	}
	return p.tl, nil
}

type parser struct {
	tl       *Timeline
	nodes    map[string]int // the database nodes, by name: their index
	members  map[string]int // every member, by name: its index in the group (nodes, then witnesses)
	line     int
	last     time.Duration // the previous event's time
	events   bool          // an event has been read
	endSeen  bool
	settings map[string]int
	prec     map[int]int // the cluster line's precedences, by node index
}

func (p *parser) errf(format string, args ...any) error {
	return &fileline.Error{File: p.tl.File, Line: p.line, Err: fmt.Errorf(format, args...)}
}

func (p *parser) parse(data []byte) error {
	p.settings = map[string]int{}
	// A leading byte order mark says only "UTF-8", which a timeline is anyway: skip it.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		p.line++
		raw := sc.Text()
		if !utf8.ValidString(raw) {
			return p.errf("not UTF-8 text")
		}
		if i := strings.IndexByte(raw, '#'); i >= 0 {
			raw = raw[:i]
		}
		words := strings.Fields(raw)
		if len(words) == 0 {
			continue
		}
		if p.tl.Nodes == nil && words[0] != "cluster" {
			return p.errf("the first statement must be \"cluster NODE:ROLE ...\", got %q", words[0])
		}
		if err := p.statement(words); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		p.line++
		return p.errf("line too long or unreadable: %v", err)
	}
	if p.tl.Nodes == nil {
		return &fileline.Error{File: p.tl.File, Line: 0, Err: errors.New("empty timeline: want a first statement \"cluster NODE:ROLE ...\"")}
	}
	if !p.endSeen {
		if p.last > MaxSpan-DefaultTail {
			last := p.tl.Events[len(p.tl.Events)-1]
			return &fileline.Error{File: p.tl.File, Line: last.Line, Err: fmt.Errorf("the replay would end %s after this last event, past %s: end the timeline with \"cluster end\"", DefaultTail, spanWords())}
		}
		p.tl.End = p.last + DefaultTail
	}
	return p.finishRepl()
}

// spanWords says what MaxSpan is, for errors.
func spanWords() string {
	return fmt.Sprintf("the %d years a timeline may span from its start", MaxSpan/year)
}

func (p *parser) statement(w []string) error {
	switch w[0] {
	case "cluster":
		if p.tl.Nodes != nil {
			return p.errf("a second cluster statement: a timeline describes one cluster; cluster events start with a time, e.g. \"21:40:00 cluster policy maintenance\"")
		}
		return p.cluster(w[1:])
	case "expect":
		e, err := p.expect(w[1:])
		if err != nil {
			return err
		}
		p.tl.Expects = append(p.tl.Expects, e)
		return nil
	}
	if isSetting(w[0]) {
		if p.events {
			return p.errf("%q must come before the first event", w[0])
		}
		if prev, ok := p.settings[w[0]]; ok {
			return p.errf("%q is already set at line %d", w[0], prev)
		}
		p.settings[w[0]] = p.line
		return p.setting(w)
	}
	return p.event(w)
}

func (p *parser) cluster(w []string) error {
	if len(w) == 0 {
		return p.errf("cluster names no node: want \"cluster db1:master db2:replica ...\"")
	}
	masters := 0
	nodes := []fence.NodeConfig{}
	var witnesses []string
	seen := map[string]bool{}
	for _, spec := range w {
		name, role, ok := strings.Cut(spec, ":")
		if !ok {
			return p.errf("node %q: want NAME:master, NAME:replica or NAME:witness", spec)
		}
		role, prec, hasPrec := strings.Cut(role, ":")
		if !nodeName.MatchString(name) || name == "cluster" || name == "partition" {
			return p.errf("node name %q: want a letter, then letters, digits, '_', '.' or '-' (and not \"cluster\" or \"partition\")", name)
		}
		if seen[name] {
			return p.errf("node %q is named twice", name)
		}
		seen[name] = true
		if role == "witness" {
			if hasPrec {
				return p.errf("node %q: a witness has no database, so no precedence", name)
			}
			witnesses = append(witnesses, name)
			if p.tl.Group == 0 {
				p.tl.Group = p.line
			}
			continue
		}
		r, ok := fence.ParseRole(role)
		if !ok {
			return p.errf("node %q: role %q: want master, replica or witness", name, role)
		}
		if r == fence.Master {
			masters++
		}
		if hasPrec {
			if err := p.precedence(len(nodes), name, prec); err != nil {
				return err
			}
		}
		p.nodes[name] = len(nodes)
		nodes = append(nodes, fence.NodeConfig{Name: name, Role: r})
	}
	if masters != 1 {
		return p.errf("cluster has %d masters: want exactly one", masters)
	}
	if len(nodes)+len(witnesses) > MaxMembers {
		return p.errf("cluster has %d members: at most %d", len(nodes)+len(witnesses), MaxMembers)
	}
	p.tl.Nodes, p.tl.Witnesses = nodes, witnesses
	for name, i := range p.nodes {
		p.members[name] = i
	}
	for k, name := range witnesses {
		p.members[name] = len(nodes) + k
	}
	return nil
}

// MaxMembers is the most members, database nodes and witnesses, a cluster line may name: the
// managers as a group hold at most that many.
const MaxMembers = 64

// MaxLivenessThreshold is the largest gap or failsafe threshold, in ticks, a liveness statement
// may set.
const MaxLivenessThreshold = 1000

// liveness parses "liveness gap-threshold=N failsafe-threshold=N".
func (p *parser) liveness(args []string) error {
	if len(args) == 0 {
		return p.errf("liveness sets nothing: want \"liveness gap-threshold=3 failsafe-threshold=3\"")
	}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok || (k != "gap-threshold" && k != "failsafe-threshold") {
			return p.errf("liveness setting %q: want gap-threshold=TICKS or failsafe-threshold=TICKS", a)
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxLivenessThreshold {
			return p.errf("liveness %s: %q is not a number of ticks from 1 to %d", k, v, MaxLivenessThreshold)
		}
		if k == "gap-threshold" {
			p.tl.GapThreshold = n
		} else {
			p.tl.FailsafeThreshold = n
		}
	}
	if p.tl.Group == 0 {
		p.tl.Group = p.line
	}
	return nil
}

// partition parses the words after "partition": "heal", or the members' groups separated by
// "|", every member in exactly one.
func (p *parser) partition(w []string) ([]int, bool, error) {
	if len(w) == 1 && w[0] == "heal" {
		return nil, false, nil
	}
	usage := "want \"TIME partition A B | C D\" (every member once), \"TIME partition heal\" or \"TIME partition managers A B | C D\" (the managers' network only)"
	managers := false
	if _, member := p.members["managers"]; len(w) > 0 && w[0] == "managers" && !member {
		// Only the managers' network splits (Event.ManagersOnly); a member named
		// "managers" keeps the word its name.
		managers, w = true, w[1:]
	}
	if len(w) == 0 {
		return nil, false, p.errf("partition of nothing: %s", usage)
	}
	if managers && len(w) == 1 && w[0] == "heal" {
		return nil, false, p.errf("partition managers heal: a heal heals the whole network; want \"TIME partition heal\"")
	}
	n := len(p.tl.Nodes) + len(p.tl.Witnesses)
	seg := make([]int, n)
	for i := range seg {
		seg[i] = -1
	}
	cur, inGroup := 0, 0
	for _, word := range w {
		if word == "|" {
			if inGroup == 0 {
				return nil, false, p.errf("partition: an empty group; %s", usage)
			}
			cur, inGroup = cur+1, 0
			continue
		}
		m, ok := p.members[word]
		if !ok {
			return nil, false, p.errf("partition: unknown member %q: the cluster has %s", word, p.memberList())
		}
		if seg[m] >= 0 {
			return nil, false, p.errf("partition: %s is in two groups (or named twice)", word)
		}
		seg[m] = cur
		inGroup++
	}
	if inGroup == 0 {
		return nil, false, p.errf("partition: an empty group; %s", usage)
	}
	if cur == 0 {
		return nil, false, p.errf("partition: one group, no \"|\": that cuts nothing; %s", usage)
	}
	for m, s := range seg {
		if s < 0 {
			return nil, false, p.errf("partition: %s is in no group: name every member once", p.memberName(m))
		}
	}
	return seg, managers, nil
}

// memberName is member m's name.
func (p *parser) memberName(m int) string {
	if m < len(p.tl.Nodes) {
		return p.tl.Nodes[m].Name
	}
	return p.tl.Witnesses[m-len(p.tl.Nodes)]
}

// memberList names every member, in group order.
func (p *parser) memberList() string {
	names := make([]string, 0, len(p.tl.Nodes)+len(p.tl.Witnesses))
	for m := range len(p.tl.Nodes) + len(p.tl.Witnesses) {
		names = append(names, p.memberName(m))
	}
	return strings.Join(names, ", ")
}

func (p *parser) setting(w []string) error {
	args := w[1:]
	switch w[0] {
	case "checker":
		if len(args) == 0 {
			return p.errf("checker sets nothing: want \"checker interval=3s timeout=5s\"")
		}
		for _, a := range args {
			k, v, ok := strings.Cut(a, "=")
			d, err := time.ParseDuration(v)
			if !ok || (k != "interval" && k != "timeout") {
				return p.errf("checker setting %q: want interval=DURATION or timeout=DURATION", a)
			}
			if err != nil || d <= 0 {
				return p.errf("checker %s: %q is not a positive duration such as 3s", k, v)
			}
			if d > MaxChecker {
				return p.errf("checker %s: %s is longer than %s", k, v, MaxChecker)
			}
			if k == "interval" {
				p.tl.Interval = d
			} else {
				p.tl.Timeout = d
			}
		}
	case "statemap":
		if len(args) != 1 {
			return p.errf("statemap takes one path, relative to this file")
		}
		path := args[0]
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(p.tl.File), path)
		}
		p.tl.Statemap, p.tl.StatemapLine = path, p.line
	case "policy":
		if len(args) != 1 {
			return p.errf("policy takes one mode: automatic, manual or maintenance")
		}
		pol, ok := fence.ParsePolicy(args[0])
		if !ok {
			return p.errf("policy %q: want automatic, manual or maintenance", args[0])
		}
		p.tl.Policy = pol
	case "workload", "replication":
		return p.replSetting(w)
	case "liveness":
		return p.liveness(args)
	case "manager":
		return p.manager(args)
	case "promotion", "datacenter":
		return p.perNode(w[0], args)
	case "family":
		if len(args) != 1 || !slices.Contains(families[:], args[0]) {
			return p.errf("family takes the failsim check family the trace was generated in: benign, fatal, mixed or partition")
		}
		p.tl.Family = args[0]
	case "start":
		if len(args) != 1 {
			return p.errf("start takes one time: HH:MM:SS or an RFC 3339 time")
		}
		if t, err := time.Parse(time.RFC3339, args[0]); err == nil {
			p.tl.Start = t
			return nil
		}
		c, err := time.Parse("15:04:05", args[0])
		if err != nil {
			return p.errf("start %q: want %s", args[0], absoluteForms)
		}
		s := p.tl.Start
		p.tl.Start = time.Date(s.Year(), s.Month(), s.Day(), c.Hour(), c.Minute(), c.Second(), 0, s.Location())
	}
	return nil
}

// Managers returns the failover managers whose rules failsim replays a timeline under, the
// words of a "manager" statement and of a command's --manager: a fresh slice each call.
func Managers() []string { return []string{"tungsten", "orchestrator"} }

// manager reads a "manager" statement's words after "manager": tungsten, or orchestrator with
// at most one config FILE and one near MEMBER, in any order.
func (p *parser) manager(args []string) error {
	const usage = "want \"manager tungsten\" or \"manager orchestrator [config FILE] [near MEMBER]\""
	if len(args) == 0 {
		return p.errf("manager names none: %s", usage)
	}
	if !slices.Contains(Managers(), args[0]) {
		return p.errf("manager %q: failsim knows %s; %s", args[0], strings.Join(Managers(), " and "), usage)
	}
	p.tl.Manager, p.tl.ManagerLine = args[0], p.line
	if args[0] == "tungsten" {
		if len(args) > 1 {
			return p.errf("manager tungsten takes no config: its settings are the statemap's (\"statemap FILE\")")
		}
		return nil
	}
	for rest := args[1:]; len(rest) > 0; rest = rest[2:] {
		if len(rest) < 2 || (rest[0] != "config" && rest[0] != "near") {
			return p.errf("manager orchestrator: %q: %s", strings.Join(rest, " "), usage)
		}
		switch rest[0] {
		case "config":
			if p.tl.ManagerConfig != "" {
				return p.errf("manager orchestrator: config is given twice")
			}
			path := rest[1]
			if !filepath.IsAbs(path) {
				path = filepath.Join(filepath.Dir(p.tl.File), path)
			}
			p.tl.ManagerConfig = path
		case "near":
			if p.tl.ManagerNear != "" {
				return p.errf("manager orchestrator: near is given twice")
			}
			if _, ok := p.members[rest[1]]; !ok {
				return p.errf("manager orchestrator near %q: the cluster has %s", rest[1], p.memberList())
			}
			p.tl.ManagerNear = rest[1]
		}
	}
	return nil
}

// perNode reads a "promotion" or "datacenter" statement: NODE=VALUE for some of the
// cluster's database nodes, each once.
func (p *parser) perNode(what string, args []string) error {
	usage := "want \"promotion db1=prefer db2=must_not\" (must, prefer, neutral, prefer_not or must_not)"
	if what == "datacenter" {
		usage = "want \"datacenter db1=east db2=west\""
	}
	if len(args) == 0 { // the cluster statement came first: the parser requires it
		return p.errf("%s sets nothing: %s", what, usage)
	}
	vals := make([]string, len(p.tl.Nodes))
	for _, a := range args {
		name, v, ok := strings.Cut(a, "=")
		if !ok || v == "" {
			return p.errf("%s %q: %s", what, a, usage)
		}
		i, ok := p.nodes[name]
		if !ok {
			if _, witness := p.members[name]; witness {
				return p.errf("%s %s: %s is a witness, a manager with no database, which no manager promotes", what, a, name)
			}
			return p.errf("unknown node %q: the cluster has %s", name, p.nodeList())
		}
		if vals[i] != "" {
			return p.errf("%s: %s is set twice", what, name)
		}
		if what == "promotion" {
			if _, ok := orchestrator.ParseRule(v); !ok {
				return p.errf("promotion %s: %q is no promotion rule: want must, prefer, neutral, prefer_not or must_not", name, v)
			}
		}
		vals[i] = v
	}
	if what == "promotion" {
		p.tl.Promotion = vals
	} else {
		p.tl.DataCenters = vals
	}
	return nil
}

// readClock reads exactly HH:MM:SS, two digits each, as time.Parse("15:04:05", s) reads it
// (hours 0-23, minutes and seconds 0-59); ok is false for anything else, which the caller
// then gives to time.Parse.
func readClock(s string) (h, m, sec int, ok bool) {
	if len(s) != 8 || s[2] != ':' || s[5] != ':' {
		return 0, 0, 0, false
	}
	for _, i := range [...]int{0, 1, 3, 4, 6, 7} {
		if s[i] < '0' || s[i] > '9' {
			return 0, 0, 0, false
		}
	}
	h, m, sec = int(s[0]-'0')*10+int(s[1]-'0'), int(s[3]-'0')*10+int(s[4]-'0'), int(s[6]-'0')*10+int(s[7]-'0')
	return h, m, sec, h < 24 && m < 60 && sec < 60
}

// absoluteForms are the forms of time that start and expect lines take; eventTimeForms those of
// an event's time, which may also be relative to the previous event.
const (
	absoluteForms  = "HH:MM:SS or an RFC 3339 time such as 2024-05-01T21:00:00Z"
	eventTimeForms = "HH:MM:SS, +DURATION or an RFC 3339 time"
)

// parseTime reads an absolute time: HH:MM:SS on the start's day, or RFC 3339. It returns the
// offset from the start. A time it cannot read is an error listing absoluteForms.
func (p *parser) parseTime(s string) (time.Duration, error) {
	return p.parseTimeForms(s, absoluteForms)
}

// parseTimeForms is parseTime, whose error for a time in no form it reads says "want forms".
func (p *parser) parseTimeForms(s, forms string) (time.Duration, error) {
	st := p.tl.Start
	if h, m, sec, ok := readClock(s); ok && st.Location() == time.UTC {
		// The common case, without a Parse and a Date per line: HH:MM:SS on a UTC day has
		// no daylight saving, so it is the start's midnight plus the clock.
		sh, sm, ss := st.Clock()
		d := time.Duration((h-sh)*3600+(m-sm)*60+sec-ss)*time.Second - time.Duration(st.Nanosecond())
		if d < 0 {
			return 0, p.errf("time %s is before the start %s%s", s, st.Format("15:04:05"), p.midnightHint(s, 0))
		}
		return d, nil
	}
	var t time.Time
	if c, err := time.Parse("15:04:05", s); err == nil {
		t = time.Date(st.Year(), st.Month(), st.Day(), c.Hour(), c.Minute(), c.Second(), 0, st.Location())
	} else if r, err := time.Parse(time.RFC3339, s); err == nil {
		t = r
	} else {
		if forms == absoluteForms && strings.HasPrefix(s, "+") {
			return 0, p.errf("time %q: want %s (only an event's time may be +DURATION)", s, forms)
		}
		return 0, p.errf("time %q: want %s", s, forms)
	}
	d := t.Sub(p.tl.Start)
	if d < 0 {
		return 0, p.errf("time %s is before the start %s%s", s, p.tl.Start.Format("15:04:05"), p.midnightHint(s, 0))
	}
	// Sub saturates: a difference a Duration cannot hold comes back as the largest one.
	if d > MaxSpan || !p.tl.Start.Add(d).Equal(t) {
		return 0, p.errf("time %s is more than %s", s, spanWords())
	}
	return d, nil
}

func (p *parser) event(w []string) error {
	var at time.Duration
	if rel, ok := strings.CutPrefix(w[0], "+"); ok {
		d, err := time.ParseDuration(rel)
		if err != nil || d < 0 {
			return p.errf("%q: want +DURATION such as +10m or +90s", w[0])
		}
		if d > MaxSpan-p.last {
			return p.errf("%s after the previous event at %s is more than %s", w[0], p.clock(p.last), spanWords())
		}
		at = p.last + d
	} else {
		if !strings.ContainsAny(w[0], ":") {
			return p.errf("unknown statement %q%s: want cluster, %s, expect, or an event \"TIME NODE FAULT\"", w[0], statementHint(w[0]), settingWords())
		}
		d, err := p.parseTimeForms(w[0], eventTimeForms)
		if err != nil {
			return err
		}
		at = d
	}
	if p.endSeen {
		return p.errf("event after \"cluster end\"")
	}
	if at < p.last {
		return p.errf("events must not go back in time: %s is before the previous event at %s%s", w[0], p.clock(p.last), p.midnightHint(w[0], p.last))
	}
	if len(w) < 3 {
		return p.errf("event %q: want %s", strings.Join(w, " "), usages(eventForms))
	}
	ev := Event{At: at, Line: p.line, Node: -1}
	target, rest := w[1], w[2:]
	if target == "partition" {
		seg, managers, err := p.partition(rest)
		if err != nil {
			return err
		}
		ev.Kind, ev.Segments, ev.ManagersOnly = Partition, seg, managers
		if p.tl.Group == 0 {
			p.tl.Group = p.line
		}
	} else if m, ok := p.members[target]; ok && m >= len(p.tl.Nodes) {
		// A witness: a manager and a host, no database.
		ev.Node = m
		switch {
		case len(rest) == 2 && rest[0] == "manager" && (rest[1] == "down" || rest[1] == "up"):
			ev.Kind = ManagerDown
			if rest[1] == "up" {
				ev.Kind = ManagerUp
			}
		case len(rest) == 2 && rest[0] == "host" && (rest[1] == "down" || rest[1] == "up"):
			ev.Kind = HostDown
			if rest[1] == "up" {
				ev.Kind = HostUp
			}
		default:
			return p.errf("%s is a witness: a manager with no database; want \"%s manager down|up\" or \"%s host down|up\"", target, target, target)
		}
	} else if target == "cluster" {
		switch {
		case rest[0] == "policy" && len(rest) == 2:
			pol, ok := fence.ParsePolicy(rest[1])
			if !ok {
				return p.errf("policy %q: want automatic, manual or maintenance", rest[1])
			}
			ev.Kind, ev.Policy = SetPolicy, pol
		case rest[0] == "end" && len(rest) == 1:
			ev.Kind = End
			p.endSeen = true
			p.tl.End = at
		default:
			return p.errf("cluster event %q: want \"cluster policy MODE\" or \"cluster end\"", strings.Join(rest, " "))
		}
	} else {
		i, ok := p.nodes[target]
		if !ok {
			return p.errf("unknown node %q: the cluster has %s", target, p.memberList())
		}
		ev.Node = i
		switch {
		case rest[0] == "manager":
			if len(rest) != 2 || (rest[1] != "down" && rest[1] != "up") {
				return p.errf("want \"%s manager down\" or \"%s manager up\"", target, target)
			}
			ev.Kind = ManagerDown
			if rest[1] == "up" {
				ev.Kind = ManagerUp
			}
		case rest[0] == "host":
			if len(rest) != 2 || (rest[1] != "down" && rest[1] != "up") {
				return p.errf("want \"%s host down\" or \"%s host up\"", target, target)
			}
			ev.Kind = HostDown
			if rest[1] == "up" {
				ev.Kind = HostUp
			}
			if p.tl.Group == 0 {
				p.tl.Group = p.line
			}
		case rest[0] == "recover":
			if len(rest) != 1 {
				return p.errf("recover takes no argument")
			}
			ev.Kind = Recover
		case replEventWords[rest[0]]:
			return p.replEvent(at, i, target, rest)
		default:
			if _, ok := fault.ParseKind(rest[0]); !ok {
				return p.errf("unknown fault %q%s: want one of %s, or %s", rest[0], nodeEventHint(rest[0]), faultNames(), usages(nodeEventForms(target)))
			}
			f, err := fault.Parse(rest)
			if err != nil {
				return p.errf("%v", err)
			}
			if f.Kind == fault.Probe {
				if _, ok := statemap.ParseCondition(f.Condition); !ok {
					return p.errf("probe: unknown condition %q%s", f.Condition, statemap.Hint(f.Condition))
				}
			}
			ev.Kind, ev.Fault = SetFault, f
		}
	}
	p.events = true
	p.last = at
	p.tl.Events = append(p.tl.Events, ev)
	return nil
}

func (p *parser) nodeList() string {
	names := make([]string, len(p.tl.Nodes))
	for i, n := range p.tl.Nodes {
		names[i] = n.Name
	}
	return strings.Join(names, ", ")
}

func (p *parser) clock(d time.Duration) string { return Clock(p.tl.Start, d) }
