package bundle

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/failsim/failsim/fault"
	"github.com/failsim/failsim/fence"
	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/timeline"
)

// Result is an imported timeline: its statements, the comments that say where each came from,
// and what the bundle held that the timeline does not.
type Result struct {
	Timeline *timeline.Timeline
	Comments timeline.Comments
	// NotImported are the lines the importer read but could not place, in file order; the
	// comments list them too, at the timeline's end.
	NotImported []Note
	// Skipped counts, per file read (in the order read), the lines the parsers do not know.
	Skipped []FileCount
	// Unread are the files the importer found and did not read (the replicator's and the
	// connector's logs).
	Unread []string
	// Repeats counts the quorum checks that repeat their log's previous one (the same view and
	// conclusion, the network unchanged), whose expectation is not written again.
	Repeats int
}

// FileCount is a count of lines of one file.
type FileCount struct {
	File  string
	Lines int
}

// Inferred timing, from the engine's rules (docs/engine.md, "The managers as a group"): a
// member that falls silent leaves the views at the third tick, 20-30 s later, so a view that
// lacks it was formed at most gapSpan after the silence began; views merge at the first tick
// after a heal, at most a tick later.
const (
	tick    = 10 * time.Second
	gapSpan = 3 * tick
	lead    = 2 * time.Minute // the start comes this long before the first thing the bundle shows
	tail    = time.Minute     // and the end this long after the last
)

// Options are the settings of the cluster an import is of, which a bundle does not hold.
type Options struct {
	// Interval and Timeout are the checker's (mgr_monitor_interval, mon_db_query_timeout);
	// 0 for timeline.DefaultInterval and timeline.DefaultTimeout.
	Interval, Timeout time.Duration
}

// Import builds the timeline a bundle's files imply (files as Read returns them, of one or
// more bundles): the cluster, roles and policy of the earliest cctrl snapshot; at each
// snapshot, an expect line per datasource's state, a failover where the master changed, and
// a fault where a state implies one; from the quorum checks, partition events where a view
// lacks members and expect primary / expect no primary where the conclusions say so. The
// checker is opt's. A parse error, or a bundle with no snapshot to take the cluster from, is
// an error; what cannot be placed is a Note of the Result.
func Import(files []File, opt Options) (*Result, error) {
	b := &builder{res: &Result{}, members: map[string]int{}, opt: opt}
	var snaps []Snapshot
	var checks []Check
	for _, f := range files {
		switch f.Kind {
		case Cctrl:
			ls, err := ParseLs(f.Name, f.Data)
			if err != nil {
				return nil, err
			}
			snaps = append(snaps, ls.Snapshots...)
			b.res.NotImported = append(b.res.NotImported, ls.Notes...)
			b.res.Skipped = append(b.res.Skipped, FileCount{f.Name, ls.Skipped})
		case ManagerLog:
			log, err := ParseQuorum(f.Name, f.Data)
			if err != nil {
				return nil, err
			}
			checks = append(checks, log.Checks...)
			b.res.NotImported = append(b.res.NotImported, log.Notes...)
			b.res.Skipped = append(b.res.Skipped, FileCount{f.Name, log.Skipped})
		case Replicator, Connector:
			b.res.Unread = append(b.res.Unread, f.Name)
		}
	}
	if len(snaps) == 0 {
		name := "the bundle"
		if len(files) > 0 {
			name = files[0].Name
		}
		return nil, fileline.Errorf(name, 0, "no cctrl ls snapshot in the bundle: the importer takes the cluster's members and roles from one")
	}
	sort.SliceStable(snaps, func(i, j int) bool { return snaps[i].Time().Before(snaps[j].Time()) })
	sort.SliceStable(checks, func(i, j int) bool { return checks[i].Time.Before(checks[j].Time) })
	if err := b.cluster(&snaps[0]); err != nil {
		return nil, err
	}
	b.start(snaps, checks)
	b.snapshots(snaps)
	b.quorum(checks)
	return b.finish(), nil
}

// builder builds one import.
type builder struct {
	res     *Result
	tl      *timeline.Timeline
	members map[string]int // by name: index in the group (nodes, then witnesses)
	events  []commented[timeline.Event]
	expects []commented[timeline.Expect]
	settle  time.Duration // how long after a state's time its expectation is judged: a probe's interval and budget
	opt     Options
	repeats int // quorum checks that repeat their log's previous one, not written again
}

type commented[T any] struct {
	v     T
	lines []string
}

func (b *builder) note(why string, lines ...Source) {
	b.res.NotImported = append(b.res.NotImported, Note{Lines: lines, Why: why})
}

