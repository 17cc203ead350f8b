package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/failsim/failsim/check"
	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/statemap"
	"github.com/failsim/failsim/timeline"
)

// ShareKind is the "kind" of a share file: what failsim merge dispatches on.
const ShareKind = "failsim-sweep-share"

// Identity is a run as its share files record it: every flag and input that decides its
// result. Shares of one run have equal identities.
type Identity struct {
	Vary         []string `json:"vary"`          // each axis as NAME=FROM..TO:STEP
	Statemap     string   `json:"statemap"`      // the --statemap path; "" for the shipped defaults
	StatemapText string   `json:"statemap_text"` // its bytes
	BenignTraces int      `json:"benign_traces"` // 0: the benign family was not run
	FatalTraces  int      `json:"fatal_traces"`
	// PartitionTraces is the partition family's; 0 (left out of the JSON) when not run.
	PartitionTraces int     `json:"partition_traces,omitempty"`
	Seed            uint64  `json:"seed"`
	Nodes           int     `json:"nodes"`
	Length          string  `json:"length"`
	Interval        string  `json:"interval"` // the base checker's
	Timeout         string  `json:"timeout"`
	Incidents       []Input `json:"incidents"`
	Workload        string  `json:"workload,omitempty"` // --workload as check.Workload writes it; "" for none
}

// Input is an input file as a run records it.
type Input struct {
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
}

// Share is what one shard of a run computed: its points of the work list (the grid's points in
// order, then the point in force when it is none of them).
type Share struct {
	Kind        string       `json:"kind"`
	Run         Identity     `json:"run"`
	Shard       int          `json:"shard"`
	Of          int          `json:"of"`
	InForce     int          `json:"in_force"` // the index of the point in force in the work list
	Points      int          `json:"points"`   // the work list's length
	FatalFaults []string     `json:"fatal_faults"`
	Computed    []SharePoint `json:"computed"`

	replays int // the replays it took, the shortcuts' savings deducted
}

// SharePoint is one point as a share holds it.
type SharePoint struct {
	Index     int              `json:"index"`
	Values    []int64          `json:"values"`
	Benign    *BenignStats     `json:"benign,omitempty"`
	Fatal     *FatalStats      `json:"fatal,omitempty"`
	Partition *PartitionStats  `json:"partition,omitempty"`
	Incidents []IncidentResult `json:"incidents,omitempty"`
}

// FileName is the name a shard's share is written to.
func FileName(s Shard) string { return fmt.Sprintf("sweep-shard-%d-of-%d.json", s.K, s.of()) }

// Marshal encodes the share as its file holds it.
func (s *Share) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	return append(b, '\n'), err
}

// ShareFile is a share file's name and bytes, for MergeShares.
type ShareFile struct {
	Name string
	Data []byte
}

// ErrShares is wrapped by every complaint of MergeShares about the set of shares.
var ErrShares = errors.New("the shares do not make one run")

// MergeShares joins the N shares of one run into the result the run gives unsharded, as a
// Merger does.
func MergeShares(files []ShareFile) (*Result, error) {
	var m Merger
	for _, f := range files {
		if err := m.Add(f); err != nil {
			return nil, err
		}
	}
	return m.Result()
}

// Merger joins the shares of one run as they are read, one at a time: each is judged whole
// (parseShare) and against the first when it is added, so that a broken share, another run's
// or a shard given twice stops a merge before the next file is read. It holds the shares'
// points, not their files. The zero Merger is ready.
type Merger struct {
	first     *Share
	firstName string
	seen      map[int]string // shard: its file
	shares    []*Share
}

