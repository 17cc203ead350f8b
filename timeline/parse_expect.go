package timeline

import (
	"slices"
	"strings"
	"time"

	"github.com/failsim/failsim/propspec"
	"github.com/failsim/failsim/statemap"
)

// expect parses the words of an expect statement after "expect".
func (p *parser) expect(w []string) (Expect, error) {
	x := Expect{Line: p.line, Text: "expect " + strings.Join(w, " "), Node: -1, To: -1}
	usage := "want " + usages(expectForms)
	if len(w) == 0 {
		return Expect{}, p.errf("expect what? %s", usage)
	}
	if x, ok, err := p.replExpect(x, w); ok {
		return x, err
	}
	switch {
	case len(w) == 2 && w[0] == "no" && w[1] == "failover":
		x.Kind = ExpectNoFailover
		return x, nil
	case len(w) >= 2 && w[0] == "no" && w[1] == "master":
		x.Kind = ExpectNoMaster
		rest := w[2:]
		for len(rest) > 0 {
			if len(rest) < 2 || (rest[0] != "after" && rest[0] != "by") {
				return Expect{}, p.errf("no master: want \"expect no master [after TIME] [by TIME]\"")
			}
			if err := p.bound(&x.Window, rest[0], rest[1]); err != nil {
				return Expect{}, err
			}
			rest = rest[2:]
		}
		return x, nil
	case w[0] == "property":
		return p.property(x, w[1:])
	case len(w) == 2 && w[0] == "no" && w[1] == "split-brain":
		x.Kind = ExpectSplitBrain
		return x, nil
	case w[0] == "split-brain":
		if len(w) != 4 || w[1] != "at" || w[2] != "most" {
			return Expect{}, p.errf("split-brain: want \"expect split-brain at most DURATION\" or \"expect no split-brain\"")
		}
		d, err := time.ParseDuration(w[3])
		if err != nil || d < 0 {
			return Expect{}, p.errf("split-brain at most: %q is not a duration such as 20s", w[3])
		}
		x.Kind, x.Max = ExpectSplitBrain, d
		return x, nil
	case w[0] == "primary" || (len(w) >= 2 && w[0] == "no" && w[1] == "primary"):
		return p.primary(x, w)
	case w[0] == "failover":
		x.Kind = ExpectFailover
		rest := w[1:]
		for len(rest) > 0 {
			if len(rest) < 2 {
				return Expect{}, p.errf("failover: %q needs a value; %s", rest[0], usage)
			}
			switch rest[0] {
			case "of", "to":
				i, ok := p.nodes[rest[1]]
				if !ok {
					return Expect{}, p.errf("unknown node %q: the cluster has %s", rest[1], p.nodeList())
				}
				if rest[0] == "of" {
					x.Node = i
				} else {
					x.To = i
				}
			case "after", "by":
				if err := p.bound(&x.Window, rest[0], rest[1]); err != nil {
					return Expect{}, err
				}
			default:
				return Expect{}, p.errf("failover: unknown word %q: want of, to, after or by", rest[0])
			}
			rest = rest[2:]
		}
		return x, nil
	}
	i, ok := p.nodes[w[0]]
	if !ok {
		return Expect{}, p.errf("expect %q: not a node of the cluster (%s); %s", w[0], p.nodeList(), usage)
	}
	name := w[0]
	switch {
	case len(w) == 3 && w[1] == "never" && w[2] == "failed":
		x.Kind, x.Node = ExpectNeverFailed, i
		return x, nil
	case len(w) >= 2 && (w[1] == "failed" || w[1] == "shunned") && (len(w) == 2 || w[2] != "at"):
		x.Kind, x.Node = ExpectFailed, i
		if w[1] == "shunned" {
			x.Kind = ExpectShunned
		}
		rest := w[2:]
		for len(rest) > 0 {
			if len(rest) < 2 || (rest[0] != "after" && rest[0] != "by") {
				return Expect{}, p.errf("%s: want \"expect %s %s [after TIME] [by TIME]\"", w[1], name, w[1])
			}
			if err := p.bound(&x.Window, rest[0], rest[1]); err != nil {
				return Expect{}, err
			}
			rest = rest[2:]
		}
		return x, nil
	case len(w) == 4 && w[2] == "at":
		at, err := p.parseTime(w[3])
		if err != nil {
			return Expect{}, err
		}
		x.Kind, x.Node, x.At, x.Want = ExpectAt, i, at, w[1]
		if _, ok := statemap.ParseState(w[1]); !ok && w[1] != "master" && w[1] != "replica" && w[1] != "failed" {
			return Expect{}, p.errf("%q is neither a state (online stopped timeout suspect unknown) nor a role (master replica failed)", w[1])
		}
		return x, nil
	}
	return Expect{}, p.errf("expect %s: %s", strings.Join(w, " "), usage)
}

// primary parses "primary MEMBER... at TIME" and "no primary at TIME" (w from its first word).
func (p *parser) primary(x Expect, w []string) (Expect, error) {
	none := w[0] == "no"
	if none {
		w = w[1:]
	}
	usage := "want \"expect primary MEMBER... at TIME\" or \"expect no primary at TIME\""
	if len(w) < 3 || w[len(w)-2] != "at" || (none && len(w) != 3) {
		return Expect{}, p.errf("primary: %s", usage)
	}
	at, err := p.parseTime(w[len(w)-1])
	if err != nil {
		return Expect{}, err
	}
	x.Kind, x.At = ExpectPrimary, at
	if none {
		return x, nil
	}
	seen := map[int]bool{}
	for _, name := range w[1 : len(w)-2] {
		m, ok := p.members[name]
		if !ok {
			return Expect{}, p.errf("primary: unknown member %q: the cluster has %s", name, p.memberList())
		}
		if seen[m] {
			return Expect{}, p.errf("primary: %s is named twice", name)
		}
		seen[m] = true
		x.Members = append(x.Members, m)
	}
	if len(x.Members) == 0 {
		return Expect{}, p.errf("primary: which members? %s", usage)
	}
	slices.Sort(x.Members)
	return x, nil
}

// bound sets the window's bound word ("after" or "by") to the time val.
func (p *parser) bound(w *Window, word, val string) error {
	t, err := p.parseTime(val)
	if err != nil {
		return err
	}
	if word == "after" {
		w.After, w.HasAfter = t, true
	} else {
		w.By, w.HasBy = t, true
	}
	if w.HasAfter && w.HasBy && w.By < w.After {
		return p.errf("\"by\" %s is before \"after\"", val)
	}
	return nil
}

// property parses "expect property NAME [ARG...]", or NAME=ARG as failsim check spells it.
func (p *parser) property(x Expect, args []string) (Expect, error) {
	if len(args) == 0 {
		return Expect{}, p.errf("expect property: which? want one of %s", strings.Join(propspec.Names(), ", "))
	}
	if name, arg, ok := strings.Cut(args[0], "="); ok {
		args = append([]string{name, arg}, args[1:]...)
	}
	s, err := propspec.NewSpec(args[0], args[1:])
	if err != nil {
		return Expect{}, p.errf("%w", err)
	}
	x.Kind, x.Property = ExpectProperty, s
	return x, nil
}
