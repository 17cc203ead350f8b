package group

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

var rewrite = flag.Bool("rewrite", false, "rewrite testdata/*.txt with the output the group gives")

// TestScenarios runs the narrated scenarios in testdata/*.txt: each block is a command, "----"
// and the output it gives; -rewrite regenerates the outputs, to be reviewed as a diff.
//
//	cluster db1 db2 db3 w1:witness [gap=N] [failsafe=N]   a new group
//	net T [SEG | SEG ...] [down=M,M] [stopped=M,M]      the network from time T (SEG: members
//	                                                      on one segment; none: one segment)
//	tick T [T2]                                           the ticks from T to T2, every 10 s
//	state                                                 every manager's view, check and copy
func TestScenarios(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txt")
	if len(files) == 0 {
		t.Fatal("no scenario")
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) { runScenario(t, f) })
	}
}

func runScenario(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	var sc scenario
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			out.WriteString(line + "\n")
			continue
		}
		if i+1 >= len(lines) || lines[i+1] != "----" {
			t.Fatalf("%s:%d: a command not followed by ----", file, i+1)
		}
		var want []string
		j := i + 2
		for ; j < len(lines) && lines[j] != ""; j++ {
			want = append(want, lines[j])
		}
		got := sc.run(t, fmt.Sprintf("%s:%d", file, i+1), line)
		if !*rewrite && strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:%d: %s\n got:\n%s\nwant:\n%s", file, i+1, line, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		out.WriteString(line + "\n----\n")
		for _, g := range got {
			out.WriteString(g + "\n")
		}
		i = j - 1
	}
	if *rewrite {
		if err := os.WriteFile(file, []byte(strings.TrimRight(out.String(), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type scenario struct {
	g     *Group
	names []string
	index map[string]int
}

func (sc *scenario) run(t *testing.T, where, line string) []string {
	f := strings.Fields(line)
	switch f[0] {
	case "cluster":
		var cfg Config
		sc.index = map[string]int{}
		sc.names = nil
		for _, w := range f[1:] {
			if k, v, ok := strings.Cut(w, "="); ok {
				n, err := strconv.Atoi(v)
				if err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				switch k {
				case "gap":
					cfg.GapThreshold = n
				case "failsafe":
					cfg.FailsafeThreshold = n
				default:
					t.Fatalf("%s: %s?", where, k)
				}
				continue
			}
			name, kind, _ := strings.Cut(w, ":")
			sc.index[name] = len(cfg.Members)
			sc.names = append(sc.names, name)
			cfg.Members = append(cfg.Members, Member{Name: name, Witness: kind == "witness"})
		}
		sc.g = New(cfg)
		return sc.state()
	case "net":
		at := sc.time(t, where, f[1])
		net := make(Net, len(sc.names))
		seg := 0
		for _, w := range f[2:] {
			switch {
			case w == "|":
				seg++
			case strings.HasPrefix(w, "down="):
				for _, m := range strings.Split(strings.TrimPrefix(w, "down="), ",") {
					net[sc.member(t, where, m)].Down = true
				}
			case strings.HasPrefix(w, "stopped="):
				for _, m := range strings.Split(strings.TrimPrefix(w, "stopped="), ",") {
					net[sc.member(t, where, m)].Stopped = true
				}
			default:
				net[sc.member(t, where, w)].Segment = seg
			}
		}
		sc.g.Step(at, SetNet{Net: net})
		return sc.ready()
	case "tick":
		from := sc.time(t, where, f[1])
		to := from
		if len(f) > 2 {
			to = sc.time(t, where, f[2])
		}
		var out []string
		for at := from; at <= to; at += 10 * time.Second {
			steady := sc.g.Steady()
			sc.g.Step(at, Tick{})
			got := sc.ready()
			if steady && len(got) > 0 {
				t.Errorf("%s: a steady group decided at %v: %v", where, at, got)
			}
			out = append(out, got...)
		}
		return out
	case "state":
		return sc.state()
	}
	t.Fatalf("%s: unknown command %q", where, f[0])
	return nil
}

func (sc *scenario) time(t *testing.T, where, s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	return d
}

func (sc *scenario) member(t *testing.T, where, name string) int {
	i, ok := sc.index[name]
	if !ok {
		t.Fatalf("%s: unknown member %q", where, name)
	}
	return i
}

func (sc *scenario) ready() []string {
	var out []string
	for _, d := range sc.g.Ready() {
		out = append(out, fmt.Sprintf("%v %s", d.When(), describe(d, sc.names)))
	}
	return out
}

// state is every manager's view, check, coordinator, copy and non-primary count, then the
// sides and the primary views.
func (sc *scenario) state() []string {
	g, names := sc.g, sc.names
	var out []string
	for m := range g.Members() {
		if !g.Up(m) {
			out = append(out, fmt.Sprintf("%s: down, copy %d", names[m], g.Copy(m)))
			continue
		}
		var silent []string
		for x := range g.View(m).All() {
			if c := g.Silent(m, x); c > 0 {
				silent = append(silent, fmt.Sprintf("%s:%d", names[x], c))
			}
		}
		s := fmt.Sprintf("%s: view %s; %v; coordinator %s; copy %d; non-primary %d", names[m],
			g.View(m).Names(names, " "), g.Digest(m).Rule, name(g.Coordinator(m), names), g.Copy(m), g.NonPrimaryTicks(m))
		if silent != nil {
			s += "; silent " + strings.Join(silent, " ")
		}
		out = append(out, s)
	}
	var primary []string
	for _, v := range g.PrimaryViews() {
		primary = append(primary, v.Names(names, " "))
	}
	out = append(out, "primary views: "+orNone(strings.Join(primary, " | ")))
	return out
}

func describe(d Decision, names []string) string {
	n := func(i int) string { return name(i, names) }
	switch d := d.(type) {
	case Silent:
		return fmt.Sprintf("silent: %s in %s's view, %d of %d", n(d.Member), n(d.Manager), d.Count, d.Threshold)
	case HeardAgain:
		return fmt.Sprintf("heard-again: %s in %s's view after %d", n(d.Member), n(d.Manager), d.Count)
	case Left:
		s := fmt.Sprintf("left: %s left %s's view: %v", n(d.Member), n(d.Manager), d.Why)
		if d.Why == WhySilent {
			s += fmt.Sprintf(" for %d ticks", d.Count)
		}
		return s
	case Joined:
		return fmt.Sprintf("joined: %s joined %s's view: %v", n(d.Member), n(d.Manager), d.Why)
	case Forked:
		return fmt.Sprintf("copy-forked: %s hold copy %d, a clone of %d", d.Members.Names(names, " "), d.Copy, d.From)
	case Merged:
		var src []string
		for i, s := range d.Sources {
			p := ""
			if s.Primary {
				p = " primary"
			}
			if i == d.Adopted {
				p += " adopted"
			}
			src = append(src, fmt.Sprintf("[copy %d: %s%s]", s.Copy, s.Members.Names(names, " "), p))
		}
		return fmt.Sprintf("views-merged: %s hold copy %d from %s", d.Members.Names(names, " "), d.Copy, strings.Join(src, " "))
	case Quorum:
		q := d.Digest
		return fmt.Sprintf("quorum: %s %v: view %s, validated %s, %d db of majority %d, %d witnesses, coordinator %s",
			n(q.Manager), q.Rule, q.View.Names(names, " "), q.Validated.Names(names, " "), q.ValidatedDB(), q.Majority,
			q.ValidatedWitnesses(), n(q.Coordinator()))
	case HostPing:
		if d.Answered {
			return fmt.Sprintf("host-ping: %s pinged %s: answered, not fenced", n(d.Coordinator), n(d.Member))
		}
		return fmt.Sprintf("host-ping: %s pinged %s: no answer, host-failed", n(d.Coordinator), n(d.Member))
	case FailsafeShun:
		return fmt.Sprintf("failsafe-shun: %s shuns its datasource after %d non-primary ticks", n(d.Manager), d.Ticks)
	}
	panic(fmt.Sprintf("describe %T", d))
}

func name(i int, names []string) string {
	if i < 0 {
		return "none"
	}
	return names[i]
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