// Add reads share file f and adds it. It refuses a file that is no sweep share or does not
// add up (with file:line), a share of another run or another N, and a shard given twice.
func (m *Merger) Add(f ShareFile) error {
	s, err := parseShare(f)
	if err != nil {
		return err
	}
	if m.first == nil {
		m.first, m.firstName, m.seen = s, f.Name, map[int]string{}
	}
	first, firstName, name := m.first, m.firstName, f.Name
	refuse := func(path []any, format string, args ...any) error {
		return &fileline.Error{File: name, Line: fileline.JSONLine(f.Data, path...), Err: fmt.Errorf("%w: "+format, append([]any{ErrShares}, args...)...)}
	}
	if s.Of != first.Of {
		return refuse([]any{"of"}, "shard %d of %d, %s of %d", s.Shard, s.Of, firstName, first.Of)
	}
	if d := differences(first.Run, s.Run); len(d) > 0 {
		return refuse([]any{"run", d[0]}, "another run than %s: its %s differ", firstName, strings.Join(d, ", "))
	}
	switch {
	case s.InForce != first.InForce:
		return refuse([]any{"in_force"}, "another run than %s: its points differ", firstName)
	case s.Points != first.Points:
		return refuse([]any{"points"}, "another run than %s: its points differ", firstName)
	case !slices.Equal(s.FatalFaults, first.FatalFaults):
		return refuse([]any{"fatal_faults"}, "another run than %s: its points differ", firstName)
	}
	if m.seen[s.Shard] != "" {
		return refuse([]any{"shard"}, "shard %d of %d is given twice: %s and %s", s.Shard, s.Of, m.seen[s.Shard], name)
	}
	m.seen[s.Shard] = name
	m.shares = append(m.shares, s)
	return nil
}

// Result assembles the result, once every shard's share was added.
func (m *Merger) Result() (*Result, error) {
	if m.first == nil {
		return nil, fmt.Errorf("%w: no share given", ErrShares)
	}
	if len(m.seen) < m.first.Of {
		return nil, fmt.Errorf("%w: %s missing", ErrShares, check.Missing(slices.Collect(maps.Keys(m.seen)), m.first.Of))
	}
	shares := slices.Clone(m.shares)
	slices.SortFunc(shares, func(a, b *Share) int { return a.Shard - b.Shard })
	return assemble(shares)
}

// parseShare reads one share file and checks that it is whole and could come from a run: the
// run's flags within what failsim sweep takes, the grid's points and the one in force where
// the grid puts them, the shard's points exactly those of its block, and every figure of every
// point within what its traces can give (no count below zero or above the traces, no time
// beyond a trace's length, percentiles in order, rates that are their counts' quotients),
// with no control character in any text. Every error is a *fileline.Error at the line of the
// value it is about.
func parseShare(f ShareFile) (*Share, error) {
	var s Share
	dec := json.NewDecoder(bytes.NewReader(f.Data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, jsonError(f, err)
	}
	if dec.More() {
		return nil, fileline.Errorf(f.Name, lineAt(f.Data, dec.InputOffset()), "more than one JSON value")
	}
	if err := s.check(); err != nil {
		var pe *pathErr
		if errors.As(err, &pe) {
			return nil, &fileline.Error{File: f.Name, Line: fileline.JSONLine(f.Data, pe.path...), Err: pe.err}
		}
		return nil, &fileline.Error{File: f.Name, Err: err}
	}
	return &s, nil
}

// pathErr is what is wrong with the value at path in a share (fileline.JSONLine's path).
type pathErr struct {
	path []any
	err  error
}

func (e *pathErr) Error() string { return e.err.Error() }

func errAt(path []any, format string, args ...any) error {
	return &pathErr{path: path, err: fmt.Errorf(format, args...)}
}

// text refuses a control character in s, a text of the share at path.
func text(s string, path ...any) error {
	if err := check.CheckText(s, ""); err != nil {
		return errAt(path, "%q: %v", s, err)
	}
	return nil
}

// duration reads a duration of the run's identity as failsim writes it, from lo to hi.
func duration(s string, lo, hi time.Duration, path ...any) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d < lo || d > hi || d.String() != s {
		return 0, errAt(path, "%s %q: want a duration from %s to %s as failsim writes it", path[len(path)-1], s, lo, hi)
	}
	return d, nil
}

func isHex(s string) bool { return len(s) == 64 && strings.Trim(s, "0123456789abcdef") == "" }