func (b *builder) event(ev timeline.Event, lines ...string) {
	b.events = append(b.events, commented[timeline.Event]{ev, lines})
}

func (b *builder) expect(x timeline.Expect, lines ...string) {
	b.expects = append(b.expects, commented[timeline.Expect]{x, lines})
}

// cluster takes the members and roles from the earliest snapshot.
func (b *builder) cluster(s *Snapshot) error {
	tl := &timeline.Timeline{File: "imported.timeline", Interval: b.opt.Interval, Timeout: b.opt.Timeout}
	if tl.Interval <= 0 {
		tl.Interval = timeline.DefaultInterval
	}
	if tl.Timeout <= 0 {
		tl.Timeout = timeline.DefaultTimeout
	}
	masters := 0
	var witnesses []string
	for _, d := range s.Datasources {
		if _, dup := b.members[d.Name]; dup {
			return fileline.Errorf(d.Source.File, d.Source.Line, "datasource %s is listed twice in one snapshot", d.Name)
		}
		switch d.Role {
		case "witness":
			witnesses = append(witnesses, d.Name)
			b.members[d.Name] = -1 // numbered after the nodes, below
			continue
		case "master":
			masters++
			tl.Nodes = append(tl.Nodes, fence.NodeConfig{Name: d.Name, Role: fence.Master})
		case "slave", "relay", "standby", "archive":
			tl.Nodes = append(tl.Nodes, fence.NodeConfig{Name: d.Name, Role: fence.Replica})
		default:
			return fileline.Errorf(d.Source.File, d.Source.Line, "datasource %s: role %q: the importer reads a physical cluster's master, slave, relay, standby, archive and witness", d.Name, d.Role)
		}
		b.members[d.Name] = len(tl.Nodes) - 1
	}
	if masters != 1 {
		return fileline.Errorf(s.Source.File, s.Source.Line, "the earliest snapshot has %d masters: a timeline starts with exactly one", masters)
	}
	if len(tl.Nodes)+len(witnesses) > timeline.MaxMembers {
		return fileline.Errorf(s.Source.File, s.Source.Line, "the cluster has %d members: a timeline holds at most %d", len(tl.Nodes)+len(witnesses), timeline.MaxMembers)
	}
	for k, w := range witnesses {
		b.members[w] = len(tl.Nodes) + k
	}
	tl.Witnesses = witnesses
	pol, _ := fence.ParsePolicy(strings.ToLower(s.Policy))
	tl.Policy = pol
	b.tl = tl
	b.settle = tl.Interval + tl.Timeout
	return nil
}

