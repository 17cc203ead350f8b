package timeline

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/repl"
)

// Format writes tl as timeline text that Parse reads back to the same timeline, but for what
// only says where a statement stood (the Line fields, StatemapLine, ManagerLine, WorkloadLine, the line in
// Group) and the expectations' Text, which is written anew from their values:
//
//   - the cluster line, with each node's precedence when the replication sets them;
//   - the settings: the checker, the start when it is not 1970-01-01T00:00:00Z, the liveness
//     thresholds when set, the family, the statemap (relative to File's folder, as the parser
//     resolves it), the policy when not automatic, the promotion rules and data centres, the
//     manager and its config when a statement names them, the workload and the replication;
//   - after a blank line the events, the replication events first at an instant (as a replay
//     applies them), each at its clock time on the start's day, or +DURATION after the
//     previous event where no clock time reads back exactly;
//   - "cluster end" where tl's End event stands, or at End when tl has none and End is not the
//     end Parse gives a timeline without one (its last event plus DefaultTail); replication
//     events after End, which a replay never reaches, are not written;
//   - after a blank line the expectations, in order, each written from its kind and values.
//
// A partition that separates no one is written "partition heal", which it decides as.
func Format(tl *Timeline) []byte { return FormatCommented(tl, Comments{}) }

// Comments are comment lines for FormatCommented to write beside a timeline's statements, each
// string one comment line, written "# " and the text. A line break within a string starts a
// new comment line, and text that is not UTF-8 is made so (its bad bytes become U+FFFD), so
// that every comment reads back as one. Parse skips comments: a timeline read back has none.
// The zero value writes none.
type Comments struct {
	Head    []string         // before the cluster line
	Events  map[int][]string // before tl.Events[i]
	Expects map[int][]string // before tl.Expects[i]
	Tail    []string         // after the last expectation, after a blank line
}

// FormatCommented is Format with comments: Format's bytes, with c's lines before the
// statements they are keyed to and at the head and tail.
func FormatCommented(tl *Timeline, c Comments) []byte {
	f := formatter{tl: tl, names: tl.Names(), p: &parser{tl: &Timeline{File: tl.File, Start: tl.Start}}, c: c}
	f.comment(c.Head)
	f.header()
	f.events()
	for i, x := range tl.Expects {
		f.comment(c.Expects[i])
		f.expect(x)
	}
	if len(c.Tail) > 0 {
		f.printf("\n")
		f.comment(c.Tail)
	}
	return f.b
}

// comment writes lines as comment lines.
func (f *formatter) comment(lines []string) {
	for _, l := range lines {
		for _, part := range strings.Split(strings.ToValidUTF8(l, "\uFFFD"), "\n") {
			part = strings.TrimRight(part, " \t\r")
			if part == "" {
				f.printf("#\n")
				continue
			}
			f.printf("# %s\n", part)
		}
	}
}

// formatter writes one timeline.
type formatter struct {
	tl    *Timeline
	names []string // the members' names: nodes, then witnesses
	b     []byte
	last  time.Duration // the previous event's time, which +DURATION counts from
	p     *parser       // reads a written time back, with tl's start
	c     Comments
}

func (f *formatter) printf(format string, args ...any) { f.b = fmt.Appendf(f.b, format, args...) }

// defaultStart is the clock time of t=0 of a timeline with no start statement.
var defaultStart = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)