// check is parseShare's judgement of a decoded share.
func (s *Share) check() error {
	if s.Kind != ShareKind {
		return errAt([]any{"kind"}, "kind %q: not a failsim sweep share (kind %q)", s.Kind, ShareKind)
	}
	if s.Of < 1 || s.Shard < 0 || s.Shard >= s.Of {
		return errAt([]any{"shard"}, "shard %d of %d: want 0 <= shard < of", s.Shard, s.Of)
	}
	g, length, err := s.Run.check()
	if err != nil {
		return err
	}
	n := g.Len()
	if n > MaxPoints {
		return errAt([]any{"run", "vary"}, "the grid has %d points, more than %d", n, MaxPoints)
	}
	if s.Points != n && s.Points != n+1 {
		return errAt([]any{"points"}, "%d points for a grid of %d: want %d, or %d with the point in force off the grid", s.Points, n, n, n+1)
	}
	if s.InForce < 0 || s.InForce >= s.Points || s.Points == n+1 && s.InForce != n {
		return errAt([]any{"in_force"}, "%d points with the one in force at %d: want in force among them", s.Points, s.InForce)
	}
	if most := max(s.Run.BenignTraces, s.Run.FatalTraces, s.Run.PartitionTraces); most > MaxResults/s.Points {
		return errAt([]any{"run"}, "%d points of %d traces: more than the %d results a run holds a family", s.Points, most, MaxResults)
	}
	if (s.Run.FatalTraces > 0) != (len(s.FatalFaults) > 0) {
		return errAt([]any{"fatal_faults"}, "%d fatal faults for %d fatal traces", len(s.FatalFaults), s.Run.FatalTraces)
	}
	for i, ff := range s.FatalFaults {
		if err := text(ff, "fatal_faults", i); err != nil {
			return err
		}
	}
	mine := 0 // the points of the work list that are this shard's
	if s.Shard < s.Points {
		mine = (s.Points - s.Shard + s.Of - 1) / s.Of
	}
	if len(s.Computed) != mine {
		return errAt([]any{"computed"}, "%d points computed: shard %d of %d computes %d of the %d", len(s.Computed), s.Shard, s.Of, mine, s.Points)
	}
	for j, p := range s.Computed {
		if p.Index < 0 || p.Index >= s.Points || p.Index%s.Of != s.Shard {
			return errAt([]any{"computed", j, "index"}, "point %d is not one of shard %d of %d's", p.Index, s.Shard, s.Of)
		}
		if want := s.Shard + j*s.Of; p.Index != want {
			return errAt([]any{"computed", j, "index"}, "point %d where the shard's %d-th is %d", p.Index, j+1, want)
		}
		if err := s.checkPoint(j, g, length); err != nil {
			return err
		}
	}
	return nil
}

// check judges a run's identity and returns its grid and its traces' length.
func (id *Identity) check() (Grid, time.Duration, error) {
	var g Grid
	if len(id.Vary) < 1 || len(id.Vary) > 2 {
		return g, 0, errAt([]any{"run", "vary"}, "%d axes: a sweep varies one or two settings", len(id.Vary))
	}
	part := id.PartitionTraces > 0
	for i, v := range id.Vary {
		if err := text(v, "run", "vary", i); err != nil {
			return g, 0, err
		}
		a, err := ParseVary(v)
		if err != nil {
			return g, 0, errAt([]any{"run", "vary", i}, "--vary %v", err)
		}
		if a.Spec() != v {
			return g, 0, errAt([]any{"run", "vary", i}, "--vary %q: want it as failsim writes it, %s", v, a.Spec())
		}
		if len(g.Axes) == 1 && g.Axes[0].Name == a.Name {
			return g, 0, errAt([]any{"run", "vary", i}, "--vary %s twice", a.Name)
		}
		if a.Liveness() && !part {
			return g, 0, errAt([]any{"run", "vary", i}, "--vary %s: %v", a.Name, ErrNeedsPartitions)
		}
		g.Axes = append(g.Axes, a)
	}
	if err := text(id.Statemap, "run", "statemap"); err != nil {
		return g, 0, err
	}
	if err := check.CheckText(id.StatemapText, "\n\t\r"); err != nil {
		return g, 0, errAt([]any{"run", "statemap_text"}, "statemap_text: %v", err)
	}
	if id.Statemap == "" && id.StatemapText != "" {
		return g, 0, errAt([]any{"run", "statemap_text"}, "a statemap's text with no statemap named")
	}
	if id.Statemap != "" {
		if _, err := statemap.FromBytes(id.Statemap, []byte(id.StatemapText)); err != nil {
			return g, 0, errAt([]any{"run", "statemap_text"}, "statemap_text: %v", err)
		}
	}
	b, f, p := id.BenignTraces, id.FatalTraces, id.PartitionTraces
	switch {
	case b < 0 || f < 0 || p < 0:
		return g, 0, errAt([]any{"run"}, "%d benign, %d fatal and %d partition traces: want none below 0", b, f, p)
	case p > 0 && (b > 0 || f > 0), p == 0 && b > 0 && f > 0 && b != f, b == 0 && f == 0 && p == 0:
		return g, 0, errAt([]any{"run"}, "%d benign, %d fatal and %d partition traces: no --family runs that", b, f, p)
	}
	if id.Nodes < 1 || id.Nodes > timeline.MaxMembers {
		return g, 0, errAt([]any{"run", "nodes"}, "%d nodes: want 1 to %d", id.Nodes, timeline.MaxMembers)
	}
	length, err := duration(id.Length, time.Minute, 24*time.Hour, "run", "length")
	if err != nil {
		return g, 0, err
	}
	if _, err := duration(id.Interval, time.Millisecond, timeline.MaxChecker, "run", "interval"); err != nil {
		return g, 0, err
	}
	if _, err := duration(id.Timeout, time.Millisecond, timeline.MaxChecker, "run", "timeout"); err != nil {
		return g, 0, err
	}
	for i, inc := range id.Incidents {
		if err := text(inc.File, "run", "incidents", i, "file"); err != nil {
			return g, 0, err
		}
		if !isHex(inc.SHA256) {
			return g, 0, errAt([]any{"run", "incidents", i, "sha256"}, "sha256 %q: want the 64 hex digits of a SHA-256", inc.SHA256)
		}
	}
	if id.Workload != "" {
		if err := text(id.Workload, "run", "workload"); err != nil {
			return g, 0, err
		}
		if _, err := check.ParseWorkload(id.Workload); err != nil {
			return g, 0, errAt([]any{"run", "workload"}, "workload %q: %v", id.Workload, err)
		}
	}
	return g, length, nil
}

