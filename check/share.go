package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/bits"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/failsim/failsim/fileline"
	"github.com/failsim/failsim/timeline"
)

// ShareKind is the "kind" of a share file: failsim merge reads a file by its kind.
const ShareKind = "failsim-check-share"

// ShareVersion is the version of the share format this failsim writes and reads.
const ShareVersion = 1

// Share is one shard's part of a failsim check run (--shard K/N): for each family, a contiguous
// block of trace indices, ShardRange(K, N, traces), judged in full (a shard never stops early).
// failsim merge adds the shares of all N shards up to what one run finds.
type Share struct {
	Kind     string        `json:"kind"`            // ShareKind
	Version  int           `json:"version"`         // ShareVersion
	Shard    int           `json:"shard"`           // K, from 0 to Shards-1
	Shards   int           `json:"shards"`          // N
	Flags    Flags         `json:"flags"`           // the run's
	Statemap string        `json:"statemap_sha256"` // Digest of the statemap checked
	Families []ShareFamily `json:"families"`        // in the order the run checks them

	name string // the file it was read from, for errors
}

// ShareFamily is one family's block of a share.
type ShareFamily struct {
	First   int `json:"first"` // the index of the block's first trace
	Outcome     // the block's traces and verdicts
}

// ShardRange returns the block of trace indices shard k of n judges in a run of traces per
// family: first, and how many. The blocks of shards 0 to n-1 follow one another and cover every
// trace once; they differ in size by at most one.
func ShardRange(k, n, traces int) (first, count int) {
	first, end := blockStart(k, n, traces), blockStart(k+1, n, traces)
	return first, end - first
}

// blockStart is floor(k×traces/n), for 0 <= k <= n and traces >= 0, without overflow.
func blockStart(k, n, traces int) int {
	hi, lo := bits.Mul64(uint64(k), uint64(traces))
	q, _ := bits.Div64(hi, lo, uint64(n)) // hi < n: the quotient is at most traces
	return int(q)
}

// ShareFileName is the name of shard k of n's share file.
func ShareFileName(k, n int) string { return fmt.Sprintf("check-shard-%d-of-%d.json", k, n) }

// Marshal writes s as indented JSON, ending in a newline.
func (s *Share) Marshal() []byte {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic("check: a share does not marshal: " + err.Error())
	}
	return append(b, '\n')
}

// PeekKind returns the "kind" of the JSON document data, read from file name: every failsim
// share says what it is a share of. Broken JSON is a *fileline.Error at its line.
func PeekKind(name string, data []byte) (string, error) {
	var doc struct {
		Kind *string `json:"kind"`
	}
	if err := decodeOne(data, &doc, false); err != nil {
		return "", jsonErr(name, data, err)
	}
	if doc.Kind == nil {
		return "", fileline.Errorf(name, 0, `no "kind": not a share of a failsim run`)
	}
	return *doc.Kind, nil
}

// decodeOne decodes data, one JSON document and nothing after it, into v; strict refuses a
// field v does not have.
func decodeOne(data []byte, v any, strict bool) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return err
	}
	at := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		return trailingError{at}
	}
	return nil
}

// trailingError is data after a JSON document, from offset on.
type trailingError struct{ offset int64 }

func (e trailingError) Error() string { return "more than one JSON document" }

// jsonErr is err, from decoding data read from file name, at its line.
func jsonErr(name string, data []byte, err error) *fileline.Error {
	var tr trailingError
	if errors.As(err, &tr) {
		return &fileline.Error{File: name, Line: fileline.LineAt(data, tr.offset), Err: err}
	}
	return fileline.JSON(name, data, err)
}

// ParseShare reads a share from data, read from file name, and checks that it is whole and
// consistent: the shard in range, the flags those of a run (a family, properties that build,
// nodes and a length check takes), the families and properties exactly those the flags imply,
// each family's block where the shard's is, every count within the block, a counterexample for
// each violated property and only for those, inside the block, parsing as a timeline, and no
// control character in any text (a counterexample's timeline may have its newlines). Every
// error is a *fileline.Error, at the line of the value it is about.
func ParseShare(name string, data []byte) (*Share, error) {
	s := &Share{name: name}
	if err := decodeOne(data, s, true); err != nil {
		return nil, jsonErr(name, data, err)
	}
	if err := s.check(); err != nil {
		return nil, placed(name, data, err)
	}
	return s, nil
}