// header writes the cluster line and the settings, then a blank line.
func (f *formatter) header() {
	tl := f.tl
	f.printf("cluster")
	var prec []int
	if tl.Repl != nil {
		prec = tl.Repl.Config.Precedence
	}
	for i, n := range tl.Nodes {
		f.printf(" %s:%s", n.Name, n.Role)
		if i < len(prec) {
			f.printf(":%d", prec[i])
		}
	}
	for _, w := range tl.Witnesses {
		f.printf(" %s:witness", w)
	}
	f.printf("\nchecker interval=%s timeout=%s\n", tl.Interval, tl.Timeout)
	if !tl.Start.Equal(defaultStart) || tl.Start.Location() != time.UTC {
		f.printf("start %s\n", tl.Start.Format(time.RFC3339Nano))
	}
	if tl.GapThreshold > 0 || tl.FailsafeThreshold > 0 {
		f.printf("liveness")
		if tl.GapThreshold > 0 {
			f.printf(" gap-threshold=%d", tl.GapThreshold)
		}
		if tl.FailsafeThreshold > 0 {
			f.printf(" failsafe-threshold=%d", tl.FailsafeThreshold)
		}
		f.printf("\n")
	}
	if tl.Family != "" {
		f.printf("family %s\n", tl.Family)
	}
	if tl.Statemap != "" {
		path := tl.Statemap
		if rel, err := filepath.Rel(filepath.Dir(tl.File), path); err == nil {
			path = rel
		}
		f.printf("statemap %s\n", filepath.ToSlash(path))
	}
	if tl.Policy != fence.Automatic {
		f.printf("policy %s\n", tl.Policy)
	}
	for _, st := range []struct {
		word string
		vals []string
	}{{"promotion", tl.Promotion}, {"datacenter", tl.DataCenters}} {
		if st.vals == nil {
			continue
		}
		f.printf("%s", st.word)
		for i, v := range st.vals {
			if v != "" {
				f.printf(" %s=%s", tl.Nodes[i].Name, v)
			}
		}
		f.printf("\n")
	}
	if tl.Manager != "" {
		f.printf("manager %s", tl.Manager)
		if path := tl.ManagerConfig; path != "" {
			if rel, err := filepath.Rel(filepath.Dir(tl.File), path); err == nil {
				path = rel
			}
			f.printf(" config %s", filepath.ToSlash(path))
		}
		if tl.ManagerNear != "" {
			f.printf(" near %s", tl.ManagerNear)
		}
		f.printf("\n")
	}
	if r := tl.Repl; r != nil {
		if r.Workload {
			per := r.Config.Rate.Per.String()
			if r.Config.Rate.Per == time.Second {
				per = "s"
			}
			f.printf("workload writes=%d/%s deadline=%s", r.Config.Rate.Writes, per, r.Config.Deadline)
			if r.Near != 0 {
				f.printf(" near %s", f.names[r.Near])
			}
			f.printf("\n")
		}
		f.printf("replication %s", r.Config.Mode)
		for _, s := range []struct {
			key string
			d   time.Duration
		}{{"timeout", r.Config.Timeout}, {"lag-cap", r.Config.LagCap}, {"apply-wait", r.Config.ApplyWait}} {
			if s.d != 0 {
				f.printf(" %s=%s", s.key, s.d)
			}
		}
		f.printf("\n")
	}
	f.printf("\n")
}

// events writes the events, the replication events among them, and the end, then a blank line.
func (f *formatter) events() {
	tl := f.tl
	var re []ReplEvent
	if tl.Repl != nil {
		re = tl.Repl.Events
	}
	k := 0 // the next replication event: at one instant they come first, as a replay applies them
	ended := false
	for i, ev := range tl.Events {
		for ; k < len(re) && re[k].At <= ev.At; k++ {
			f.repl(re[k])
		}
		f.comment(f.c.Events[i])
		at := f.eventTime(ev.At)
		switch ev.Kind {
		case SetFault:
			f.printf("%s %s %s\n", at, f.names[ev.Node], ev.Fault)
		case ManagerDown:
			f.printf("%s %s manager down\n", at, f.names[ev.Node])
		case ManagerUp:
			f.printf("%s %s manager up\n", at, f.names[ev.Node])
		case HostDown:
			f.printf("%s %s host down\n", at, f.names[ev.Node])
		case HostUp:
			f.printf("%s %s host up\n", at, f.names[ev.Node])
		case Partition:
			if oneNetwork(ev.Segments) {
				// The parser refuses a partition that cuts nothing; it decides as a heal.
				f.printf("%s partition heal\n", at)
			} else {
				kw := ""
				if ev.ManagersOnly {
					kw = "managers "
				}
				f.printf("%s partition %s%s\n", at, kw, SegmentWords(f.names, ev.Segments))
			}
		case Recover:
			f.printf("%s %s recover\n", at, f.names[ev.Node])
		case SetPolicy:
			f.printf("%s cluster policy %s\n", at, ev.Policy)
		case End:
			f.printf("%s cluster end\n", at)
			ended = true
		}
	}
	for ; k < len(re) && re[k].At <= tl.End; k++ {
		f.repl(re[k])
	}
	if !ended && tl.End != f.last+DefaultTail {
		f.printf("%s cluster end\n", f.eventTime(tl.End))
	}
	f.printf("\n")
}

// repl writes replication event e.
func (f *formatter) repl(e ReplEvent) {
	f.printf("%s %s %s\n", f.eventTime(e.At), f.tl.Nodes[repl.EventNode(e.Input)].Name, ReplWords(e.Input))
}