// checkPoint judges computed point j: its values, and each family's figures against the run's
// traces and their length.
func (s *Share) checkPoint(j int, g Grid, length time.Duration) error {
	p := s.Computed[j]
	at := func(keys ...any) []any { return append([]any{"computed", j}, keys...) }
	if len(p.Values) != len(g.Axes) {
		return errAt(at("values"), "point %d has %d values for %d axes", p.Index, len(p.Values), len(g.Axes))
	}
	if p.Index < g.Len() {
		if !slices.Equal(p.Values, g.Point(p.Index)) {
			return errAt(at("values"), "point %d has values %v, the grid's are %v", p.Index, p.Values, g.Point(p.Index))
		}
	} else {
		for k, a := range g.Axes {
			if v, err := a.parse(a.Format(p.Values[k])); err != nil || v != p.Values[k] {
				return errAt(at("values", k), "point %d: %s %d: no value a statemap or checker in force has", p.Index, a.Name, p.Values[k])
			}
		}
		if g.index(p.Values) >= 0 {
			return errAt(at("values"), "point %d, the point in force off the grid, has values %v of the grid's point %d", p.Index, p.Values, g.index(p.Values))
		}
	}
	id := &s.Run
	L := length.Seconds()
	work := id.Workload != ""
	pt := fmt.Sprintf("point %d", p.Index)
	if (p.Benign != nil) != (id.BenignTraces > 0) {
		return errAt(at(), "%s: benign figures for %d benign traces: want them exactly when the run has benign traces", pt, id.BenignTraces)
	}
	if b := p.Benign; b != nil {
		switch {
		case b.Traces != id.BenignTraces:
			return errAt(at("benign", "traces"), "%s: %d benign traces, the run's are %d", pt, b.Traces, id.BenignTraces)
		case b.FalseFailovers < 0 || b.FalseFailovers > b.Traces:
			return errAt(at("benign", "false_failovers"), "%s: %d false failovers in %d traces", pt, b.FalseFailovers, b.Traces)
		case b.Rate != float64(b.FalseFailovers)/float64(b.Traces):
			return errAt(at("benign", "rate"), "%s: a false-failover rate of %v for %d of %d traces", pt, b.Rate, b.FalseFailovers, b.Traces)
		}
		if err := checkClient(b.Client, work, L, pt, at("benign", "client")); err != nil {
			return err
		}
	}
	if (p.Fatal != nil) != (id.FatalTraces > 0) {
		return errAt(at(), "%s: fatal figures for %d fatal traces: want them exactly when the run has fatal traces", pt, id.FatalTraces)
	}
	if f := p.Fatal; f != nil {
		switch {
		case f.Traces != id.FatalTraces:
			return errAt(at("fatal", "traces"), "%s: %d fatal traces, the run's are %d", pt, f.Traces, id.FatalTraces)
		case f.Fenced < 0 || f.Early < 0 || f.Missed < 0 || f.Fenced+f.Early+f.Missed != f.Traces:
			return errAt(at("fatal"), "%s: %d fenced, %d early and %d missed: want counts that add up to the %d fatal traces", pt, f.Fenced, f.Early, f.Missed, f.Traces)
		}
		// A miss ranks last, as forever (nil): the percentiles are in order with nil the
		// highest, the max nil exactly when a trace missed, all nil when none was measured.
		ps := []*float64{f.P50, f.P95, f.Max}
		for i, key := range []string{"p50_s", "p95_s", "max_s"} {
			v := ps[i]
			switch {
			case v != nil && (math.IsNaN(*v) || *v < 0 || *v > L):
				return errAt(at("fatal", key), "%s: a time to fence of %v s: want 0 to the trace's %v s", pt, *v, L)
			case i > 0 && ps[i-1] == nil && v != nil, i > 0 && v != nil && *ps[i-1] > *v:
				return errAt(at("fatal", key), "%s: the times to fence out of order (p50 <= p95 <= max)", pt)
			}
		}
		if measured := f.Fenced + f.Missed; (f.Max == nil) != (f.Missed > 0 || measured == 0) {
			return errAt(at("fatal", "max_s"), "%s: a max time to fence of %v with %d of %d measured traces missed", pt, show(f.Max), f.Missed, measured)
		}
		if err := checkClient(f.Client, work, L, pt, at("fatal", "client")); err != nil {
			return err
		}
	}
	if (p.Partition != nil) != (id.PartitionTraces > 0) {
		return errAt(at(), "%s: partition figures for %d partition traces: want them exactly when the run has partition traces", pt, id.PartitionTraces)
	}
	if q := p.Partition; q != nil {
		switch {
		case q.Traces != id.PartitionTraces:
			return errAt(at("partition", "traces"), "%s: %d partition traces, the run's are %d", pt, q.Traces, id.PartitionTraces)
		case q.SplitBrain < 0 || q.SplitBrain > q.Traces:
			return errAt(at("partition", "split_brain"), "%s: split brain in %d of %d traces", pt, q.SplitBrain, q.Traces)
		case q.Share != float64(q.SplitBrain)/float64(q.Traces):
			return errAt(at("partition", "split_brain_share"), "%s: a split-brain share of %v for %d of %d traces", pt, q.Share, q.SplitBrain, q.Traces)
		case q.NoWriterAtEnd < 0 || q.NoWriterAtEnd > q.Traces:
			return errAt(at("partition", "no_writer_at_end"), "%s: %d of %d traces ending with no writer", pt, q.NoWriterAtEnd, q.Traces)
		}
		if err := ordered(pt, "split brain", L, at("partition"), []string{"split_brain_p50_s", "split_brain_p95_s", "split_brain_max_s"}, q.SplitBrainP50, q.SplitBrainP95, q.SplitBrainMax); err != nil {
			return err
		}
		if err := ordered(pt, "no writer", L, at("partition"), []string{"no_writer_p50_s", "no_writer_p95_s", "no_writer_max_s"}, q.NoWriterP50, q.NoWriterP95, q.NoWriterMax); err != nil {
			return err
		}
		if t := q.SplitBrainTotal; math.IsNaN(t) || t < q.SplitBrainMax || t > float64(q.Traces)*L || (q.SplitBrain == 0) != (t == 0) {
			return errAt(at("partition", "split_brain_total_s"), "%s: %v s of split brain in all for %d traces with it, the longest %v s", pt, t, q.SplitBrain, q.SplitBrainMax)
		}
		if err := checkClient(q.Client, work, L, pt, at("partition", "client")); err != nil {
			return err
		}
	}
	if len(p.Incidents) != len(id.Incidents) {
		return errAt(at("incidents"), "%s: %d incidents' verdicts for the run's %d incidents", pt, len(p.Incidents), len(id.Incidents))
	}
	for i, inc := range p.Incidents {
		if inc.File != id.Incidents[i].File {
			return errAt(at("incidents", i, "file"), "%s: incident %q where the run's is %q", pt, inc.File, id.Incidents[i].File)
		}
		if err := text(inc.Outcome, at("incidents", i, "outcome")...); err != nil {
			return err
		}
		if err := text(inc.At, at("incidents", i, "at")...); err != nil {
			return err
		}
		if inc.ExpectationsFailed < 0 {
			return errAt(at("incidents", i, "expectations_failed"), "%s: %d expectations failed", pt, inc.ExpectationsFailed)
		}
	}
	return nil
}