// pathError is what is wrong with the value at path in a JSON document (keys and indices from
// the top, as fileline.JSONLine takes them).
type pathError struct {
	path []any
	err  error
}

func (e *pathError) Error() string { return e.err.Error() }
func (e *pathError) Unwrap() error { return e.err }

// atPath places err at path.
func atPath(err error, path ...any) error { return &pathError{path: path, err: err} }

// atf places an error formatted as fmt.Errorf does at path.
func atf(path []any, format string, args ...any) error {
	return &pathError{path: path, err: fmt.Errorf(format, args...)}
}

// placed is err, about data read from file name, as a *fileline.Error at the line its
// pathError names (line 0 without one).
func placed(name string, data []byte, err error) *fileline.Error {
	var pe *pathError
	if errors.As(err, &pe) {
		return &fileline.Error{File: name, Line: fileline.JSONLine(data, pe.path...), Err: err}
	}
	return &fileline.Error{File: name, Err: err}
}

// CheckText says what is wrong with s, a string read from a share a peer may have written,
// for a text failsim prints or writes into a file: a control character (a newline included,
// which would start a line of its own in a counterexample's header), a line or paragraph
// separator, or a byte that is not UTF-8. keep lists the control characters the text may
// hold (a timeline's "\n").
func CheckText(s, keep string) error {
	if !utf8.ValidString(s) {
		return errors.New("not UTF-8 text")
	}
	for _, r := range s {
		if (unicode.IsControl(r) || r == '\u2028' || r == '\u2029') && !strings.ContainsRune(keep, r) {
			return fmt.Errorf("a control character (%U) in the text", r)
		}
	}
	return nil
}

// checkText is CheckText of s, placed at path.
func checkText(s string, path ...any) error {
	if err := CheckText(s, ""); err != nil {
		return atPath(fmt.Errorf("%q: %w", s, err), path...)
	}
	return nil
}

// checkFlags says what no run of failsim check has among the flags.
func (f Flags) check() error {
	if err := checkText(f.Statemap, "flags", "statemap"); err != nil {
		return err
	}
	if err := checkText(f.Out, "flags", "out"); err != nil {
		return err
	}
	if f.Out == "" {
		return atPath(errors.New(`out "": want the directory the run's --out named`), "flags", "out")
	}
	if f.Traces < 1 {
		return atf([]any{"flags", "traces"}, "%d traces per family: want at least 1", f.Traces)
	}
	if f.Nodes < 1 || f.Nodes > timeline.MaxMembers {
		return atf([]any{"flags", "nodes"}, "%d nodes: want 1 to %d", f.Nodes, timeline.MaxMembers)
	}
	if d, err := time.ParseDuration(f.Length); err != nil || d < time.Minute || d > 24*time.Hour || d.String() != f.Length {
		return atf([]any{"flags", "length"}, "length %q: want a duration from 1m to 24h as failsim writes it (1h0m0s)", f.Length)
	}
	if f.Workload != "" {
		if err := checkText(f.Workload, "flags", "workload"); err != nil {
			return err
		}
		if _, err := ParseWorkload(f.Workload); err != nil {
			return atf([]any{"flags", "workload"}, "workload %q: %w", f.Workload, err)
		}
	}
	return nil
}

