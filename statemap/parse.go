package statemap

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/magiconair/properties"

	"github.com/failsim/failsim/fileline"
)

// Rules is what one statemap file maps: a complete rule for each condition it names.
type Rules map[Condition]Rule

// field is one of a block's three keys.
type field uint8

const (
	fieldState field = iota
	fieldThreshold
	fieldAction
	numFields
)

var fieldNames = [numFields]string{"state", "threshold", "action"}

var propsLine = regexp.MustCompile(`^properties: Line (\d+): (.*)$`)

// Parse reads one statemap file in Java properties format. name is used in errors and as each
// rule's Source ("name:line"). Every condition it names must have all three keys, a known state
// and action, and a threshold that is an integer from -1 to MaxThreshold; values are
// case-insensitive. Every error is a *fileline.Error naming the line (0 when the file is not a
// properties file at all).
func Parse(name string, data []byte) (Rules, error) {
	l := &properties.Loader{Encoding: properties.UTF8, DisableExpansion: true}
	p, err := l.LoadBytes(data)
	if err != nil {
		if m := propsLine.FindStringSubmatch(err.Error()); m != nil {
			n, _ := strconv.Atoi(m[1])
			return nil, &fileline.Error{File: name, Line: n, Err: fmt.Errorf("not a properties line: %s", m[2])}
		}
		return nil, &fileline.Error{File: name, Err: fmt.Errorf("not a properties file: %w", err)}
	}
	lines, dup := keyLines(string(data))
	if dup.key != "" {
		return nil, &fileline.Error{File: name, Line: dup.second, Err: fmt.Errorf("%s is set twice, at lines %d and %d: set each key once", dup.key, dup.first, dup.second)}
	}

	type block struct {
		vals  [numFields]string
		have  [numFields]bool
		line  int // the block's first key
		first string
	}
	blocks := map[Condition]*block{}
	var order []Condition
	for _, key := range p.Keys() {
		line := lines[key]
		dot := strings.LastIndexByte(key, '.')
		if dot < 0 {
			return nil, &fileline.Error{File: name, Line: line, Err: fmt.Errorf("key %q: want CONDITION.state, CONDITION.threshold or CONDITION.action", key)}
		}
		condName, fieldName := key[:dot], key[dot+1:]
		f := slices.Index(fieldNames[:], fieldName)
		if f < 0 {
			return nil, &fileline.Error{File: name, Line: line, Err: fmt.Errorf("key %q: %q is not state, threshold or action", key, fieldName)}
		}
		c, ok := ParseCondition(condName)
		if !ok {
			return nil, &fileline.Error{File: name, Line: line, Err: fmt.Errorf("unknown condition %q%s", condName, Hint(strings.ToLower(condName)))}
		}
		b := blocks[c]
		if b == nil {
			b = &block{line: line, first: key}
			blocks[c] = b
			order = append(order, c)
		}
		if line < b.line {
			b.line = line
		}
		b.vals[f], b.have[f] = p.GetString(key, ""), true
	}

	rules := make(Rules, len(blocks))
	for _, c := range order {
		b := blocks[c]
		var missing []string
		for f := range numFields {
			if !b.have[f] {
				missing = append(missing, c.String()+"."+fieldNames[f])
			}
		}
		if len(missing) > 0 {
			return nil, &fileline.Error{File: name, Line: b.line, Err: fmt.Errorf("%s: a block needs all three keys; missing %s", c, strings.Join(missing, " and "))}
		}
		r, err := parseRule(c, b.vals, func(f field) int { return lines[c.String()+"."+fieldNames[f]] }, name)
		if err != nil {
			return nil, err
		}
		r.Source = fmt.Sprintf("%s:%d", name, b.line)
		rules[c] = r
	}
	return rules, nil
}

func parseRule(c Condition, vals [numFields]string, lineOf func(field) int, name string) (Rule, error) {
	var r Rule
	bad := func(f field, err error) (Rule, error) {
		return Rule{}, &fileline.Error{File: name, Line: lineOf(f), Err: fmt.Errorf("%s.%s: %w", c, fieldNames[f], err)}
	}
	s, ok := ParseState(strings.ToLower(strings.TrimSpace(vals[fieldState])))
	if !ok {
		return bad(fieldState, fmt.Errorf("unknown state %q: want online, stopped, timeout, suspect or unknown", vals[fieldState]))
	}
	r.State = s
	t, err := strconv.Atoi(strings.TrimSpace(vals[fieldThreshold]))
	if err != nil || t < -1 || t > MaxThreshold {
		return bad(fieldThreshold, fmt.Errorf("threshold %q: want an integer from -1 to %d (ticks of 10 s; -1 never, 0 at once)", vals[fieldThreshold], MaxThreshold))
	}
	r.Threshold = t
	a, ok := ParseAction(strings.ToLower(strings.TrimSpace(vals[fieldAction])))
	if !ok {
		return bad(fieldAction, fmt.Errorf("unknown action %q: want none, alert or fail", vals[fieldAction]))
	}
	r.Action = a
	if c == OK && (r.State != Online || r.Action != None) {
		return bad(fieldState, errors.New("ok always shows online, deletes the node's alarms and never fences; map it to online, -1, none or leave it out"))
	}
	return r, nil
}

// duplicate is a key a properties text sets twice: the lines of its first two settings.
type duplicate struct {
	key           string
	first, second int
}

// keyLines maps each key of a properties text to the 1-based line where it is set, reading
// continuation lines as the properties format does, and returns the first key, in line order,
// that is set a second time (the format keeps the last setting without a word). It only
// locates keys for error messages and finds the keys set twice.
func keyLines(text string) (map[string]int, duplicate) {
	out := map[string]int{}
	var dup duplicate
	// The properties reader skips a leading byte order mark: so does this.
	lines := strings.Split(strings.TrimPrefix(text, "\ufeff"), "\n")
	cont := false
	for i, raw := range lines {
		line := strings.TrimRight(raw, "\r")
		wasCont := cont
		cont = continues(line)
		if wasCont {
			continue
		}
		t := strings.TrimLeft(line, " \t\f")
		if t == "" || t[0] == '#' || t[0] == '!' {
			cont = false
			continue
		}
		var key strings.Builder
		for j := 0; j < len(t); j++ {
			ch := t[j]
			if ch == '\\' && j+1 < len(t) {
				j++
				key.WriteByte(t[j])
				continue
			}
			if ch == '=' || ch == ':' || ch == ' ' || ch == '\t' || ch == '\f' {
				break
			}
			key.WriteByte(ch)
		}
		k := key.String()
		if first, ok := out[k]; ok && dup.key == "" {
			dup = duplicate{key: k, first: first, second: i + 1}
		}
		out[k] = i + 1
	}
	return out, dup
}

// continues reports whether a properties line ends in an odd number of backslashes.
func continues(line string) bool {
	n := 0
	for i := len(line) - 1; i >= 0 && line[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// New layers rule sets into an effective map: the first layer that maps a condition wins; a
// condition no layer maps is unknown, threshold -1, action none, Source "unmapped".
func New(layers ...Rules) *Map {
	m := &Map{}
	for c := range NumConditions {
		m.rules[c] = unmapped
		for _, l := range layers {
			if r, ok := l[c]; ok {
				m.rules[c] = r
				break
			}
		}
	}
	return m
}