// checkClient judges a family's client figures: there exactly with a workload, times within a
// trace's length L and in order, counts not below 0.
func checkClient(c *ClientStats, work bool, L float64, pt string, path []any) error {
	if (c != nil) != work {
		return errAt(path, "%s: the client's figures: want them exactly when the run has a workload", pt)
	}
	if c == nil {
		return nil
	}
	if err := ordered(pt, "unavailable time", L, path, []string{"unavailable_p50_s", "unavailable_p95_s", "unavailable_max_s"}, c.UnavailableP50, c.UnavailableP95, c.UnavailableMax); err != nil {
		return err
	}
	if c.Lost < 0 || c.LostP95 < 0 || c.LostP95 > c.Lost {
		return errAt(append(path, "lost_p95"), "%s: %d writes lost in all, %d by the p95 trace: want 0 <= p95 <= all", pt, c.Lost, c.LostP95)
	}
	return nil
}

// ordered judges the p50, p95 and max of a time per trace: from 0 to L seconds, in order.
func ordered(pt, what string, L float64, path []any, keys []string, vs ...float64) error {
	for i, v := range vs {
		if math.IsNaN(v) || v < 0 || v > L {
			return errAt(append(path[:len(path):len(path)], keys[i]), "%s: %s %v s: want 0 to the trace's %v s", pt, what, v, L)
		}
		if i > 0 && vs[i-1] > v {
			return errAt(append(path[:len(path):len(path)], keys[i]), "%s: %s out of order (p50 <= p95 <= max)", pt, what)
		}
	}
	return nil
}