func (s *Share) check() error {
	switch {
	case s.Kind != ShareKind:
		return atf([]any{"kind"}, "kind %q: not a %s", s.Kind, ShareKind)
	case s.Version != ShareVersion:
		return atf([]any{"version"}, "share format version %d: this failsim reads version %d", s.Version, ShareVersion)
	case s.Shards < 1:
		return atf([]any{"shards"}, "%d shards: want at least 1", s.Shards)
	case s.Shard < 0 || s.Shard >= s.Shards:
		return atf([]any{"shard"}, "shard %d of %d: want a shard from 0 to %d", s.Shard, s.Shards, s.Shards-1)
	}
	if err := s.Flags.check(); err != nil {
		return err
	}
	switch {
	case s.Flags.Traces < s.Shards:
		return atf([]any{"flags", "traces"}, "%d traces per family in %d shards: want at least one trace a shard", s.Flags.Traces, s.Shards)
	case len(s.Statemap) != 64 || strings.Trim(s.Statemap, "0123456789abcdef") != "":
		return atf([]any{"statemap_sha256"}, "statemap_sha256 %q: want the 64 hex digits of a SHA-256", s.Statemap)
	case len(s.Families) == 0:
		return atPath(errors.New("no family"), "families")
	}
	plan, err := s.Flags.Plan()
	if err != nil {
		return flagPath(err)
	}
	first, count := ShardRange(s.Shard, s.Shards, s.Flags.Traces)
	for i, f := range s.Families {
		fam := []any{"families", i}
		if err := checkText(f.Family, "families", i, "family"); err != nil {
			return err
		}
		if _, ok := ParseFamily(f.Family); !ok {
			return atf(append(fam, "family"), "family %q: want benign, fatal, mixed or partition", f.Family)
		}
		if i >= len(plan) || f.Family != plan[i].Family.String() {
			return atf(append(fam, "family"), "families %s: a run with --family %s checks %s", blockNames(s.Families), s.Flags.Family, planNames(plan))
		}
		if f.First != first || f.Traces != count {
			return atf(append(fam, "first"), "%s: traces %d to %d: shard %d of %d judges traces %d to %d", f.Family, f.First, f.First+f.Traces-1, s.Shard, s.Shards, first, first+count-1)
		}
		if len(f.Properties) == 0 {
			return atf(append(fam, "properties"), "%s: no property", f.Family)
		}
		var got []string
		for k := range f.Properties {
			p := &f.Properties[k]
			pp := append(fam[:2:2], "properties", k)
			if err := checkText(p.Property, append(pp, "property")...); err != nil {
				return err
			}
			if _, err := p.Spec(); err != nil {
				return atPath(fmt.Errorf("%s: %w", f.Family, err), append(pp, "property")...)
			}
			got = append(got, p.Property)
		}
		if want := plan[i].names(); !slices.Equal(got, want) {
			return atf(append(fam, "properties"), "%s: properties %s: a run with these flags checks %s", f.Family, strings.Join(got, ", "), strings.Join(want, ", "))
		}
		for k := range f.Properties {
			if err := f.checkProperty(k, append(fam[:2:2], "properties", k)); err != nil {
				return err
			}
		}
	}
	if len(s.Families) < len(plan) {
		return atf([]any{"families"}, "families %s: a run with --family %s checks %s", blockNames(s.Families), s.Flags.Family, planNames(plan))
	}
	for i, f := range s.Families {
		for k := range f.Properties {
			if c := f.Properties[k].Counterexample; c != nil {
				if _, err := c.Shrunk(s.name); err != nil {
					return atPath(fmt.Errorf("%s: %s's counterexample: %w", f.Family, f.Properties[k].Property, err), "families", i, "properties", k, "counterexample", "timeline")
				}
			}
		}
	}
	return nil
}

