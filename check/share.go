package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strings"

	"github.com/failsim/failsim/fileline"
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
// consistent: the shard in range, each family's block where the shard's is, every count within
// the block, a counterexample for each violated property and only for those, inside the block,
// parsing as a timeline. Every error is a *fileline.Error, at the line for broken JSON.
func ParseShare(name string, data []byte) (*Share, error) {
	s := &Share{name: name}
	if err := decodeOne(data, s, true); err != nil {
		return nil, jsonErr(name, data, err)
	}
	if err := s.check(); err != nil {
		return nil, &fileline.Error{File: name, Err: err}
	}
	return s, nil
}

func (s *Share) check() error {
	switch {
	case s.Kind != ShareKind:
		return fmt.Errorf("kind %q: not a %s", s.Kind, ShareKind)
	case s.Version != ShareVersion:
		return fmt.Errorf("share format version %d: this failsim reads version %d", s.Version, ShareVersion)
	case s.Shards < 1:
		return fmt.Errorf("%d shards: want at least 1", s.Shards)
	case s.Shard < 0 || s.Shard >= s.Shards:
		return fmt.Errorf("shard %d of %d: want a shard from 0 to %d", s.Shard, s.Shards, s.Shards-1)
	case s.Flags.Traces < s.Shards:
		return fmt.Errorf("%d traces per family in %d shards: want at least one trace a shard", s.Flags.Traces, s.Shards)
	case len(s.Families) == 0:
		return errors.New("no family")
	}
	first, count := ShardRange(s.Shard, s.Shards, s.Flags.Traces)
	for _, f := range s.Families {
		if _, ok := ParseFamily(f.Family); !ok {
			return fmt.Errorf("family %q: want benign, fatal or mixed", f.Family)
		}
		if f.First != first || f.Traces != count {
			return fmt.Errorf("%s: traces %d to %d: shard %d of %d judges traces %d to %d", f.Family, f.First, f.First+f.Traces-1, s.Shard, s.Shards, first, first+count-1)
		}
		if len(f.Properties) == 0 {
			return fmt.Errorf("%s: no property", f.Family)
		}
		for i := range f.Properties {
			p := &f.Properties[i]
			if _, err := p.Spec(); err != nil {
				return fmt.Errorf("%s: %w", f.Family, err)
			}
			c := p.Counterexample
			switch {
			case p.Traces != f.Traces:
				return fmt.Errorf("%s: %s judged %d traces, not the block's %d", f.Family, p.Property, p.Traces, f.Traces)
			case p.Violated < 0 || p.Violated > p.Traces:
				return fmt.Errorf("%s: %s violated in %d of %d traces", f.Family, p.Property, p.Violated, p.Traces)
			case p.Violated > 0 && c == nil:
				return fmt.Errorf("%s: %s violated in %d traces, with no counterexample", f.Family, p.Property, p.Violated)
			case p.Violated == 0 && c != nil:
				return fmt.Errorf("%s: %s held, with a counterexample", f.Family, p.Property)
			case c == nil:
				continue
			case c.Trace < f.First || c.Trace >= f.First+f.Traces:
				return fmt.Errorf("%s: %s's counterexample is trace %d, outside the block", f.Family, p.Property, c.Trace)
			case c.Events < 0 || c.Nodes < 0 || c.Replays < 0:
				return fmt.Errorf("%s: %s's counterexample counts less than nothing", f.Family, p.Property)
			}
			if _, err := c.Shrunk(s.name); err != nil {
				return fmt.Errorf("%s: %s's counterexample: %w", f.Family, p.Property, err)
			}
		}
	}
	return nil
}

// Merge adds the shares of every shard of one run up to what the run finds on each family:
// the traces and violations summed, and each property's counterexample the one of the lowest
// trace index. It refuses shares of different runs (other flags, another statemap, another
// number of shards), a shard given twice, and a shard missing. Every share must come from
// ParseShare.
func Merge(shares []*Share) ([]Outcome, error) {
	if len(shares) == 0 {
		return nil, errors.New("no share to merge")
	}
	a := shares[0]
	byShard := make([]*Share, a.Shards)
	for _, s := range shares {
		switch {
		case s.Shards != a.Shards:
			return nil, fmt.Errorf("%s: a share of %d shards, %s of %d: not one run", s.name, s.Shards, a.name, a.Shards)
		case !slices.Equal(s.Flags.list(), a.Flags.list()):
			return nil, fmt.Errorf("%s: another run's share: %s", s.name, flagDiff(s.Flags, a.Flags, a.name))
		case s.Statemap != a.Statemap:
			return nil, fmt.Errorf("%s: another run's share: its statemap's rules differ from %s's", s.name, a.name)
		case byShard[s.Shard] != nil:
			return nil, fmt.Errorf("%s: shard %d of %d again, as in %s", s.name, s.Shard, s.Shards, byShard[s.Shard].name)
		}
		byShard[s.Shard] = s
	}
	var missing []string
	for k, s := range byShard {
		if s == nil {
			missing = append(missing, fmt.Sprint(k))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("shard %s of %d missing: a merge needs the share of every shard", strings.Join(missing, ", "), a.Shards)
	}
	var out []Outcome
	for i, f := range byShard[0].Families {
		o := Outcome{Family: f.Family, Properties: slices.Clone(f.Properties)}
		for _, s := range byShard {
			if len(s.Families) != len(a.Families) || s.Families[i].Family != f.Family || len(s.Families[i].Properties) != len(f.Properties) {
				return nil, fmt.Errorf("%s: other families or properties than %s's: not one run", s.name, byShard[0].name)
			}
			sf := s.Families[i]
			o.Traces += sf.Traces
			for k, p := range sf.Properties {
				if p.Property != f.Properties[k].Property {
					return nil, fmt.Errorf("%s: other families or properties than %s's: not one run", s.name, byShard[0].name)
				}
				if s == byShard[0] {
					continue
				}
				q := &o.Properties[k]
				q.Traces += p.Traces
				q.Violated += p.Violated
				if q.Counterexample == nil {
					q.Counterexample = p.Counterexample
				}
			}
		}
		out = append(out, o)
	}
	return out, nil
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

// flagDiff names the first flag a and b differ in: "--seed 2 where a.json has 1".
func flagDiff(a, b Flags, bName string) string {
	bl := b.list()
	for i, x := range a.list() {
		if x != bl[i] {
			return fmt.Sprintf("--%s %s where %s has %s", x[0], x[1], bName, bl[i][1])
		}
	}
	return "the same flags"
}