func show(v *float64) string {
	if v == nil {
		return "never"
	}
	return fmt.Sprint(*v)
}

// jsonError places a decoding error at its line.
func jsonError(f ShareFile, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fileline.Errorf(f.Name, lineAt(f.Data, syn.Offset), "broken JSON: %v", err)
	case errors.As(err, &typ):
		return fileline.Errorf(f.Name, lineAt(f.Data, typ.Offset), "%s: want a JSON %s, got %s", typ.Field, typ.Type, typ.Value)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fileline.Errorf(f.Name, lineAt(f.Data, int64(len(f.Data))), "broken JSON: %v", err)
	}
	return fileline.Errorf(f.Name, 0, "%v", err)
}

// lineAt is the 1-based line of byte offset off in data.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}

// differences names the fields in which two identities differ.
func differences(a, b Identity) []string {
	var ma, mb map[string]json.RawMessage
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	json.Unmarshal(ja, &ma)
	json.Unmarshal(jb, &mb)
	var out []string
	for k, v := range ma {
		if !bytes.Equal(v, mb[k]) {
			out = append(out, k)
		}
	}
	for k := range mb {
		if _, ok := ma[k]; !ok { // a field one leaves out (omitempty) and the other has
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// assemble builds the result from the shares of every shard, in shard order.
func assemble(shares []*Share) (*Result, error) {
	s0 := shares[0]
	var axes []Axis
	for _, v := range s0.Run.Vary {
		a, err := ParseVary(v)
		if err != nil {
			return nil, fmt.Errorf("%w: --vary %v", ErrShares, err)
		}
		axes = append(axes, a)
	}
	g := Grid{Axes: axes}
	if n := g.Len(); s0.Points != n && s0.Points != n+1 {
		return nil, fmt.Errorf("%w: %d points for a grid of %d", ErrShares, s0.Points, n)
	}
	pts := make([]*Point, s0.Points)
	for _, s := range shares {
		for _, sp := range s.Computed {
			if pts[sp.Index] != nil {
				return nil, fmt.Errorf("%w: point %d is given twice", ErrShares, sp.Index)
			}
			p := &Point{Values: sp.Values, Benign: sp.Benign, Fatal: sp.Fatal, Partition: sp.Partition, Incidents: sp.Incidents}
			if sp.Index < g.Len() && !slices.Equal(sp.Values, g.Point(sp.Index)) {
				return nil, fmt.Errorf("%w: point %d has values %v, the grid's are %v", ErrShares, sp.Index, sp.Values, g.Point(sp.Index))
			}
			pts[sp.Index] = p
		}
	}
	for i, p := range pts {
		if p == nil {
			return nil, fmt.Errorf("%w: point %d is in no share", ErrShares, i)
		}
	}
	pts[s0.InForce].InForce = true
	pareto(pts)
	return &Result{Run: s0.Run, Grid: g, FatalFaults: s0.FatalFaults, Points: pts[:g.Len()], InForce: pts[s0.InForce]}, nil
}