// checkProperty checks property k of family block f, at path pp.
func (f *ShareFamily) checkProperty(k int, pp []any) error {
	p := &f.Properties[k]
	c := p.Counterexample
	ce := append(pp[:len(pp):len(pp)], "counterexample")
	switch {
	case p.Traces != f.Traces:
		return atf(append(pp, "traces"), "%s: %s judged %d traces, not the block's %d", f.Family, p.Property, p.Traces, f.Traces)
	case p.Violated < 0 || p.Violated > p.Traces:
		return atf(append(pp, "violated"), "%s: %s violated in %d of %d traces", f.Family, p.Property, p.Violated, p.Traces)
	case p.Violated > 0 && c == nil:
		return atf(append(pp, "violated"), "%s: %s violated in %d traces, with no counterexample", f.Family, p.Property, p.Violated)
	case p.Violated == 0 && c != nil:
		return atf(ce, "%s: %s held, with a counterexample", f.Family, p.Property)
	case c == nil:
		return nil
	case c.Trace < f.First || c.Trace >= f.First+f.Traces:
		return atf(append(ce, "trace"), "%s: %s's counterexample is trace %d, outside the block", f.Family, p.Property, c.Trace)
	case c.Events < 0 || c.Nodes < 0 || c.Replays < 0:
		return atf(ce, "%s: %s's counterexample counts less than nothing", f.Family, p.Property)
	case c.Nodes > timeline.MaxMembers:
		return atf(append(ce, "nodes"), "%s: %s's counterexample has %d nodes: a cluster has at most %d members", f.Family, p.Property, c.Nodes, timeline.MaxMembers)
	case c.File != "":
		return atf(append(ce, "file"), "%s: %s's counterexample names a file: a share writes none", f.Family, p.Property)
	}
	for _, t := range []struct{ key, text string }{{"why", c.Why}, {"shrunk_why", c.ShrunkWhy}} {
		if err := checkText(t.text, append(ce, t.key)...); err != nil {
			return fmt.Errorf("%s: %s's counterexample: %w", f.Family, p.Property, err)
		}
	}
	if err := CheckText(c.Timeline, "\n\t"); err != nil {
		return atPath(fmt.Errorf("%s: %s's counterexample: timeline: %w", f.Family, p.Property, err), append(ce, "timeline")...)
	}
	return nil
}

func blockNames(fs []ShareFamily) string {
	var s []string
	for _, f := range fs {
		s = append(s, f.Family)
	}
	return strings.Join(s, ", ")
}

// Merger adds up the shares of one run as they are read, one at a time: it keeps the sums and
// each property's counterexample of the lowest trace index, not the shares, so a merge holds
// one share's worth of memory whatever their number. It refuses a share of another run (other
// flags, another statemap, another number of shards) and a shard given twice as soon as it is
// added, and a shard missing at the end. The zero Merger is ready.
type Merger struct {
	name   string // the first share's file
	shards int
	flags  Flags
	digest string
	out    []Outcome
	seen   map[int]string // shard: its file
}

// Add adds share s, from ParseShare.
func (m *Merger) Add(s *Share) error {
	if m.seen == nil {
		m.name, m.shards, m.flags, m.digest, m.seen = s.name, s.Shards, s.Flags, s.Statemap, map[int]string{}
		for _, f := range s.Families {
			m.out = append(m.out, Outcome{Family: f.Family, Properties: slices.Clone(f.Properties)})
		}
	}
	refuse := func(path []any, format string, args ...any) error {
		return &fileline.Error{File: s.name, Err: atf(path, format, args...)}
	}
	switch {
	case s.Shards != m.shards:
		return refuse([]any{"shards"}, "a share of %d shards, %s of %d: not one run", s.Shards, m.name, m.shards)
	case !slices.Equal(s.Flags.list(), m.flags.list()):
		diff, key := flagDiff(s.Flags, m.flags, m.name)
		return refuse([]any{"flags", key}, "another run's share: %s", diff)
	case s.Statemap != m.digest:
		return refuse([]any{"statemap_sha256"}, "another run's share: its statemap's rules differ from %s's", m.name)
	case m.seen[s.Shard] != "":
		return refuse([]any{"shard"}, "shard %d of %d again, as in %s", s.Shard, s.Shards, m.seen[s.Shard])
	case len(s.Families) != len(m.out):
		return refuse([]any{"families"}, "other families or properties than %s's: not one run", m.name)
	}
	for i, f := range s.Families {
		if f.Family != m.out[i].Family || len(f.Properties) != len(m.out[i].Properties) {
			return refuse([]any{"families", i}, "other families or properties than %s's: not one run", m.name)
		}
		for k, p := range f.Properties {
			if p.Property != m.out[i].Properties[k].Property {
				return refuse([]any{"families", i, "properties", k}, "other families or properties than %s's: not one run", m.name)
			}
		}
	}
	first := len(m.seen) == 0
	m.seen[s.Shard] = s.name
	for i, f := range s.Families {
		o := &m.out[i]
		o.Traces += f.Traces
		if first {
			continue // its properties are o's already
		}
		for k, p := range f.Properties {
			q := &o.Properties[k]
			q.Traces += p.Traces
			q.Violated += p.Violated
			if c := p.Counterexample; c != nil && (q.Counterexample == nil || c.Trace < q.Counterexample.Trace) {
				q.Counterexample = c
			}
		}
	}
	return nil
}