// eventTime is how an event at time at is written, after the previous event's: its clock time
// when that reads back as at, else +DURATION after the previous event.
func (f *formatter) eventTime(at time.Duration) string {
	s := Clock(f.tl.Start, at)
	if d, err := f.p.parseTimeForms(s, eventTimeForms); err != nil || d != at {
		s = "+" + (at - f.last).String()
	}
	f.last = at
	return s
}

// time is how an expectation's time d is written: its clock time when that reads back as d,
// else the RFC 3339 time.
func (f *formatter) time(d time.Duration) string {
	s := Clock(f.tl.Start, d)
	if got, err := f.p.parseTime(s); err != nil || got != d {
		s = f.tl.Start.Add(d).Format(time.RFC3339Nano)
	}
	return s
}

// window writes a window's bounds, " after TIME" and " by TIME" as given.
func (f *formatter) window(w Window) {
	if w.HasAfter {
		f.printf(" after %s", f.time(w.After))
	}
	if w.HasBy {
		f.printf(" by %s", f.time(w.By))
	}
}

// expect writes expectation x.
func (f *formatter) expect(x Expect) {
	f.printf("expect")
	switch x.Kind {
	case ExpectNoFailover:
		f.printf(" no failover")
	case ExpectFailover:
		f.printf(" failover")
		if x.Node >= 0 {
			f.printf(" of %s", f.names[x.Node])
		}
		if x.To >= 0 {
			f.printf(" to %s", f.names[x.To])
		}
		f.window(x.Window)
	case ExpectNoMaster:
		f.printf(" no master")
		f.window(x.Window)
	case ExpectFailed, ExpectShunned:
		word := "failed"
		if x.Kind == ExpectShunned {
			word = "shunned"
		}
		f.printf(" %s %s", f.names[x.Node], word)
		f.window(x.Window)
	case ExpectNeverFailed:
		f.printf(" %s never failed", f.names[x.Node])
	case ExpectAt:
		f.printf(" %s %s at %s", f.names[x.Node], x.Want, f.time(x.At))
	case ExpectProperty:
		f.printf(" property %s", x.Property)
	case ExpectOutage:
		f.printf(" outage at most %s", x.Max)
	case ExpectUnavailable:
		f.printf(" unavailable at most %s", x.Max)
	case ExpectLostWrites:
		f.printf(" lost writes")
		if x.AtMost {
			f.printf(" at most")
		}
		f.printf(" %s", strconv.FormatInt(x.Count, 10))
	case ExpectSplitBrain:
		if x.Max == 0 {
			f.printf(" no split-brain")
		} else {
			f.printf(" split-brain at most %s", x.Max)
		}
	case ExpectPrimary:
		if x.Members == nil {
			f.printf(" no primary")
		} else {
			f.printf(" primary")
			for _, m := range x.Members {
				f.printf(" %s", f.names[m])
			}
		}
		f.printf(" at %s", f.time(x.At))
	}
	f.printf("\n")
}

// oneNetwork reports whether a partition's segments leave every member on one: nil (a heal),
// or a split that separates no one.
func oneNetwork(segments []int) bool {
	for _, s := range segments {
		if s != segments[0] {
			return false
		}
	}
	return true
}

// SegmentWords writes a partition's groups as its statement does, "db1 | db2 db3 w1": the
// groups in the order of their first members, each member once, in group order.
func SegmentWords(names []string, segments []int) string {
	var parts []string
	done := map[int]bool{}
	for m, s := range segments {
		if done[s] {
			continue
		}
		done[s] = true
		var side []string
		for x := m; x < len(segments); x++ {
			if segments[x] == s {
				side = append(side, names[x])
			}
		}
		parts = append(parts, strings.Join(side, " "))
	}
	return strings.Join(parts, " | ")
}

// ReplWords writes a replication input as the words after NODE: "lag 5s", "link freeze"
// (the narration says them so too).
func ReplWords(in repl.Input) string {
	switch in := in.(type) {
	case repl.SetLag:
		return "lag " + in.Lag.String()
	case repl.SetApplyLag:
		return "apply-lag " + in.Lag.String()
	case repl.SetStream:
		if in.Frozen {
			return "link freeze"
		}
		return "link heal"
	case repl.SetReplicator:
		if in.Running {
			return "replicator start"
		}
		return "replicator stop"
	}
	return fmt.Sprintf("%T", in) // no input of the format's: Parse refuses it
}