// start sets the timeline's start: lead before the earliest change the bundle shows (a
// datasource's state other than ONLINE, a quorum check), or before the earliest snapshot.
func (b *builder) start(snaps []Snapshot, checks []Check) {
	var first time.Time
	take := func(t time.Time) {
		if !t.IsZero() && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	for i := range snaps {
		for _, d := range snaps[i].Datasources {
			if d.State != "ONLINE" && d.Role != "witness" {
				take(d.Time)
			}
		}
	}
	for _, c := range checks {
		take(c.Time.Add(-gapSpan))
	}
	if first.IsZero() {
		take(snaps[0].Time())
	}
	b.tl.Start = first.Add(-lead).Truncate(time.Second)
}

// since is t as a time since the start, never before it.
func (b *builder) since(t time.Time) time.Duration {
	return max(t.Sub(b.tl.Start), 0)
}

// clock writes a time since the start as the timeline does, for comments.
func (b *builder) clock(d time.Duration) string { return timeline.Clock(b.tl.Start, d) }

// nodeState is what the importer has placed of a node so far.
type nodeState struct {
	fault   time.Duration // the inferred fault's time; -1 for none in force
	shunned bool
	seen    time.Duration // the judging time of the last snapshot that showed it; 0 for none
}

// snapshots turns each snapshot into expect lines, failovers and inferred faults.
func (b *builder) snapshots(snaps []Snapshot) {
	state := make([]nodeState, len(b.tl.Nodes))
	for i := range state {
		state[i].fault = -1
	}
	master := slices.IndexFunc(b.tl.Nodes, func(n fence.NodeConfig) bool { return n.Role == fence.Master })
	policy := b.tl.Policy
	prev := time.Duration(0) // the previous snapshot's judging time
	good := time.Duration(0) // the previous snapshot's that was evidence of the cluster (not stale)
	for k := range snaps {
		s := &snaps[k]
		at := b.since(s.Time()) + b.settle
		if at <= prev {
			at = prev
		}
		head := fmt.Sprintf("%s (snapshot %d, judged at %s: its latest STATUS time plus a probe's interval and timeout)", s.Source, k+1, b.clock(at))
		if pol, ok := fence.ParsePolicy(strings.ToLower(s.Policy)); ok && pol != policy {
			b.event(timeline.Event{At: prev + time.Second, Kind: timeline.SetPolicy, Node: -1, Policy: pol}, s.Source.String(),
				"inferred: the policy changed between the snapshots; the time is just after the previous one")
			policy = pol
		}
		newMaster := -1
		masterSeen := time.Duration(0)
		if master >= 0 {
			masterSeen = state[master].seen
		}
		// A snapshot taken where the coordinator shunned itself is that manager's copy, kept
		// in a non-primary partition: what it says of the others is stale, not evidence.
		stale := slices.ContainsFunc(s.Datasources, func(d Datasource) bool {
			return d.Name == s.Coordinator && strings.HasPrefix(d.ShunReason(), "FAILSAFE")
		})
		for _, d := range s.Datasources {
			m, ok := b.members[d.Name]
			if !ok {
				b.note("a datasource the earliest snapshot does not name: the timeline's cluster is fixed at its start", d.Source)
				continue
			}
			if stale && d.Name != s.Coordinator {
				b.note(fmt.Sprintf("%s's state in a snapshot whose coordinator %s had shunned itself (FAILSAFE-SHUN): that manager's copy of the cluster, kept in a non-primary partition, not evidence of %s", d.Name, s.Coordinator, d.Name), d.Source)
				continue
			}
			if m >= len(b.tl.Nodes) {
				if d.State != "ONLINE" {
					b.note(fmt.Sprintf("witness %s %s: the bundle does not say when its manager stopped", d.Name, d.State), d.Source)
				}
				continue
			}
			if d.Role == "master" && d.State == "ONLINE" {
				newMaster = m
			}
			b.datasource(m, &d, &state[m], at, head)
		}
		if stale {
			prev = at
			continue
		}
		if newMaster < 0 {
			x := timeline.Expect{Kind: timeline.ExpectNoMaster, Node: -1, To: -1, Window: timeline.Window{After: good, HasAfter: good > 0, By: at, HasBy: true}}
			b.expect(x, head, "no datasource is an ONLINE master in this snapshot")
		}
		if newMaster >= 0 && newMaster != master && master >= 0 {
			x := timeline.Expect{Kind: timeline.ExpectFailover, Node: master, To: newMaster, Window: timeline.Window{After: masterSeen, HasAfter: masterSeen > 0, By: at, HasBy: true}}
			b.expect(x, head, fmt.Sprintf("the master changed from %s to %s since the last snapshot that showed %s", b.tl.Nodes[master].Name, b.tl.Nodes[newMaster].Name, b.tl.Nodes[master].Name))
		}
		if newMaster >= 0 {
			master = newMaster
		}
		prev, good = at, at
	}
}

// datasource places one datasource of a snapshot judged at at: a change of its state fell
// after the last snapshot that showed it (st.seen).
func (b *builder) datasource(m int, d *Datasource, st *nodeState, at time.Duration, head string) {
	prev := st.seen
	defer func() { st.seen = at }()
	src := []string{head, d.Source.String()}
	if !d.Status.isZero() {
		src = append(src, d.Status.String())
	}
	src = slices.Clip(src) // each statement appends its own lines to a copy
	since := b.since(d.Time)
	le := d.LastError()
	stopped := strings.Contains(le, "DATASERVER") && strings.Contains(le, "STOPPED") || d.Dataserver == "STOPPED"
	infer := func() {
		if st.fault >= 0 || !stopped {
			return
		}
		b.event(timeline.Event{At: since, Kind: timeline.SetFault, Node: m, Fault: fault.Fault{Kind: fault.Refuse}}, append(src,
			"inferred: a STOPPED dataserver is one whose probe was refused (socket_io_error: stopped, fail at once); the bundle does not show the probe's condition, nor when it began (placed at the STATUS time)")...)
		st.fault = since
	}
	name := b.tl.Nodes[m].Name
	switch d.State {
	case "ONLINE":
		if st.fault >= 0 {
			b.event(timeline.Event{At: max(since, st.fault+time.Second), Kind: timeline.SetFault, Node: m}, append(src, "inferred: ONLINE again, so its probes succeed again from its STATUS time")...)
			st.fault = -1
		}
		if st.shunned {
			b.event(timeline.Event{At: max(since, prev), Kind: timeline.Recover, Node: m}, append(src, "inferred: a shunned datasource comes back only by recover; the time is its STATUS time")...)
			st.shunned = false
		}
		want := "replica"
		if d.Role == "master" {
			want = "master"
		}
		b.expect(timeline.Expect{Kind: timeline.ExpectAt, Node: m, To: -1, Want: want, At: at}, src...)
	case "FAILED":
		infer()
		if !stopped {
			src = append(src, "no fault inferred: the reason names no condition failsim can tell; fill in the fault by hand (docs/import.md)")
		}
		b.expect(timeline.Expect{Kind: timeline.ExpectAt, Node: m, To: -1, Want: "failed", At: at}, src...)
	case "SHUNNED":
		switch r := d.ShunReason(); {
		case r == "MANUALLY-SHUNNED":
			b.note(fmt.Sprintf("%s was shunned by an operator: a timeline has no shun event", name), d.Source)
			st.shunned = true
			return
		case strings.HasPrefix(r, "FAILSAFE"):
			src = append(src, "its own manager shunned it (FAILSAFE-SHUN): the partition that caused it comes from the quorum checks, where the bundle has them")
		default:
			infer()
		}
		if st.shunned {
			return // still shunned: the shun fell in an earlier window
		}
		st.shunned = true
		b.expect(timeline.Expect{Kind: timeline.ExpectShunned, Node: m, To: -1, Window: timeline.Window{After: prev, HasAfter: prev > 0, By: at, HasBy: true}}, src...)
	default:
		b.note(fmt.Sprintf("%s is %s: failsim's engine has no such state", name, d.State), d.Source)
	}
}

// quorum turns the quorum checks into partitions and expectations about the primary view.
func (b *builder) quorum(checks []Check) {
	n := len(b.tl.Nodes) + len(b.tl.Witnesses)
	var seg []int // the network as last placed: nil for one
	var last time.Duration
	noPrimaryAt := map[time.Duration]bool{}
	prevKey := map[string]string{} // by log: the previous check's view and conclusion
	repeats := 0
	for i, c := range checks {
		lines := make([]string, 0, len(c.Lines))
		for _, l := range c.Lines {
			lines = append(lines, l.String())
		}
		lines = slices.Clip(lines) // each statement appends its own lines to a copy
		if c.Passive {
			b.note("a quorum check with passive witnesses, which failsim does not model (removed in Tungsten 6.2)", c.Start, c.Conclusion)
			continue
		}
		view, ok := b.view(c)
		if !ok {
			continue
		}
		q := b.since(c.Time)
		all := len(view) == n
		placed := len(b.events)
		switch {
		case !all && !sameSide(seg, view, n):
			seg = split(seg, view, n)
			at := max(q-gapSpan, last)
			b.event(timeline.Event{At: at, Kind: timeline.Partition, Node: -1, Segments: seg}, append(lines,
				fmt.Sprintf("inferred: this view lacks %s, so the network was split; a silent member leaves the view at the third tick, so the silence began at most %s before the check (placed then)", b.names(missing(view, n)), gapSpan))...)
			last = at
		case all && seg != nil:
			seg = nil
			at := max(q-tick, last)
			b.event(timeline.Event{At: at, Kind: timeline.Partition, Node: -1}, append(lines,
				fmt.Sprintf("inferred: this view holds every member again, so the network healed; views merge at the first tick after (placed %s before the check)", tick))...)
			last = at
		}
		key := fmt.Sprint(view, c.Primary)
		if prevKey[c.Start.File] == key && len(b.events) == placed {
			repeats++ // the same view and conclusion as its log's previous check, and the network unchanged
			continue
		}
		prevKey[c.Start.File] = key
		switch {
		case c.Primary:
			b.expect(timeline.Expect{Kind: timeline.ExpectPrimary, Node: -1, To: -1, Members: view, At: q}, lines...)
		case all || b.allNonPrimary(checks, i, n):
			if !noPrimaryAt[q] {
				noPrimaryAt[q] = true
				b.expect(timeline.Expect{Kind: timeline.ExpectPrimary, Node: -1, To: -1, At: q}, append(lines, "every member's view at this check is non-primary")...)
			}
		default:
			b.note(fmt.Sprintf("the view %s is not primary, and the bundle has no check of the other side's: a timeline can say \"expect primary VIEW\" or \"expect no primary\", not that one view is not primary", b.names(view)), c.Start, c.Conclusion)
		}
	}
	b.repeats = repeats
}

// view is a check's view as member indices, ascending: the DB members of the group view and
// the active witnesses validated. ok is false (and a note made) when it names a member the
// cluster does not have.
func (b *builder) view(c Check) ([]int, bool) {
	var out []int
	for _, name := range append(slices.Clone(c.View), c.Witnesses...) {
		m, ok := b.members[name]
		if !ok {
			b.note(fmt.Sprintf("the view names %s, which no snapshot's cluster has", name), c.Start, c.Conclusion)
			return nil, false
		}
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		b.note("a quorum check with an empty view", c.Start, c.Conclusion)
		return nil, false
	}
	slices.Sort(out)
	return out, true
}

// allNonPrimary reports whether the checks within a tick of checks[i] are all non-primary and
// their views together hold every member.
func (b *builder) allNonPrimary(checks []Check, i, n int) bool {
	seen := map[int]bool{}
	for _, c := range checks {
		d := c.Time.Sub(checks[i].Time)
		if d < -tick || d > tick {
			continue
		}
		if c.Primary {
			return false
		}
		v, ok := b.viewQuiet(c)
		if !ok {
			return false
		}
		for _, m := range v {
			seen[m] = true
		}
	}
	return len(seen) == n
}

func (b *builder) viewQuiet(c Check) ([]int, bool) {
	var out []int
	for _, name := range append(slices.Clone(c.View), c.Witnesses...) {
		m, ok := b.members[name]
		if !ok {
			return nil, false
		}
		out = append(out, m)
	}
	return out, true
}

// sameSide reports whether the network seg already has view's members, and only them, on one
// side.
func sameSide(seg, view []int, n int) bool {
	if seg == nil {
		return false
	}
	s := seg[view[0]]
	count := 0
	for m := range n {
		if seg[m] == s {
			count++
		}
	}
	for _, m := range view {
		if seg[m] != s {
			return false
		}
	}
	return count == len(view)
}

// split returns the network seg with view's members moved onto a side of their own.
func split(seg, view []int, n int) []int {
	out := make([]int, n)
	copy(out, seg) // nil: everyone on side 0
	side := 0
	for _, s := range out {
		side = max(side, s+1)
	}
	for _, m := range view {
		out[m] = side
	}
	return out
}

// missing returns the members not in view, ascending.
func missing(view []int, n int) []int {
	var out []int
	for m := range n {
		if !slices.Contains(view, m) {
			out = append(out, m)
		}
	}
	return out
}

func (b *builder) names(ms []int) string {
	all := b.tl.Names()
	var out []string
	for _, m := range ms {
		out = append(out, all[m])
	}
	return strings.Join(out, " ")
}

// finish orders the events and expectations, sets the end and writes the comments.
func (b *builder) finish() *Result {
	sort.SliceStable(b.events, func(i, j int) bool { return b.events[i].v.At < b.events[j].v.At })
	sort.SliceStable(b.expects, func(i, j int) bool { return expectTime(b.expects[i].v) < expectTime(b.expects[j].v) })
	c := timeline.Comments{Events: map[int][]string{}, Expects: map[int][]string{}}
	var end time.Duration
	for i, e := range b.events {
		b.tl.Events = append(b.tl.Events, e.v)
		c.Events[i] = e.lines
		end = max(end, e.v.At)
	}
	for i, x := range b.expects {
		b.tl.Expects = append(b.tl.Expects, x.v)
		c.Expects[i] = x.lines
		end = max(end, expectTime(x.v))
	}
	b.tl.End = end + tail
	c.Head = []string{"Imported by failsim import tungsten. Above each statement: the bundle's lines it came from", "(file:line) and what was inferred. docs/import.md says what a bundle cannot tell."}
	if b.repeats > 0 {
		c.Head = append(c.Head, fmt.Sprintf("%d quorum checks repeat their log's previous one (the same view and conclusion, the network unchanged): not written again.", b.repeats))
	}
	b.res.Repeats = b.repeats
	r := b.res
	if len(r.NotImported) > 0 || len(r.Unread) > 0 {
		c.Tail = append(c.Tail, "Not imported:")
		for _, nt := range r.NotImported {
			c.Tail = append(c.Tail, "- "+nt.Why+":")
			for _, l := range nt.Lines {
				if !l.isZero() {
					c.Tail = append(c.Tail, "    "+l.String())
				}
			}
		}
		for _, f := range r.Unread {
			c.Tail = append(c.Tail, "- "+f+": not read (nothing the engine decides from is in it)")
		}
	}
	r.Timeline, r.Comments = b.tl, c
	return r
}

// expectTime is when an expectation is judged, for ordering them.
func expectTime(x timeline.Expect) time.Duration {
	switch x.Kind {
	case timeline.ExpectAt, timeline.ExpectPrimary:
		return x.At
	}
	return x.Window.By
}