// Outcomes returns what the run found on each family, once every shard's share was added.
func (m *Merger) Outcomes() ([]Outcome, error) {
	if m.seen == nil {
		return nil, errors.New("no share to merge")
	}
	if len(m.seen) < m.shards {
		return nil, fmt.Errorf("%s missing: a merge needs the share of every shard", Missing(slices.Collect(maps.Keys(m.seen)), m.shards))
	}
	return m.out, nil
}

// Flags returns the run's flags, and Digest its statemap's, from the first share added.
func (m *Merger) Flags() Flags { return m.flags }

// Digest is the SHA-256 of the run's statemap's rules (check.Digest), from the first share.
func (m *Merger) Digest() string { return m.digest }

// Missing names the shards of n that are not in have, for a message: "shard 2 of 3", "shard 0,
// 2 of 3", or with ranges and at most ten of them, "shard 3 to 9999999 of 10000000 (9999997
// shards)". It takes the time and memory of have, whatever n.
func Missing(have []int, n int) string {
	have = slices.Clone(have)
	slices.Sort(have)
	have = slices.Compact(have)
	var parts []string
	missing, ranges, next := 0, 0, 0
	add := func(from, to int) { // the shards from to to-1
		if from >= to {
			return
		}
		missing += to - from
		ranges++
		switch {
		case ranges > 10:
		case to-from == 1:
			parts = append(parts, fmt.Sprint(from))
		default:
			parts = append(parts, fmt.Sprintf("%d to %d", from, to-1))
		}
	}
	for _, k := range have {
		if k < 0 || k >= n {
			continue
		}
		add(next, k)
		next = k + 1
	}
	add(next, n)
	s := "shard " + strings.Join(parts, ", ")
	if ranges > 10 {
		s += fmt.Sprintf(" and %d more", ranges-10)
	}
	s += fmt.Sprintf(" of %d", n)
	if missing > len(parts) {
		s += fmt.Sprintf(" (%d shards)", missing)
	}
	return s
}

// Merge adds the shares of every shard of one run up to what the run finds on each family:
// the traces and violations summed, and each property's counterexample the one of the lowest
// trace index, as a Merger does. Every share must come from ParseShare.
func Merge(shares []*Share) ([]Outcome, error) {
	var m Merger
	for _, s := range shares {
		if err := m.Add(s); err != nil {
			return nil, err
		}
	}
	return m.Outcomes()
}

// list is every flag, by name, with its value as the command line gives it.
func (f Flags) list() [][2]string {
	props := strings.Join(f.Properties, ",")
	if props == "" {
		props = "none"
	}
	sm := f.Statemap
	if sm == "" {
		sm = `""`
	}
	return [][2]string{{"statemap", sm}, {"family", f.Family}, {"property", props}, {"traces", fmt.Sprint(f.Traces)},
		{"seed", fmt.Sprint(f.Seed)}, {"out", f.Out}, {"nodes", fmt.Sprint(f.Nodes)}, {"length", f.Length}, {"workload", f.Workload}}
}

// flagDiff names the first flag a and b differ in, "--seed 2 where a.json has 1", and its key
// in a share's flags.
func flagDiff(a, b Flags, bName string) (string, string) {
	bl := b.list()
	for i, x := range a.list() {
		if x != bl[i] {
			key := x[0]
			if key == "property" {
				key = "properties"
			}
			return fmt.Sprintf("--%s %s where %s has %s", x[0], x[1], bName, bl[i][1]), key
		}
	}
	return "the same flags", ""
}

// Locate places err, a refusal of Merger.Add about the share read from data, at the line of
// the value it is about; another error is returned as it is.
func Locate(err error, data []byte) error {
	var fe *fileline.Error
	var pe *pathError
	if errors.As(err, &fe) && fe.Line == 0 && errors.As(fe.Err, &pe) {
		return &fileline.Error{File: fe.File, Line: fileline.JSONLine(data, pe.path...), Err: fe.Err}
	}
	return err
}
